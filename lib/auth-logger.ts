import { failureFields } from "@/lib/errors";
import { log } from "@/lib/log";

/**
 * Auth.js's own logger prints errors whole: an adapter failure during an outage quotes the failed
 * query with its parameters, the session token among them. Ours logs what failed and where
 * (`failureFields`: kinds, SQLSTATE, the cause's kind, stack frames), never a message; debug
 * output is dropped.
 */
export const authLogger = {
  error(error: Error) {
    log.error("auth.error", failureFields(error));
  },
  warn(code: string) {
    log.warn("auth.warning", { code });
  },
  debug() {},
};
