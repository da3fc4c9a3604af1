/**
 * Node-only start-up checks, loaded by instrumentation.ts `register()`. Kept cheap: parse the
 * environment, look at a few settings. A production server that would give subscriptions away
 * (no Stripe key and no explicit BILLING=local) or cannot sign anyone in safely stops here with a
 * sentence naming what is missing.
 */
import { getEnv } from "@/lib/env";
import { billingStartupProblems, resolveBillingMode } from "./mode";

/** The problems that must stop a production start-up (empty = fine). */
export function startupProblems(): string[] {
  const env = getEnv();
  const problems = billingStartupProblems(env);
  if (env.NODE_ENV === "production" && !env.AUTH_SECRET) {
    problems.push("AUTH_SECRET is not set: sign-in needs a long random secret in production.");
  }
  return problems;
}

/** Stops the server when `startupProblems()` finds any; warns about a production local checkout. */
export function runStartupChecks(): void {
  const problems = startupProblems();
  if (problems.length > 0) {
    console.error(`Ledgerlink cannot start: ${problems.join(" ")}`);
    // A thrown error in register() may only be logged; stopping is the point.
    process.exit(1);
  }
  const env = getEnv();
  if (env.NODE_ENV === "production" && resolveBillingMode(env) === "local") {
    console.warn(
      "[billing] BILLING=local: the labelled test checkout is on. Never use this with real users.",
    );
  }
}
