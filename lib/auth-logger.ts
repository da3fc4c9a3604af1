import { describeFailure } from "@/lib/errors";

/**
 * Auth.js's own logger prints errors whole: an adapter failure during an outage quotes the failed
 * query with its parameters, the session token among them. Ours logs what failed and where
 * (`describeFailure`: kinds, SQLSTATE, stack frames), never a message; debug output is dropped.
 */
export const authLogger = {
  error(error: Error) {
    const cause = error.cause instanceof Error ? `; cause: ${describeFailure(error.cause)}` : "";
    console.error(`[auth] ${describeFailure(error)}${cause}`);
  },
  warn(code: string) {
    console.warn(`[auth] warning: ${code}`);
  },
  debug() {},
};
