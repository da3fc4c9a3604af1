/**
 * The local test checkout: a clearly labelled stand-in for Stripe Checkout, available only when
 * the billing mode is `local` (lib/billing/mode.ts). It can succeed, go past due or cancel, and it
 * drives the same code as Stripe: every outcome is written by `syncSubscription` with provider
 * "local", and lib/access.ts maps the raw status exactly as it maps Stripe's.
 */
import type { Database } from "@/db";
import { getEnv } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { resolveBillingMode } from "./mode";
import { type SubscriptionSnapshot, syncSubscription } from "./sync-subscription";

export const LOCAL_PRICE_ID = "local_price_monthly";

export const LOCAL_OUTCOMES = ["succeed", "past_due", "cancel"] as const;
export type LocalOutcome = (typeof LOCAL_OUTCOMES)[number];

/** Stripe's status for each outcome, so the state code sees Stripe's vocabulary. */
const STATUS_OF: Record<LocalOutcome, string> = {
  succeed: "active",
  past_due: "past_due",
  cancel: "canceled",
};

/** The local customer id of a user (one per user, like a Stripe customer). */
export function localCustomerId(userId: string): string {
  return `local_cus_${userId}`;
}

/** Throws unless the local checkout is allowed in this deployment. */
export function assertLocalBilling(): void {
  if (resolveBillingMode(getEnv()) !== "local") {
    throw new AppError("forbidden", "The local test checkout is off: this deployment bills through Stripe.");
  }
}

/** Completes the local checkout for `userId` with `outcome`, through syncSubscription. */
export async function completeLocalCheckout(
  db: Database,
  userId: string,
  outcome: LocalOutcome,
  now: Date = new Date(),
): Promise<SubscriptionSnapshot> {
  assertLocalBilling();
  const status = STATUS_OF[outcome];
  const snapshot: SubscriptionSnapshot = {
    userId,
    subscriptionId: `local_sub_${userId}`,
    status,
    priceId: LOCAL_PRICE_ID,
    currentPeriodEnd: status === "canceled" ? null : new Date(now.getTime() + 30 * 24 * 3600 * 1000),
    cancelAtPeriodEnd: false,
  };
  const customerId = localCustomerId(userId);
  const written = await syncSubscription(customerId, {
    db,
    source: {
      provider: "local",
      read: async (id) => (id === customerId ? snapshot : null),
    },
  });
  if (!written) throw new AppError("internal", "The local checkout could not be recorded.");
  return written;
}
