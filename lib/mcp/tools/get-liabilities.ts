/** Tool 9: credit cards and loans with their terms, total debt and weighted APR. */
import { z } from "zod";
import { groupByCurrency, toAmount } from "@/lib/finance/currency";
import {
  type DebtRow,
  LIABILITY_KINDS,
  listDebts,
  paymentStatus,
  weightedApr,
} from "@/lib/finance/liabilities";
import { ratio } from "@/lib/finance/money";
import { todayIn } from "@/lib/finance/periods";
import { defineTool } from "../define-tool";
import { mixedCurrencyWarnings } from "../envelope";
import { currencySchema, perCurrency } from "./shared";

const nullableAmount = (minor: number | null, currency: string) =>
  minor === null ? null : toAmount(minor, currency);

export const getLiabilitiesTool = defineTool({
  name: "get_liabilities",
  title: "Debts and credit cards",
  description:
    "Lists the user's debts: credit cards (balance owed, limit, utilization, APR, minimum payment, due date, overdue) and loans (student, mortgage, other), with total debt, total minimum payments, overall card utilization and the balance-weighted average APR, per currency. Balances are positive amounts owed. Use it for debt questions, payoff plans, 'when is my card due'. Default: all kinds.",
  input: z.strictObject({
    types: z
      .array(z.enum(LIABILITY_KINDS))
      .min(1)
      .optional()
      .describe(`Only these kinds: ${LIABILITY_KINDS.join(", ")}. Default: all.`),
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
    const debts = await listDebts(ctx.db, ctx.userId, args.types);
    const today = todayIn(ctx.timezone, ctx.now);
    // Overdue: the due date has passed and the minimum was not received (lib/finance/liabilities.ts).
    const overdue = (d: DebtRow) => paymentStatus(d, today).overdue;
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    const totals = groupByCurrency(debts, (d) => d.currency).map(([currency, ofCurrency]) => {
      const cards = ofCurrency.filter((d) => d.kind === "credit");
      const cardDebt = sum(cards.map((c) => c.balanceCents));
      const loanDebt = sum(ofCurrency.filter((d) => d.kind !== "credit").map((l) => l.balanceCents));
      const withLimit = cards.filter((c) => c.limitCents !== null);
      const cardLimits = sum(withLimit.map((c) => c.limitCents ?? 0));
      return {
        currency,
        total_debt: toAmount(cardDebt + loanDebt, currency),
        credit_card_debt: toAmount(cardDebt, currency),
        loan_debt: toAmount(loanDebt, currency),
        total_minimum_payment: toAmount(sum(ofCurrency.map((d) => d.minimumPaymentCents ?? 0)), currency),
        credit_utilization:
          cardLimits > 0 ? ratio(sum(withLimit.map((c) => c.balanceCents)), cardLimits) : null,
        weighted_apr: weightedApr(ofCurrency),
        overdue_count: ofCurrency.filter(overdue).length,
      };
    });
    return {
      data: {
        credit_cards: debts
          .filter((d) => d.kind === "credit")
          .map((c) => ({
            account_id: c.accountId,
            name: c.name,
            institution: c.institution,
            mask: c.mask,
            currency: c.currency,
            balance: toAmount(c.balanceCents, c.currency),
            limit: nullableAmount(c.limitCents, c.currency),
            utilization: c.limitCents ? ratio(c.balanceCents, c.limitCents) : null,
            apr: c.apr,
            minimum_payment: nullableAmount(c.minimumPaymentCents, c.currency),
            next_due_date: c.nextPaymentDueDate,
            last_statement_balance: nullableAmount(c.lastStatementBalanceCents, c.currency),
            last_payment_amount: nullableAmount(c.lastPaymentCents, c.currency),
            last_payment_date: c.lastPaymentDate,
            is_overdue: overdue(c),
          })),
        loans: debts
          .filter((d) => d.kind !== "credit")
          .map((l) => ({
            account_id: l.accountId,
            name: l.name,
            institution: l.institution,
            kind: l.kind,
            currency: l.currency,
            balance: toAmount(l.balanceCents, l.currency),
            apr: l.apr,
            minimum_payment: nullableAmount(l.minimumPaymentCents, l.currency),
            next_due_date: l.nextPaymentDueDate,
            last_payment_amount: nullableAmount(l.lastPaymentCents, l.currency),
            last_payment_date: l.lastPaymentDate,
            original_principal: nullableAmount(l.originationPrincipalCents, l.currency),
            maturity_date: l.maturityDate,
            is_overdue: overdue(l),
          })),
        totals,
      },
      warnings: mixedCurrencyWarnings(totals.map((t) => t.currency)),
    };
  },
});
