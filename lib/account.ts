/**
 * Deleting an account, all of it or nothing:
 * 1. Outside the database, first: each bank item is released at its provider (Plaid
 *    /item/remove; passing failures are retried, an item already gone is fine) and a Stripe
 *    subscription is canceled (one already gone is fine). If any of these fails, nothing in the
 *    database has changed and the person can try again; a retry finds the done parts done.
 * 2. Then one transaction deletes every row of the user: the user row (every table that
 *    references it cascades: sessions, keys, subscription, banks and their data, OAuth grants
 *    with their codes and tokens, activity), plus what is keyed otherwise: rate-limit windows
 *    of the user's keys and grants, and pending sign-in links for the user's email.
 */
import { eq, inArray } from "drizzle-orm";
import { type Database, syncDatabaseFor } from "@/db";
import {
  apiKeys,
  bankConnections,
  oauthGrants,
  rateLimits,
  subscriptions,
  users,
  verificationTokens,
} from "@/db/schema";
import { releaseAtProvider } from "@/lib/banking/connections";
import { getStripe } from "@/lib/billing/stripe";
import { AppError } from "@/lib/errors";

export async function deleteAccount(db: Database, userId: string, now = new Date()): Promise<void> {
  const [user] = await db.select({ email: users.email }).from(users).where(eq(users.id, userId)).limit(1);
  if (!user) throw new AppError("not_found", "This account no longer exists.");

  const connections = await db.select().from(bankConnections).where(eq(bankConnections.userId, userId));
  for (const connection of connections) {
    if (connection.status !== "disconnected") await releaseAtProvider(db, connection, now);
  }

  const [subscription] = await db
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.userId, userId))
    .limit(1);
  if (
    subscription?.provider === "stripe" &&
    subscription.subscriptionId &&
    subscription.status !== "canceled"
  ) {
    try {
      await getStripe().subscriptions.cancel(subscription.subscriptionId);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code !== "resource_missing") {
        throw new AppError(
          "unavailable",
          "Stripe did not confirm the cancellation of your subscription, so nothing was deleted. Please try again in a moment.",
        );
      }
    }
  }

  // On the sync pool: deleting a long history (its rows, rollups and triggers) may take longer
  // than a request's statement bound, which would roll the deletion back every time.
  await syncDatabaseFor(db).transaction(async (tx) => {
    const [keys, grants] = await Promise.all([
      tx.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.userId, userId)),
      tx.select({ id: oauthGrants.id }).from(oauthGrants).where(eq(oauthGrants.userId, userId)),
    ]);
    const buckets = [...keys.map((k) => `api_key:${k.id}`), ...grants.map((g) => `oauth:${g.id}`)];
    if (buckets.length > 0) await tx.delete(rateLimits).where(inArray(rateLimits.key, buckets));
    if (user.email) await tx.delete(verificationTokens).where(eq(verificationTokens.identifier, user.email));
    await tx.delete(users).where(eq(users.id, userId));
  });
}
