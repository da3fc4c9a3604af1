/** Tool 9: credit cards and loans with their terms, total debt and weighted APR. */
import { z } from "zod";
import { LIABILITY_KINDS, listDebts, paymentStatus, weightedApr } from "@/lib/finance/liabilities";
import { ratio, toAmount } from "@/lib/finance/money";
import { todayIn } from "@/lib/finance/periods";
import { defineTool } from "../define-tool";

const nullableAmount = (cents: number | null) => (cents === null ? null : toAmount(cents));

export const getLiabilitiesTool = defineTool({
  name: "get_liabilities",
  title: "Debts and credit cards",
  description:
    "Lists the user's debts: credit cards (balance owed, credit limit, utilization, APR, minimum payment, due date, last statement balance, overdue flag) and loans (student, mortgage, other: balance, APR, minimum payment, due date, original principal, maturity), with total debt, total minimum payments, overall card utilization and the balance-weighted average APR. Balances are positive amounts owed. Use it for debt questions, payoff plans, 'when is my card due'. Default: all kinds.",
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
    totals: z.object({
      total_debt: z.number(),
      credit_card_debt: z.number(),
      loan_debt: z.number(),
      total_minimum_payment: z.number(),
      credit_utilization: z.number().nullable().describe("All card balances / all card limits."),
      weighted_apr: z.number().nullable().describe("Balance-weighted average APR over debts reporting one."),
      overdue_count: z.number().int(),
      currency: z.string(),
    }),
  }),
  async run(args, ctx) {
    const debts = await listDebts(ctx.db, ctx.userId, args.types);
    const today = todayIn(ctx.timezone, ctx.now);
    const cards = debts.filter((d) => d.kind === "credit");
    const loans = debts.filter((d) => d.kind !== "credit");
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    const cardDebt = sum(cards.map((c) => c.balanceCents));
    const loanDebt = sum(loans.map((l) => l.balanceCents));
    const cardLimits = sum(cards.filter((c) => c.limitCents !== null).map((c) => c.limitCents ?? 0));
    const cardDebtWithLimit = sum(cards.filter((c) => c.limitCents !== null).map((c) => c.balanceCents));
    // Overdue: the due date has passed and the minimum was not received (lib/finance/liabilities.ts).
    const overdue = (d: (typeof debts)[number]) => paymentStatus(d, today).overdue;
    return {
      data: {
        credit_cards: cards.map((c) => ({
          account_id: c.accountId,
          name: c.name,
          institution: c.institution,
          mask: c.mask,
          balance: toAmount(c.balanceCents),
          limit: nullableAmount(c.limitCents),
          utilization: c.limitCents ? ratio(c.balanceCents, c.limitCents) : null,
          apr: c.apr,
          minimum_payment: nullableAmount(c.minimumPaymentCents),
          next_due_date: c.nextPaymentDueDate,
          last_statement_balance: nullableAmount(c.lastStatementBalanceCents),
          last_payment_amount: nullableAmount(c.lastPaymentCents),
          last_payment_date: c.lastPaymentDate,
          is_overdue: overdue(c),
        })),
        loans: loans.map((l) => ({
          account_id: l.accountId,
          name: l.name,
          institution: l.institution,
          kind: l.kind,
          balance: toAmount(l.balanceCents),
          apr: l.apr,
          minimum_payment: nullableAmount(l.minimumPaymentCents),
          next_due_date: l.nextPaymentDueDate,
          last_payment_amount: nullableAmount(l.lastPaymentCents),
          last_payment_date: l.lastPaymentDate,
          original_principal: nullableAmount(l.originationPrincipalCents),
          maturity_date: l.maturityDate,
          is_overdue: overdue(l),
        })),
        totals: {
          total_debt: toAmount(cardDebt + loanDebt),
          credit_card_debt: toAmount(cardDebt),
          loan_debt: toAmount(loanDebt),
          total_minimum_payment: toAmount(sum(debts.map((d) => d.minimumPaymentCents ?? 0))),
          credit_utilization: cardLimits > 0 ? ratio(cardDebtWithLimit, cardLimits) : null,
          weighted_apr: weightedApr(debts),
          overdue_count: debts.filter(overdue).length,
          currency: debts[0]?.currency ?? "USD",
        },
      },
    };
  },
});
