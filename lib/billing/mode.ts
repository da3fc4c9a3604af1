/**
 * Billing mode: `stripe` or `local` (a clearly labelled test checkout).
 * - BILLING set explicitly → that mode.
 * - otherwise `stripe` when STRIPE_SECRET_KEY is set,
 * - otherwise `local` outside production (`next dev`, tests),
 * - otherwise none: a production server without Stripe must not give subscriptions away, so
 *   start-up stops (instrumentation.ts) and names STRIPE_SECRET_KEY.
 * Cheap on purpose: instrumentation imports it at start-up.
 */
import type { Env } from "@/lib/env";

export type BillingMode = "stripe" | "local";

/** The billing mode by the rules above; null is production without billing (start-up stops). */
export function resolveBillingMode(
  env: Pick<Env, "BILLING" | "STRIPE_SECRET_KEY" | "NODE_ENV">,
): BillingMode | null {
  if (env.BILLING) return env.BILLING;
  if (env.STRIPE_SECRET_KEY) return "stripe";
  return env.NODE_ENV === "production" ? null : "local";
}

/**
 * What a production start-up is missing for billing, as one sentence per problem (empty = fine).
 * `local` in production is allowed only when asked for explicitly (browser tests of the build).
 */
export function billingStartupProblems(
  env: Pick<Env, "BILLING" | "STRIPE_SECRET_KEY" | "STRIPE_PRICE_ID" | "STRIPE_WEBHOOK_SECRET" | "NODE_ENV">,
): string[] {
  if (env.NODE_ENV !== "production") return [];
  const mode = resolveBillingMode(env);
  if (mode === "local") return [];
  const missing = [
    !env.STRIPE_SECRET_KEY && "STRIPE_SECRET_KEY",
    !env.STRIPE_PRICE_ID && "STRIPE_PRICE_ID",
    !env.STRIPE_WEBHOOK_SECRET && "STRIPE_WEBHOOK_SECRET",
  ].filter((v): v is string => Boolean(v));
  if (missing.length === 0) return [];
  return [
    `Billing needs ${missing.join(", ")} in production (or BILLING=local for a labelled test checkout that must never face real users).`,
  ];
}
