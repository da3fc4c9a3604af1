/**
 * Node-only start-up checks, loaded by instrumentation.ts `register()`. Kept cheap: parse the
 * environment, look at a few settings. A production server that would give subscriptions away
 * (no Stripe key and no explicit BILLING=local), cannot sign anyone in safely, cannot encrypt bank
 * tokens (ENCRYPTION_KEY missing or unreadable) or has Plaid half configured stops here with one
 * sentence per problem, all at once.
 */
import { parseKeyring } from "@/lib/crypto";
import { getEnv } from "@/lib/env";
import { log } from "@/lib/log";
import { billingStartupProblems, resolveBillingMode } from "./mode";

/** The problems that must stop a production start-up (empty = fine). */
export function startupProblems(): string[] {
  const env = getEnv();
  const problems = billingStartupProblems(env);
  if (env.NODE_ENV === "production" && !env.AUTH_SECRET) {
    problems.push("AUTH_SECRET is not set: sign-in needs a long random secret in production.");
  }
  if (env.NODE_ENV === "production" && !env.ENCRYPTION_KEY) {
    problems.push(
      "ENCRYPTION_KEY is not set: bank tokens are encrypted with it; set 64 hex characters (openssl rand -hex 32).",
    );
  } else if (env.ENCRYPTION_KEY) {
    try {
      parseKeyring(env.ENCRYPTION_KEY);
    } catch (error) {
      problems.push(error instanceof Error ? error.message : "ENCRYPTION_KEY cannot be read.");
    }
  }
  if (Boolean(env.PLAID_CLIENT_ID) !== Boolean(env.PLAID_SECRET)) {
    problems.push(
      `Plaid is half configured: set both PLAID_CLIENT_ID and PLAID_SECRET, or neither (${env.PLAID_CLIENT_ID ? "PLAID_SECRET" : "PLAID_CLIENT_ID"} is missing).`,
    );
  }
  return problems;
}

/** Stops the server when `startupProblems()` finds any; warns about a production local checkout. */
export function runStartupChecks(): void {
  const problems = startupProblems();
  if (problems.length > 0) {
    log.error("startup.refused", { detail: `Ledgerlink cannot start: ${problems.join(" ")}` });
    // A thrown error in register() may only be logged; stopping is the point.
    process.exit(1);
  }
  const env = getEnv();
  if (env.NODE_ENV === "production" && resolveBillingMode(env) === "local") {
    log.warn("startup.local_billing", {
      detail: "BILLING=local: the labelled test checkout is on. Never use this with real users.",
    });
  }
}
