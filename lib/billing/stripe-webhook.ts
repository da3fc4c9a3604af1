/**
 * Stripe webhook processing. The signature (HMAC over `timestamp.rawBody`) and the timestamp
 * (tolerance 300 s) are verified on the raw body: https://docs.stripe.com/webhooks#verify-events.
 * Only events that change a subscription are acted on; each is deduplicated by its id in
 * webhook_events IN THE SAME TRANSACTION as its effect, so a redelivery (or two deliveries at
 * once: the second insert waits on the first's row lock) has exactly one effect, and a failed
 * effect rolls the id back so Stripe's retry is processed.
 */
import { and, eq } from "drizzle-orm";
import type Stripe from "stripe";
import { z } from "zod";
import type { Database } from "@/db";
import { webhookEvents } from "@/db/schema";
import { getEnv } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { getStripe } from "./stripe";
import { stripeSubscriptionSource, writeSubscription } from "./sync-subscription";

export const WEBHOOK_TOLERANCE_SECONDS = 300;

/** Event types that can change what a customer's subscription is. */
export const RELEVANT_EVENTS = new Set<string>([
  "checkout.session.completed",
  "checkout.session.async_payment_succeeded",
  "checkout.session.async_payment_failed",
  "customer.subscription.created",
  "customer.subscription.updated",
  "customer.subscription.deleted",
  "customer.subscription.paused",
  "customer.subscription.resumed",
  "customer.subscription.pending_update_applied",
  "customer.subscription.pending_update_expired",
  "customer.subscription.trial_will_end",
  "invoice.paid",
  "invoice.payment_failed",
  "invoice.payment_action_required",
]);

export type WebhookOutcome = "processed" | "duplicate" | "ignored";

/** The `customer` every subscription and invoice object carries: an id, or expanded. */
const customerRefSchema = z.object({ customer: z.union([z.string(), z.object({ id: z.string() })]) });

function customerIdOf(event: Stripe.Event): string | null {
  const parsed = customerRefSchema.safeParse(event.data.object);
  if (!parsed.success) return null;
  const { customer } = parsed.data;
  return typeof customer === "string" ? customer : customer.id;
}

/** Verifies the signature and timestamp; throws `invalid_input` (→ 400) on any mismatch. */
export function verifyStripeEvent(rawBody: string, signature: string | null): Stripe.Event {
  const secret = getEnv().STRIPE_WEBHOOK_SECRET;
  if (!secret)
    throw new AppError(
      "not_found",
      "Stripe webhooks are not configured here (STRIPE_WEBHOOK_SECRET is not set).",
    );
  if (!signature) throw new AppError("invalid_input", "Missing Stripe-Signature header.");
  try {
    return getStripe().webhooks.constructEvent(rawBody, signature, secret, WEBHOOK_TOLERANCE_SECONDS);
  } catch {
    throw new AppError("invalid_input", "Invalid Stripe signature.");
  }
}

/** Acts on one verified event at most once. */
export async function processStripeEvent(db: Database, event: Stripe.Event): Promise<WebhookOutcome> {
  if (!RELEVANT_EVENTS.has(event.type)) return "ignored";
  const customerId = customerIdOf(event);
  if (!customerId) return "ignored";
  const [seen] = await db
    .select({ eventId: webhookEvents.eventId })
    .from(webhookEvents)
    .where(and(eq(webhookEvents.provider, "stripe"), eq(webhookEvents.eventId, event.id)))
    .limit(1);
  if (seen) return "duplicate";
  // Stripe is read before any transaction opens, so a slow Stripe never holds a database
  // connection. A failed read throws: the event is not recorded and Stripe delivers it again.
  const snapshot = await stripeSubscriptionSource.read(customerId, db);
  return db.transaction(async (tx) => {
    const inserted = await tx
      .insert(webhookEvents)
      .values({ provider: "stripe", eventId: event.id, type: event.type })
      .onConflictDoNothing()
      .returning({ eventId: webhookEvents.eventId });
    // A concurrent delivery of the same event got here first: one effect, its own.
    if (inserted.length === 0) return "duplicate";
    if (snapshot) await writeSubscription(tx, "stripe", customerId, snapshot);
    return "processed";
  });
}
