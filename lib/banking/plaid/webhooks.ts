/**
 * What a verified Plaid webhook does (https://plaid.com/docs/api/webhooks/).
 *
 * | webhook                                            | effect                                   |
 * |----------------------------------------------------|------------------------------------------|
 * | TRANSACTIONS SYNC_UPDATES_AVAILABLE, RECURRING_TRANSACTIONS_UPDATE; HOLDINGS / INVESTMENTS_TRANSACTIONS / LIABILITIES DEFAULT_UPDATE | sync the item |
 * | ITEM ERROR (login error), PENDING_EXPIRATION, PENDING_DISCONNECT | `reauth_required`           |
 * | ITEM ERROR (any other code)                        | `error`, data kept                       |
 * | ITEM LOGIN_REPAIRED                                | `healthy`, then sync                     |
 * | ITEM USER_PERMISSION_REVOKED, USER_ACCOUNT_REVOKED | `disconnected`                           |
 *
 * Plaid has no event id, so the delivery id is SHA-256 of (the signed body hash, the JWT's iat):
 * the exact same signed request replayed has one effect, while a later webhook with an identical
 * body (Plaid sends the same SYNC_UPDATES_AVAILABLE body every time) is a new delivery. The id is
 * inserted into `webhook_events` in the same transaction as the status change; a sync runs after
 * that commit (it calls Plaid and must not hold a transaction open) and, if it fails, records
 * the failure on the connection for the scheduled sync to retry.
 */
import { createHash } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "@/db";
import { bankConnections, type ConnectionStatus, webhookEvents } from "@/db/schema";
import { REAUTH_CODES } from "./client";

export const plaidWebhookSchema = z.object({
  webhook_type: z.string(),
  webhook_code: z.string(),
  item_id: z.string().optional().nullable(),
  error: z
    .object({
      error_code: z.string(),
      error_type: z.string().optional(),
      error_message: z.string().optional().nullable(),
    })
    .optional()
    .nullable(),
  environment: z.string().optional(),
});
export type PlaidWebhook = z.infer<typeof plaidWebhookSchema>;

const SYNC_TRIGGERS = new Set([
  "TRANSACTIONS:SYNC_UPDATES_AVAILABLE",
  "TRANSACTIONS:RECURRING_TRANSACTIONS_UPDATE",
  "HOLDINGS:DEFAULT_UPDATE",
  "INVESTMENTS_TRANSACTIONS:DEFAULT_UPDATE",
  "LIABILITIES:DEFAULT_UPDATE",
]);

const REVOKED_CODES = new Set(["USER_PERMISSION_REVOKED", "USER_ACCOUNT_REVOKED"]);

export interface WebhookPlan {
  status?: { value: ConnectionStatus; errorCode: string | null; message: string | null };
  sync: boolean;
}

/** Pure: what a webhook should do to its item's connection. */
export function planWebhook(webhook: PlaidWebhook): WebhookPlan {
  const key = `${webhook.webhook_type}:${webhook.webhook_code}`;
  if (SYNC_TRIGGERS.has(key)) return { sync: true };
  if (webhook.webhook_type !== "ITEM") return { sync: false };
  switch (webhook.webhook_code) {
    case "ERROR": {
      const code = webhook.error?.error_code;
      if (!code) return { sync: false };
      if (REVOKED_CODES.has(code)) {
        return {
          sync: false,
          status: {
            value: "disconnected",
            errorCode: "disconnected",
            message: `Plaid ${code}: access was revoked.`,
          },
        };
      }
      if (REAUTH_CODES.has(code)) {
        return {
          sync: false,
          status: {
            value: "reauth_required",
            errorCode: "reauth_required",
            message: `Plaid ${code}: the bank needs you to log in again.`,
          },
        };
      }
      return {
        sync: false,
        status: {
          value: "error",
          errorCode: "provider_error",
          message: `Plaid ${code}: the bank reported an error; we will retry.`,
        },
      };
    }
    case "PENDING_EXPIRATION":
    case "PENDING_DISCONNECT":
      return {
        sync: false,
        status: {
          value: "reauth_required",
          errorCode: "reauth_required",
          message: `Plaid ${webhook.webhook_code}: access to this bank is about to expire; reconnect to keep it.`,
        },
      };
    case "LOGIN_REPAIRED":
      return { sync: true, status: { value: "healthy", errorCode: null, message: null } };
    case "USER_PERMISSION_REVOKED":
    case "USER_ACCOUNT_REVOKED":
      return {
        sync: false,
        status: {
          value: "disconnected",
          errorCode: "disconnected",
          message: `Plaid ${webhook.webhook_code}: access was revoked.`,
        },
      };
    default:
      return { sync: false };
  }
}

/** The delivery id of a verified webhook: SHA-256 of its signed body hash and issued-at. */
export function plaidDeliveryId(bodySha256: string, iat: number): string {
  return createHash("sha256").update(`${bodySha256}:${iat}`).digest("hex");
}

export type WebhookOutcome =
  | { kind: "duplicate" }
  | { kind: "ignored"; reason: "unknown_item" | "no_effect" }
  | { kind: "applied"; connectionId: string; status?: ConnectionStatus; sync: boolean };

/**
 * Records the delivery and applies the status change in one transaction. Returns what happened;
 * the caller runs the sync (after the commit) when `sync` is true.
 */
export async function applyPlaidWebhook(
  db: Database,
  webhook: PlaidWebhook,
  deliveryId: string,
): Promise<WebhookOutcome> {
  const plan = planWebhook(webhook);
  return db.transaction(async (tx) => {
    const inserted = await tx
      .insert(webhookEvents)
      .values({
        provider: "plaid",
        eventId: deliveryId,
        type: `${webhook.webhook_type}.${webhook.webhook_code}`,
      })
      .onConflictDoNothing()
      .returning({ eventId: webhookEvents.eventId });
    if (inserted.length === 0) return { kind: "duplicate" } as const;
    if (!webhook.item_id || (!plan.status && !plan.sync)) {
      return { kind: "ignored", reason: webhook.item_id ? "no_effect" : "unknown_item" } as const;
    }
    const [connection] = await tx
      .select({ id: bankConnections.id, status: bankConnections.status })
      .from(bankConnections)
      .where(and(eq(bankConnections.provider, "plaid"), eq(bankConnections.providerItemId, webhook.item_id)))
      .limit(1);
    if (!connection) return { kind: "ignored", reason: "unknown_item" } as const;
    // A disconnected item stays disconnected: only a new link brings it back.
    if (connection.status === "disconnected") return { kind: "ignored", reason: "no_effect" } as const;
    if (plan.status) {
      await tx
        .update(bankConnections)
        .set({
          status: plan.status.value,
          lastErrorCode: plan.status.errorCode,
          lastErrorMessage: plan.status.message,
        })
        .where(eq(bankConnections.id, connection.id));
    }
    // A sync on a connection that needs the user is pointless; LOGIN_REPAIRED made it healthy.
    const effective = plan.status?.value ?? connection.status;
    const sync = plan.sync && (effective === "healthy" || effective === "error");
    return { kind: "applied", connectionId: connection.id, status: plan.status?.value, sync } as const;
  });
}
