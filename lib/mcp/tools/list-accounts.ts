/** Tool 2: the user's bank accounts with balances. */
import { z } from "zod";
import { ACCOUNT_TYPES, isLiabilityType, listAccounts, sumAccounts } from "@/lib/finance/accounts";
import { toAmount } from "@/lib/finance/currency";
import { defineTool } from "../define-tool";
import { mixedCurrencyWarnings } from "../envelope";
import { amountOrNull, currencySchema, perCurrency } from "./shared";

const accountSchema = z.object({
  id: z.string(),
  name: z.string(),
  official_name: z.string().nullable(),
  mask: z.string().nullable().describe("Last digits of the account number."),
  type: z.enum(ACCOUNT_TYPES),
  subtype: z.string().nullable(),
  institution: z.string(),
  connection_id: z.string(),
  currency: currencySchema,
  current_balance: z
    .number()
    .nullable()
    .describe("Money held; for credit and loan accounts the positive amount owed."),
  available_balance: z.number().nullable(),
  limit: z.number().nullable().describe("Credit limit (cards)."),
  is_liability: z.boolean(),
  is_closed: z.boolean(),
  balance_as_of: z.string().nullable(),
});

export const listAccountsTool = defineTool({
  name: "list_accounts",
  title: "List accounts",
  description:
    "Accounts (checking, savings, cards, loans, investment, retirement) with balances, credit limit, mask, type, institution, is_liability, and assets, liabilities and net per currency. Debts are positive amounts owed. Gives account ids.",
  input: z.strictObject({
    types: z.array(z.enum(ACCOUNT_TYPES)).min(1).optional().describe("Only these account types."),
    connection_id: z.string().min(1).max(100).optional().describe("Id from get_connection_status."),
    include_closed: z.boolean().default(false).describe("Include closed accounts."),
  }),
  data: z.object({
    accounts: z.array(accountSchema),
    totals: perCurrency({
      assets: z.number().describe("Sum of balances of the listed non-liability accounts."),
      liabilities: z.number().describe("Sum owed on the listed credit and loan accounts (positive)."),
      net: z.number().describe("assets − liabilities."),
    }),
  }),
  async run(args, ctx) {
    const rows = await listAccounts(ctx.db, ctx.userId, {
      types: args.types,
      connectionId: args.connection_id,
      includeClosed: args.include_closed,
      scope: ctx.scope,
    });
    const totals = sumAccounts(rows).map((t) => ({
      currency: t.currency,
      assets: toAmount(t.assetsCents, t.currency),
      liabilities: toAmount(t.liabilitiesCents, t.currency),
      net: toAmount(t.netCents, t.currency),
    }));
    return {
      data: {
        accounts: rows.map((r) => ({
          id: r.id,
          name: r.name,
          official_name: r.officialName,
          mask: r.mask,
          type: r.type,
          subtype: r.subtype,
          institution: r.institution,
          connection_id: r.connectionId,
          currency: r.currency,
          current_balance: amountOrNull(r.currentCents, r.currency),
          available_balance: amountOrNull(r.availableCents, r.currency),
          limit: amountOrNull(r.limitCents, r.currency),
          is_liability: isLiabilityType(r.type),
          is_closed: r.isClosed,
          balance_as_of: r.balanceAsOf ? r.balanceAsOf.toISOString() : null,
        })),
        totals,
      },
      warnings: mixedCurrencyWarnings(totals.map((t) => t.currency)),
    };
  },
});
