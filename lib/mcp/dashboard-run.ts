/**
 * /dashboard/tools runs a tool as the signed-in person through the very pipeline of /api/mcp
 * (`runTool`: argument validation, access gate, envelope, warnings, activity row), so the page
 * shows exactly what an assistant receives. The run counts against the same per-minute limit as
 * a credential, in a bucket of its own, and is recorded in activity as the client "dashboard".
 */
import type { Database } from "@/db";
import { getAccess } from "@/lib/access";
import { getEnv } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { loadAccountScope, type ScopeOf } from "@/lib/finance/scope";
import { consumeRateLimit } from "@/lib/rate-limit";
import { getTimezone } from "@/lib/timezone";
import { runTool } from "./register";
import { argsFromForm, formFieldsOf } from "./tool-form";
import { allTools } from "./tools";

export interface DashboardRun {
  tool: string;
  /** The arguments the form stood for, as an assistant would send them. */
  args: Record<string, unknown>;
  /** An argument error or a failure: `text` is the sentence an assistant reads. */
  isError: boolean;
  /** The answer's text block, byte for byte what an assistant receives. */
  text: string;
  /** Its size in UTF-8 bytes. */
  bytes: number;
}

export function findTool(name: string) {
  return allTools.find((tool) => tool.name === name);
}

/**
 * Runs `toolName` for `userId` with the arguments of a submitted form, reading the accounts `as`
 * may read: the person's own (every account they did not hide), or one of their keys' or apps'.
 */
export async function runToolFromForm(
  db: Database,
  userId: string,
  toolName: string,
  form: Record<string, unknown>,
  as: ScopeOf = { kind: "person" },
): Promise<DashboardRun> {
  const tool = findTool(toolName);
  if (!tool) {
    throw new AppError("invalid_input", `There is no tool named "${toolName}".`, { field: "tool" });
  }
  const limit = getEnv().RATE_LIMIT_PER_MINUTE;
  const decision = await consumeRateLimit(db, `dashboard:${userId}`, limit);
  if (!decision.allowed) {
    throw new AppError(
      "rate_limited",
      `You ran tools ${limit} times this minute, the limit of any key. Try again in ${decision.retryAfterSeconds} s.`,
    );
  }
  const args = argsFromForm(formFieldsOf(tool), form);
  const [access, { zone }, scope] = await Promise.all([
    getAccess(db, userId),
    getTimezone(db, userId),
    loadAccountScope(db, userId, as),
  ]);
  const result = await runTool(tool, args, {
    db,
    credential: { kind: "dashboard", userId },
    access,
    scope,
    timezone: zone,
  });
  const block = result.content[0];
  const text = block?.type === "text" ? block.text : "";
  return { tool: tool.name, args, isError: result.isError === true, text, bytes: Buffer.byteLength(text) };
}
