/**
 * THE gate: the one place that computes an account's access state. The dashboard and every MCP
 * tool ask it; nobody else re-derives "is this subscription active?".
 *
 * `computeAccess` is pure (tests feed it rows); `getAccess` loads those rows for a user.
 * Stripe statuses map as product.md says: active, trialing → active; incomplete,
 * incomplete_expired, no subscription → none; canceled → canceled; past_due, unpaid, paused →
 * past_due.
 */
import { and, count, eq } from "drizzle-orm";
import type { Database } from "@/db";
import type { ConnectionStatus } from "@/db/schema";
import { bankAccounts, bankConnections, subscriptions } from "@/db/schema";
import { getEnv } from "@/lib/env";

export type SubscriptionState = "none" | "active" | "canceled" | "past_due";

export interface ConnectionSummary {
  id: string;
  institutionName: string;
  provider: string;
  status: ConnectionStatus;
  lastSyncedAt: Date | null;
  lastErrorCode: string | null;
  accountCount: number;
}

export interface AccessState {
  subscription: SubscriptionState;
  /** True when tools may return data (subscription active). */
  toolsEnabled: boolean;
  connections: ConnectionSummary[];
  /** Connections the user must reconnect (`reauth_required`). */
  needsReauth: ConnectionSummary[];
  hasConnections: boolean;
  links: { billing: string; banks: string; settings: string; reconnect: (connectionId: string) => string };
}

/** Maps a raw provider subscription status (Stripe's vocabulary) to our four states. */
export function mapSubscriptionStatus(status: string | null | undefined): SubscriptionState {
  switch (status) {
    case "active":
    case "trialing":
      return "active";
    case "canceled":
      return "canceled";
    case "past_due":
    case "unpaid":
    case "paused":
      return "past_due";
    default:
      return "none";
  }
}

/** Absolute dashboard links, always built from APP_URL, never from request headers. */
export function dashboardLinks(appUrl: string = getEnv().APP_URL): AccessState["links"] {
  return {
    billing: `${appUrl}/dashboard/billing`,
    banks: `${appUrl}/dashboard/banks`,
    settings: `${appUrl}/dashboard/settings`,
    reconnect: (connectionId) => `${appUrl}/dashboard/banks?reconnect=${encodeURIComponent(connectionId)}`,
  };
}

/** Pure: the access state from a subscription status and the user's connections. */
export function computeAccess(input: {
  subscriptionStatus: string | null | undefined;
  connections: ConnectionSummary[];
  appUrl?: string;
}): AccessState {
  const subscription = mapSubscriptionStatus(input.subscriptionStatus);
  const live = input.connections.filter((c) => c.status !== "disconnected");
  return {
    subscription,
    toolsEnabled: subscription === "active",
    connections: input.connections,
    needsReauth: live.filter((c) => c.status === "reauth_required"),
    hasConnections: live.length > 0,
    links: dashboardLinks(input.appUrl),
  };
}

/** Loads the rows `computeAccess` needs for one user (two small queries, run together). */
export async function getAccess(db: Database, userId: string): Promise<AccessState> {
  const [sub, connections] = await Promise.all([
    db
      .select({ status: subscriptions.status })
      .from(subscriptions)
      .where(eq(subscriptions.userId, userId))
      .limit(1),
    db
      .select({
        id: bankConnections.id,
        institutionName: bankConnections.institutionName,
        provider: bankConnections.provider,
        status: bankConnections.status,
        lastSyncedAt: bankConnections.lastSyncedAt,
        lastErrorCode: bankConnections.lastErrorCode,
        accountCount: count(bankAccounts.id),
      })
      .from(bankConnections)
      .leftJoin(
        bankAccounts,
        and(eq(bankAccounts.connectionId, bankConnections.id), eq(bankAccounts.userId, userId)),
      )
      .where(eq(bankConnections.userId, userId))
      .groupBy(bankConnections.id)
      .orderBy(bankConnections.createdAt),
  ]);
  return computeAccess({ subscriptionStatus: sub[0]?.status, connections });
}
