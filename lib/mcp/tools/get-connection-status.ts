/** Tool 12: subscription state and the health of every linked bank. */
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { bankAccounts, bankConnections } from "@/db/schema";
import { inScope } from "@/lib/finance/scope";
import { defineTool } from "../define-tool";
import { mixedCurrencyWarnings } from "../envelope";
import { currencySchema } from "./shared";

const STATUS_LABEL = {
  healthy: "healthy",
  reauth_required: "reauth_required",
  error: "error",
  disconnected: "disconnected",
} as const;

export const getConnectionStatusTool = defineTool({
  name: "get_connection_status",
  title: "Connection status",
  description:
    "Setup state: subscription and billing link; each bank's status, last sync and error, data it lacks, accounts, and a Reconnect link when needed; the timezone; links to add a bank and to settings. Use when data looks stale or after REAUTH_REQUIRED.",
  input: z.strictObject({}),
  data: z.object({
    subscription: z.object({
      state: z.enum(["none", "active", "canceled", "past_due"]),
      manage_url: z.string(),
    }),
    connections: z.array(
      z.object({
        id: z.string(),
        institution: z.string(),
        status: z.enum(["healthy", "reauth_required", "error", "disconnected"]),
        last_synced_at: z.string().nullable(),
        last_error_code: z.string().nullable(),
        reconnect_url: z.string().optional().describe("Where the user signs in to the bank again."),
        warnings: z
          .array(
            z.object({
              code: z.literal("PRODUCT_NOT_SUPPORTED"),
              product: z.enum(["investments", "liabilities", "recurring"]),
              message: z.string(),
            }),
          )
          .describe(
            "Data this bank does not provide (as of the last successful sync): tools show none of it for this bank.",
          ),
        accounts: z.array(
          z.object({
            id: z.string(),
            name: z.string(),
            type: z.string(),
            mask: z.string().nullable(),
            currency: currencySchema,
          }),
        ),
      }),
    ),
    add_bank_url: z.string(),
    timezone: z
      .string()
      .describe("The user's IANA timezone: periods such as this_month begin and end at midnight in it."),
    settings_url: z.string().describe("Where the user changes the timezone."),
  }),
  async run(_args, ctx) {
    const { access } = ctx;
    const [accounts, warningRows] = await Promise.all([
      ctx.db
        .select({
          id: bankAccounts.id,
          name: bankAccounts.name,
          type: bankAccounts.type,
          mask: bankAccounts.mask,
          currency: bankAccounts.currency,
          connectionId: bankAccounts.connectionId,
        })
        .from(bankAccounts)
        .where(and(eq(bankAccounts.userId, ctx.userId), inScope(ctx.scope, bankAccounts.id)))
        .orderBy(bankAccounts.name, bankAccounts.id),
      ctx.db
        .select({ id: bankConnections.id, warnings: bankConnections.warnings })
        .from(bankConnections)
        .where(eq(bankConnections.userId, ctx.userId)),
    ]);
    const warningsOf = new Map(warningRows.map((r) => [r.id, r.warnings ?? []]));
    return {
      data: {
        subscription: { state: access.subscription, manage_url: access.links.billing },
        connections: access.connections.map((c) => ({
          id: c.id,
          institution: c.institutionName,
          status: STATUS_LABEL[c.status],
          last_synced_at: c.lastSyncedAt ? c.lastSyncedAt.toISOString() : null,
          last_error_code: c.lastErrorCode,
          ...(c.status === "reauth_required" || c.status === "error"
            ? { reconnect_url: access.links.reconnect(c.id) }
            : {}),
          warnings: warningsOf.get(c.id) ?? [],
          accounts: accounts
            .filter((a) => a.connectionId === c.id)
            .map((a) => ({ id: a.id, name: a.name, type: a.type, mask: a.mask, currency: a.currency })),
        })),
        add_bank_url: access.links.banks,
        timezone: ctx.timezone,
        settings_url: access.links.settings,
      },
      warnings: mixedCurrencyWarnings(accounts.map((a) => a.currency)),
    };
  },
});
