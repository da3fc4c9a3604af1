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
import { failureFields } from "@/lib/errors";
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

/** What a console call that did not come through `log` becomes: one line, its error by kind only. */
function consoleEntry(level: Level, args: unknown[]): Record<string, unknown> {
  const text = args
    .filter((arg): arg is string => typeof arg === "string")
    .join(" ")
    .split("\n", 1)[0]
    ?.trim()
    .slice(0, 300);
  const error = args.find((arg): arg is Error => arg instanceof Error);
  const digest = (error as { digest?: unknown } | undefined)?.digest;
  return {
    time: new Date().toISOString(),
    level,
    msg: "console",
    ...(currentRequest() ? { request_id: currentRequest()?.id } : {}),
    ...(text ? { text } : {}),
    ...(error ? failureFields(error) : {}),
    ...(typeof digest === "string" && /^[\w-]{1,64}$/.test(digest) ? { digest } : {}),
  };
}

const CAPTURED = Symbol.for("ledgerlink.console-captured");

/**
 * Makes everything else that writes to the console write JSON lines too (instrumentation.ts, in
 * production): Next prints a page's error as prose over several lines (`⨯ Error: …` with its
 * stack and properties), and a driver's error printed whole quotes its query's parameters. Such a
 * call becomes one `"msg":"console"` line: its text's first line (at most 300 characters) and its
 * error by `failureFields`, never the error's message. Lines `log` wrote pass through unchanged.
 */
export function captureConsole(): void {
  const target = console as Console & { [CAPTURED]?: boolean };
  if (target[CAPTURED]) return;
  target[CAPTURED] = true;
  const methods = [
    ["log", "info"],
    ["info", "info"],
    ["debug", "info"],
    ["warn", "warn"],
    ["error", "error"],
  ] as const;
  for (const [method, level] of methods) {
    const write = console[method].bind(console);
    console[method] = (...args: unknown[]) => {
      const [first] = args;
      if (args.length === 1 && typeof first === "string" && first.startsWith('{"time":')) write(first);
      else write(JSON.stringify(consoleEntry(level, args)));
    };
  }
}

export const log = {
  info: (msg: string, fields?: LogFields) => write("info", msg, fields),
  warn: (msg: string, fields?: LogFields) => write("warn", msg, fields),
  error: (msg: string, fields?: LogFields) => write("error", msg, fields),
};
