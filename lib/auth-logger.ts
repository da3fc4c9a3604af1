import { failureFields, isDatabaseUnavailable } from "@/lib/errors";
import { log } from "@/lib/log";

/** When Auth.js last met an unreachable database (it logs an adapter failure and answers "no session"). */
let databaseFailedAt = Number.NEGATIVE_INFINITY;

/**
 * True when Auth.js logged an unreachable database within the last `ms`: the session look-up it
 * just answered "no session" did not fail for want of a session, and asking the database again
 * would only wait out the same bound a second time.
 */
export function authDatabaseFailedWithin(ms: number): boolean {
  return Date.now() - databaseFailedAt < ms;
}

/**
 * True when `error` or what it wraps says the database is unreachable. Auth.js wraps the error it
 * caught as `cause: { err }` (a SessionTokenError around an AdapterError around the driver's), not
 * as an Error cause.
 */
function saysDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (depth > 6 || error === null || typeof error !== "object") return false;
  if (isDatabaseUnavailable(error)) return true;
  const cause = (error as { cause?: unknown }).cause;
  return saysDatabaseUnavailable(
    cause instanceof Error ? cause : (cause as { err?: unknown } | undefined)?.err,
    depth + 1,
  );
}

/**
 * Auth.js's own logger prints errors whole: an adapter failure during an outage quotes the failed
 * query with its parameters, the session token among them. Ours logs what failed and where
 * (`failureFields`: kinds, SQLSTATE, the cause's kind, stack frames), never a message; debug
 * output is dropped.
 */
export const authLogger = {
  error(error: Error) {
    if (saysDatabaseUnavailable(error)) databaseFailedAt = Date.now();
    log.error("auth.error", failureFields(error));
  },
  warn(code: string) {
    log.warn("auth.warning", { code });
  },
  debug() {},
};
