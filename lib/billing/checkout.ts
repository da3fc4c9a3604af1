/**
 * Stripe Checkout and the customer portal for one signed-in user.
 * Subscribe: create (or reuse) the Stripe customer FIRST and record it through syncSubscription,
 * then open a Checkout Session in subscription mode for STRIPE_PRICE_ID; the return route and the
 * webhook both call syncSubscription again. https://docs.stripe.com/billing/subscriptions/build-subscriptions
 */
import { eq } from "drizzle-orm";
import type { Database } from "@/db";
import { subscriptions } from "@/db/schema";
import { mapSubscriptionStatus } from "@/lib/access";
import { getEnv } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { resolveBillingMode } from "./mode";
import { getStripe } from "./stripe";
import { syncSubscription } from "./sync-subscription";

async function subscriptionRowOf(db: Database, userId: string) {
  const [row] = await db.select().from(subscriptions).where(eq(subscriptions.userId, userId)).limit(1);
  return row;
}

function assertStripeBilling() {
  if (resolveBillingMode(getEnv()) !== "stripe") {
    throw new AppError("conflict", "Stripe billing is not enabled in this deployment.");
  }
}

/** The user's Stripe customer id, creating the customer (and recording it) when there is none. */
export async function ensureStripeCustomer(
  db: Database,
  user: { id: string; email: string | null },
): Promise<string> {
  const row = await subscriptionRowOf(db, user.id);
  if (row?.provider === "stripe") return row.customerId;
  const customer = await getStripe().customers.create(
    { ...(user.email ? { email: user.email } : {}), metadata: { userId: user.id } },
    // Two quick clicks must not make two customers.
    { idempotencyKey: `ledgerlink-customer-${user.id}` },
  );
  await syncSubscription(customer.id, { db });
  return customer.id;
}

/** Creates a Checkout Session in subscription mode and returns its URL. */
export async function createCheckoutUrl(
  db: Database,
  user: { id: string; email: string | null },
): Promise<string> {
  assertStripeBilling();
  const env = getEnv();
  if (!env.STRIPE_PRICE_ID) throw new AppError("unavailable", "STRIPE_PRICE_ID is not set.");
  const existing = await subscriptionRowOf(db, user.id);
  if (mapSubscriptionStatus(existing?.status) === "active") {
    throw new AppError("conflict", "You already have an active subscription. Use Manage to change it.");
  }
  const customerId = await ensureStripeCustomer(db, user);
  const session = await getStripe().checkout.sessions.create({
    mode: "subscription",
    customer: customerId,
    client_reference_id: user.id,
    line_items: [{ price: env.STRIPE_PRICE_ID, quantity: 1 }],
    success_url: `${env.APP_URL}/api/billing/checkout-return?session_id={CHECKOUT_SESSION_ID}`,
    cancel_url: `${env.APP_URL}/dashboard/billing?checkout=canceled`,
    metadata: { userId: user.id },
  });
  if (!session.url) throw new AppError("provider_error", "Stripe did not return a checkout URL.");
  return session.url;
}

/** Opens the Stripe customer portal for the user's customer and returns its URL. */
export async function createPortalUrl(db: Database, userId: string): Promise<string> {
  assertStripeBilling();
  const row = await subscriptionRowOf(db, userId);
  if (row?.provider !== "stripe")
    throw new AppError("not_found", "There is no Stripe subscription to manage yet.");
  const portal = await getStripe().billingPortal.sessions.create({
    customer: row.customerId,
    return_url: `${getEnv().APP_URL}/dashboard/billing`,
  });
  return portal.url;
}

/**
 * The checkout return: the session must belong to this user's customer (a foreign session id
 * finds nothing); then syncSubscription records the outcome without waiting for the webhook.
 */
export async function completeCheckoutReturn(db: Database, userId: string, sessionId: string): Promise<void> {
  assertStripeBilling();
  const row = await subscriptionRowOf(db, userId);
  const session = await getStripe().checkout.sessions.retrieve(sessionId);
  const customerId = typeof session.customer === "string" ? session.customer : session.customer?.id;
  if (!row || !customerId || row.customerId !== customerId) {
    throw new AppError("not_found", "No such checkout for this account.");
  }
  await syncSubscription(customerId, { db });
}
