/** Tool 9: credit cards and loans with their terms, total debt and weighted APR. */
import { z } from "zod";
import { toAmount } from "@/lib/finance/currency";
import { type Debt, getDebts, LIABILITY_KINDS } from "@/lib/finance/liabilities";
import { todayIn } from "@/lib/finance/periods";
import { defineTool } from "../define-tool";
import { mixedCurrencyWarnings } from "../envelope";
import { amountOrNull, currencySchema, perCurrency } from "./shared";

export const getLiabilitiesTool = defineTool({
  name: "get_liabilities",
  title: "Debts and credit cards",
  description:
    "Credit cards (balance, limit, utilization, APR, minimum payment, due date, overdue) and loans, with total debt, minimum payments, card utilization and balance-weighted APR per currency. Balances are positive amounts owed.",
  input: z.strictObject({
    types: z.array(z.enum(LIABILITY_KINDS)).min(1).optional().describe("Only these kinds."),
  }),
  data: z.object({
    credit_cards: z.array(
      z.object({
        account_id: z.string(),
        name: z.string(),
        institution: z.string(),
        mask: z.string().nullable(),
        currency: currencySchema,
        balance: z.number().describe("Owed, positive."),
        limit: z.number().nullable(),
        utilization: z.number().nullable().describe("balance / limit, 0–1+."),
        apr: z.number().nullable().describe("Annual percentage rate, e.g. 24.99."),
        minimum_payment: z.number().nullable(),
        next_due_date: z.string().nullable(),
        last_statement_balance: z.number().nullable(),
        last_payment_amount: z.number().nullable(),
        last_payment_date: z.string().nullable(),
        is_overdue: z.boolean(),
      }),
    ),
    loans: z.array(
      z.object({
        account_id: z.string(),
        name: z.string(),
        institution: z.string(),
        kind: z.enum(LIABILITY_KINDS),
        currency: currencySchema,
        balance: z.number().describe("Owed, positive."),
        apr: z.number().nullable(),
        minimum_payment: z.number().nullable(),
        next_due_date: z.string().nullable(),
        last_payment_amount: z.number().nullable(),
        last_payment_date: z.string().nullable(),
        original_principal: z.number().nullable(),
        maturity_date: z.string().nullable(),
        is_overdue: z.boolean(),
      }),
    ),
    totals: perCurrency({
      total_debt: z.number(),
      credit_card_debt: z.number(),
      loan_debt: z.number(),
      total_minimum_payment: z.number(),
      credit_utilization: z.number().nullable().describe("All card balances / all card limits."),
      weighted_apr: z.number().nullable().describe("Balance-weighted average APR over debts reporting one."),
      overdue_count: z.number().int(),
    }),
  }),
  async run(args, ctx) {
    const { debts, totals } = await getDebts(
      ctx.db,
      ctx.userId,
      args.types,
      todayIn(ctx.timezone, ctx.now),
      ctx.scope,
    );
    const common = (d: Debt) => ({
      account_id: d.accountId,
      name: d.name,
      institution: d.institution,
      currency: d.currency,
      balance: toAmount(d.balanceCents, d.currency),
      apr: d.apr,
      minimum_payment: amountOrNull(d.minimumPaymentCents, d.currency),
      next_due_date: d.nextPaymentDueDate,
      last_payment_amount: amountOrNull(d.lastPaymentCents, d.currency),
      last_payment_date: d.lastPaymentDate,
      is_overdue: d.overdue,
    });
    return {
      data: {
        credit_cards: debts
          .filter((d) => d.kind === "credit")
          .map((c) => ({
            ...common(c),
            mask: c.mask,
            limit: amountOrNull(c.limitCents, c.currency),
            utilization: c.utilization,
            last_statement_balance: amountOrNull(c.lastStatementBalanceCents, c.currency),
          })),
        loans: debts
          .filter((d) => d.kind !== "credit")
          .map((l) => ({
            ...common(l),
            kind: l.kind,
            original_principal: amountOrNull(l.originationPrincipalCents, l.currency),
            maturity_date: l.maturityDate,
          })),
        totals: totals.map((t) => ({
          currency: t.currency,
          total_debt: toAmount(t.totalDebtCents, t.currency),
          credit_card_debt: toAmount(t.cardDebtCents, t.currency),
          loan_debt: toAmount(t.loanDebtCents, t.currency),
          total_minimum_payment: toAmount(t.minimumPaymentCents, t.currency),
          credit_utilization: t.creditUtilization,
          weighted_apr: t.weightedApr,
          overdue_count: t.overdueCount,
        })),
      },
      warnings: mixedCurrencyWarnings(totals.map((t) => t.currency)),
    };
  },
});
