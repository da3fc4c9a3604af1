/**
 * Embedded PGlite on its own thread (db/pglite-worker.mjs), reached through the part of PGlite's
 * client drizzle uses: `query(text, params, options)` and `transaction(fn)`. PostgreSQL's WASM
 * then runs beside the request thread, not on it, as a server's database runs in its own
 * processes: a heavy question no longer holds up every other request for its whole database time
 * (on the heavy user, two years of cash flow spent about 3.5 ms of its request thread inside
 * PGlite). As a server sends its rows over a socket, the thread sends a prepared statement's
 * answer as the bytes PostgreSQL wrote, and they are read into rows here (db/pglite-wire.mjs).
 *
 * Statements keep PGlite's order and locks (the worker runs them through PGlite's own client):
 * one transaction at a time, and a statement outside it waits for it to end.
 */
import path from "node:path";
import { Worker } from "node:worker_threads";
import type { QueryOptions, Results } from "@electric-sql/pglite";
import type { WireAnswer } from "./pglite-prepared.mjs";
import { readAnswer } from "./pglite-wire.mjs";

/** The longest statement text kept prepared, the most parameters, and the most statements. */
export interface PreparedLimits {
  maxText: number;
  maxParams: number;
  maxStatements: number;
  /** Statements whose text holds this are planned for their values on every run. */
  plannedEachRun: string;
}

export interface ThreadOptions {
  /** PGlite's folder, or `memory://`. */
  dir: string;
  /** Keep statements prepared (db/pglite-prepared.mjs), or not (null). */
  prepared: PreparedLimits | null;
}

/** What the request thread asks the worker. */
export type Request = { id: number } & (
  | {
      op: "query";
      text: string;
      params: unknown[];
      rowMode?: "array" | "object";
      /** Types whose values come back as text, for the caller's own parsers. */
      textTypes?: number[];
      /** The transaction it belongs to (the id of the request that began it). */
      tx?: number;
    }
  | { op: "begin" }
  | { op: "commit" | "rollback"; tx: number }
  | { op: "close" }
);

/** The worker's answer to one request. */
export interface Reply {
  id: number;
  result?: unknown;
  /** A prepared statement's answer as PostgreSQL wrote it, read here (db/pglite-wire.mjs). */
  wire?: WireAnswer;
  error?: { name: string; message: string; fields: Record<string, string | number | boolean> };
}

type Query = (text: string, params?: unknown[], options?: QueryOptions) => Promise<Results>;

const WORKER = path.join(process.cwd(), "db", "pglite-worker.mjs");

/** PGlite's client, as drizzle's PGlite driver uses it, with the database on its own thread. */
export class PgliteThread {
  readonly #worker: Worker;
  readonly #pending = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();
  #next = 1;
  #closed: Error | undefined;
  /** Requests not yet sent: those made in one turn of the event loop cross in one message. */
  #outbox: Request[] = [];

  constructor(options: ThreadOptions) {
    this.#worker = new Worker(WORKER, { workerData: options });
    this.#worker.on("message", (replies: Reply[]) => {
      for (const reply of replies) {
        const waiting = this.#pending.get(reply.id);
        if (!waiting) continue;
        this.#pending.delete(reply.id);
        if (reply.error) waiting.reject(rebuilt(reply.error));
        else waiting.resolve(reply.wire ? new Wired(reply.wire) : reply.result);
      }
      // An idle thread does not keep the process alive; a request waiting for it does.
      if (this.#pending.size === 0) this.#worker.unref();
    });
    this.#worker.on("error", (error) =>
      this.#fail(new Error("PGlite is closed (its thread failed)", { cause: error })),
    );
    this.#worker.on("exit", (code) =>
      this.#fail(new Error(`PGlite is closed (its thread exited with ${code})`)),
    );
    this.#worker.unref();
  }

  query: Query = (text, params = [], options) => this.#query(text, params, options);

  /** Runs `fn` in a transaction: committed when it returns, rolled back when it throws. */
  async transaction<T>(fn: (tx: { query: Query }) => Promise<T>): Promise<T> {
    const id = (await this.#ask({ op: "begin" })) as number;
    const tx = { query: ((text, params = [], options) => this.#query(text, params, options, id)) as Query };
    let result: T;
    try {
      result = await fn(tx);
    } catch (error) {
      await this.#ask({ op: "rollback", tx: id });
      throw error;
    }
    await this.#ask({ op: "commit", tx: id });
    return result;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#ask({ op: "close" });
    this.#closed = new Error("PGlite is closed");
    await this.#worker.terminate();
  }

  /** A statement, outside any transaction or in transaction `tx`; the caller's parsers applied here. */
  async #query(text: string, params: unknown[], options: QueryOptions | undefined, tx?: number) {
    const answer = await this.#ask({
      op: "query",
      text,
      params,
      ...(tx === undefined ? {} : { tx }),
      ...queryOptions(options),
    });
    if (answer instanceof Wired)
      return readAnswer(answer.answer.wire, {
        ...answer.answer,
        rowMode: options?.rowMode,
        parsers: options?.parsers,
      });
    return withParsers(answer as Results, options);
  }

  #ask(request: DistributiveOmit<Request, "id">): Promise<unknown> {
    if (this.#closed) return Promise.reject(this.#closed);
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      if (this.#pending.size === 1) this.#worker.ref();
      if (this.#outbox.push({ ...request, id } as Request) === 1) setImmediate(this.#send);
    });
  }

  /** Sends the outbox as one message (waking a thread costs more than the message). */
  #send = () => {
    const batch = this.#outbox;
    this.#outbox = [];
    this.#worker.postMessage(batch);
  };

  /** The thread is gone: every waiting request, and every later one, fails with `error`. */
  #fail(error: Error): void {
    this.#closed ??= error;
    for (const waiting of this.#pending.values()) waiting.reject(error);
    this.#pending.clear();
  }
}

/** A wire answer, told apart from a result that is any value. */
class Wired {
  constructor(readonly answer: WireAnswer) {}
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** What of PGlite's query options crosses to the worker (its parsers stay here, as type ids). */
function queryOptions(options: QueryOptions | undefined) {
  return {
    ...(options?.rowMode ? { rowMode: options.rowMode } : {}),
    ...(options?.parsers ? { textTypes: Object.keys(options.parsers).map(Number) } : {}),
  };
}

/** `result` with the caller's parsers applied to the values the worker kept as text. */
function withParsers(result: Results, options: QueryOptions | undefined): Results {
  const parsers = options?.parsers;
  if (!parsers) return result;
  result.fields.forEach((field, i) => {
    const parser = parsers[field.dataTypeID];
    if (!parser) return;
    for (const row of result.rows as Array<Record<string | number, unknown>>) {
      const key = options?.rowMode === "array" ? i : field.name;
      const value = row[key];
      if (value !== null && value !== undefined) row[key] = parser(value as string);
    }
  });
  return result;
}

/** An error of the worker as an Error here, with PostgreSQL's fields (`code`, `detail`…). */
function rebuilt(error: NonNullable<Reply["error"]>): Error {
  const rebuiltError = Object.assign(new Error(error.message), error.fields);
  rebuiltError.name = error.name;
  return rebuiltError;
}
