/**
 * `syncSubscription(customerId)`: the ONLY writer of subscription rows (one writer per fact).
 * It reads the customer's current state from the billing provider (never from an event payload,
 * so late or reordered webhooks cannot roll state back) and upserts the user's one row. Called by
 * the checkout return, the Stripe webhook, the subscribe action (to record a new customer) and the
 * local test checkout (provider "local").
 *
 * Stripe docs: https://docs.stripe.com/billing/subscriptions/webhooks (why re-fetch, not trust events).
 */
import { eq } from "drizzle-orm";
import type Stripe from "stripe";
import { type Database, getDb } from "@/db";
import { subscriptions, users } from "@/db/schema";
import { getStripe } from "./stripe";

/** The provider's view of one customer's subscription, in our columns. */
export interface SubscriptionSnapshot {
  userId: string;
  subscriptionId: string | null;
  /** Raw provider status (Stripe's vocabulary); lib/access.ts maps it. Null = no subscription yet. */
  status: string | null;
  priceId: string | null;
  currentPeriodEnd: Date | null;
  cancelAtPeriodEnd: boolean;
}

/** Where a snapshot comes from: Stripe's API, or the local test checkout. */
export interface SubscriptionSource {
  provider: "stripe" | "local";
  /** Null when the customer does not belong to any of our users. */
  read(customerId: string, db: Database): Promise<SubscriptionSnapshot | null>;
}

// Statuses that end a subscription; a live one wins over any of these when a customer has several.
const ENDED = new Set(["canceled", "incomplete_expired"]);

/** Picks the subscription that describes the customer now: a live one, else the newest. */
export function pickCurrentSubscription(list: Stripe.Subscription[]): Stripe.Subscription | undefined {
  const newestFirst = [...list].sort((a, b) => b.created - a.created);
  return newestFirst.find((s) => !ENDED.has(s.status)) ?? newestFirst[0];
}

function periodEndOf(sub: Stripe.Subscription): Date | null {
  // Since API 2025-03-31 the period lives on the items; older versions kept it on the subscription.
  const fromItem = sub.items?.data?.[0]?.current_period_end;
  const legacy = (sub as unknown as { current_period_end?: unknown }).current_period_end;
  const seconds = typeof fromItem === "number" ? fromItem : typeof legacy === "number" ? legacy : undefined;
  return seconds === undefined ? null : new Date(seconds * 1000);
}

async function userIdForCustomer(db: Database, customerId: string, metadataUserId: string | undefined) {
  const [row] = await db
    .select({ userId: subscriptions.userId })
    .from(subscriptions)
    .where(eq(subscriptions.customerId, customerId))
    .limit(1);
  if (row) return row.userId;
  if (!metadataUserId) return null;
  const [user] = await db.select({ id: users.id }).from(users).where(eq(users.id, metadataUserId)).limit(1);
  return user?.id ?? null;
}

export const stripeSubscriptionSource: SubscriptionSource = {
  provider: "stripe",
  async read(customerId, db) {
    const stripe = getStripe();
    const customer = await stripe.customers.retrieve(customerId);
    const metadataUserId = customer.deleted ? undefined : customer.metadata?.userId;
    const userId = await userIdForCustomer(db, customerId, metadataUserId);
    if (!userId) return null;
    const list = await stripe.subscriptions.list({ customer: customerId, status: "all", limit: 10 });
    const current = pickCurrentSubscription(list.data);
    if (!current) {
      return {
        userId,
        subscriptionId: null,
        status: null,
        priceId: null,
        currentPeriodEnd: null,
        cancelAtPeriodEnd: false,
      };
    }
    return {
      userId,
      subscriptionId: current.id,
      status: current.status,
      priceId: current.items?.data?.[0]?.price?.id ?? null,
      currentPeriodEnd: periodEndOf(current),
      cancelAtPeriodEnd: current.cancel_at_period_end,
    };
  },
};

/**
 * Reads `customerId`'s state from `source` (default Stripe) and writes the owner's subscription
 * row. Returns the snapshot written, or null when the customer is not one of ours.
 * Pass `db` to run inside a caller's transaction (the webhook dedups in the same transaction).
 */
export async function syncSubscription(
  customerId: string,
  options: { db?: Database; source?: SubscriptionSource } = {},
): Promise<SubscriptionSnapshot | null> {
  const db = options.db ?? (await getDb());
  const source = options.source ?? stripeSubscriptionSource;
  const snapshot = await source.read(customerId, db);
  if (snapshot) await writeSubscription(db, source.provider, customerId, snapshot);
  return snapshot;
}

/** Writes `snapshot` as the owner's one subscription row (callers may pass a transaction). */
export async function writeSubscription(
  db: Database,
  provider: SubscriptionSource["provider"],
  customerId: string,
  snapshot: SubscriptionSnapshot,
): Promise<void> {
  const values = {
    provider,
    customerId,
    subscriptionId: snapshot.subscriptionId,
    status: snapshot.status,
    priceId: snapshot.priceId,
    currentPeriodEnd: snapshot.currentPeriodEnd,
    cancelAtPeriodEnd: snapshot.cancelAtPeriodEnd,
    updatedAt: new Date(),
  };
  await db
    .insert(subscriptions)
    .values({ userId: snapshot.userId, ...values })
    .onConflictDoUpdate({ target: subscriptions.userId, set: values });
}
