/**
 * The server's log: every line is one JSON object, `{ time, level, msg, request_id?, …fields }`,
 * written to stdout (info) or stderr (warn, error), so a log drain can parse every line and tie
 * it to its request (`request_id`, lib/request-context.ts). `msg` is a short dotted event name
 * (`cron.secret_missing`), never a sentence with values in it; details go in fields.
 *
 * What a line must never carry (security.md): an amount, a merchant, a description, an email, a
 * token, a key, an account number, an IP address, or an error's message (a driver's quotes the
 * query's parameters: log `failureFields(error)` instead). Fields are flat scalars, so no row or
 * request body can be logged whole by accident. The one deliberate exception is the sign-in link
 * under EMAIL_TRANSPORT=log (lib/auth.ts), which says so in its own fields.
 *
 * This is the one module that writes to the console (Biome's noConsole holds the rest of the
 * server to it).
 */
import { currentRequest, type LogFields } from "@/lib/request-context";

export type { LogFields, LogValue } from "@/lib/request-context";

type Level = "info" | "warn" | "error";
const RANK: Record<Level, number> = { info: 0, warn: 1, error: 2 };

/**
 * LOG_LEVEL, read here straight from the environment (not lib/env.ts): the start-up check logs
 * the environment's own problems through this module. Unknown values mean `info`.
 */
function threshold(): number {
  const wanted = process.env.LOG_LEVEL?.trim().toLowerCase();
  return wanted === "warn" || wanted === "error" ? RANK[wanted] : RANK.info;
}

/** One line for `msg` with `fields` (undefined fields are left out). */
function write(level: Level, msg: string, fields: LogFields = {}): void {
  if (RANK[level] < threshold()) return;
  const line: Record<string, unknown> = { time: new Date().toISOString(), level, msg };
  const request = currentRequest();
  if (request) line.request_id = request.id;
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) line[key] = value;
  const text = JSON.stringify(line);
  if (level === "info") console.log(text);
  else if (level === "warn") console.warn(text);
  else console.error(text);
}

export const log = {
  info: (msg: string, fields?: LogFields) => write("info", msg, fields),
  warn: (msg: string, fields?: LogFields) => write("warn", msg, fields),
  error: (msg: string, fields?: LogFields) => write("error", msg, fields),
};
