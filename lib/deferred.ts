/**
 * Work that must happen but not before the answer: the activity row, the rate-limit sweep. Inside
 * a Next request it runs through `after()` (once the response has been sent; on Vercel the
 * function stays alive for it). Outside one (tests, scripts) it is queued and run on the next
 * turn of the event loop; `settleDeferred()` runs the queue and waits for all of it.
 * A failure is logged by its kind only (driver errors can quote parameters) and never reaches
 * the answer, which has been sent already.
 */
import { after } from "next/server";
import { failureFields } from "@/lib/errors";
import { log } from "@/lib/log";

const queue: Array<() => Promise<void>> = [];
const running = new Set<Promise<void>>();

function guarded(label: string, task: () => Promise<unknown>): () => Promise<void> {
  return async () => {
    try {
      await task();
    } catch (error) {
      log.error("deferred.failed", { task: label, ...failureFields(error) });
    }
  };
}

function drain(): void {
  for (let task = queue.shift(); task; task = queue.shift()) {
    const run = task().finally(() => running.delete(run));
    running.add(run);
  }
}

/** Runs `task` after the current response has been sent. */
export function defer(label: string, task: () => Promise<unknown>): void {
  const run = guarded(label, task);
  try {
    after(run);
    return;
  } catch {
    // Not inside a Next request.
  }
  queue.push(run);
  setTimeout(drain, 0);
}

/** Runs whatever is queued and waits until every deferred task has finished (tests, shutdown). */
export async function settleDeferred(): Promise<void> {
  drain();
  while (running.size > 0) {
    await Promise.all([...running]);
    drain();
  }
}
