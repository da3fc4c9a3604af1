/**
 * Debts: credit cards and loans with their terms.
 *
 * Rules: balances are positive amounts owed (as stored by sync, whatever the provider's sign).
 * Utilization = balance / limit (null without a limit). Total debt = SUM of balances in SQL.
 * Weighted APR = Σ(balance × APR) / Σ balance over debts that report an APR and owe more than 0,
 * rounded to 2 decimals; null when none does. Every total, utilization and weighted APR is
 * computed within one currency (`getDebts` groups the debts by currency first).
 *
 * Payment status (`paymentStatus`): a payment is money in to the debt's account that is a
 * transfer or a card or loan payment (a refund is not a payment).
 * - Cards: the statement is paid by the payments posted after its issue date. The bill is due
 *   while the statement balance is not paid; it is overdue only when the due date has passed
 *   and the minimum was not received. What remains to pay is the statement balance less those
 *   payments for a card paid in full in each of its last three cycles (its owner pays in full,
 *   by autopay or by habit), otherwise the minimum less them. A past cycle was paid in full when
 *   the payments posted after its statement date, up to the next one, reached the card's balance
 *   on that date (balance snapshots; a cycle without a snapshot proves nothing). Without a
 *   statement date (the provider sent none) the provider's figures stand: the minimum is due and
 *   its overdue flag decides.
 * - Loans: the installment due on the next due date is paid by the payments of its period (the
 *   month before the due date): those posted to the loan account, or the provider's last payment
 *   when it falls in the period. What remains is the installment less those; it is overdue when
 *   something remains and the due date has passed (or the provider says so).
 */
import { and, eq, type SQL, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { perDatabaseVariant } from "@/db/fixed-statement";
import { balanceSnapshots, bankAccounts, bankConnections, liabilities, transactions } from "@/db/schema";
import { groupByCurrency } from "./currency";
import { ratio, toCents, toCentsOrNull, toNumberOrNull } from "./money";
import { addMonths } from "./periods";
import { type AccountScope, ALL_ACCOUNTS, readable } from "./scope";

/** Cycles a card must have been paid in full to be projected as paid in full again. */
export const FULL_PAY_CYCLES = 3;

export const LIABILITY_KINDS = ["credit", "student", "mortgage", "other"] as const;
export type LiabilityKind = (typeof LIABILITY_KINDS)[number];

export interface DebtRow {
  accountId: string;
  name: string;
  mask: string | null;
  institution: string;
  kind: LiabilityKind;
  subtype: string | null;
  currency: string;
  balanceCents: number;
  limitCents: number | null;
  apr: number | null;
  minimumPaymentCents: number | null;
  nextPaymentDueDate: string | null;
  lastPaymentDate: string | null;
  lastPaymentCents: number | null;
  lastStatementBalanceCents: number | null;
  /** Issue date of the last statement (cards), when the provider gives it. */
  lastStatementDate: string | null;
  /** Cards: payments posted after `lastStatementDate` (0 without one). Loans: payments posted in the month before the next due date. */
  paidThisCycleCents: number;
  /** Cards: how many of the three cycles before the last statement were paid in full (0–3). */
  paidInFullCycles: number;
  isOverdue: boolean;
  originationPrincipalCents: number | null;
  maturityDate: string | null;
}

/** The debts query for one set of kinds, built once per database (db/fixed-statement.ts). */
const debtsQuery = perDatabaseVariant(
  (kinds: LiabilityKind[] | undefined) => (kinds ?? []).join(","),
  (db, kinds) => {
    const userId = sql.placeholder("userId");
    const kind = sql<LiabilityKind>`coalesce(${liabilities.kind}, case when ${bankAccounts.type} = 'credit' then 'credit' else 'other' end)`;
    // Constants are written into the statement, not bound: a plan made once for it (a generic
    // plan) then knows them, as it must know the cycles counted below (bound, its plan would read
    // every snapshot of each card, and the server would plan it anew on every run instead).
    const conditions: SQL[] = [
      eq(bankAccounts.userId, userId),
      sql`${bankAccounts.isClosed} = false`,
      sql`${bankAccounts.type} in ('credit', 'loan')`,
    ];
    if (kinds && kinds.length > 0) conditions.push(sql`${kind} in ${kinds}`);
    // The sandbox stores the statement date as lastStatementIssueDate, Plaid as last_statement_issue_date.
    const statementDate = sql<
      string | null
    >`coalesce(${liabilities.details}->>'lastStatementIssueDate', ${liabilities.details}->>'last_statement_issue_date')`;
    // The day the current cycle began: a card's statement date, a loan's previous due date.
    const cycleStart = sql`(case when ${kind} = 'credit' then (${statementDate})::date
    else (${liabilities.nextPaymentDueDate} - interval '1 month')::date end)`;
    const paidBetween = (after: SQL, through: SQL | null) => sql`(
    select coalesce(sum(${transactions.amountMinor}), 0) from ${transactions}
    where ${transactions.userId} = ${userId} and ${transactions.accountId} = ${bankAccounts.id}
      and ${transactions.amountMinor} > 0
      and (${transactions.isTransfer} or ${transactions.category} in ('credit_card_payment', 'loan_payments'))
      and ${transactions.date} > ${after}${through ? sql` and ${transactions.date} <= ${through}` : sql``}
  )`;
    const closeOf = (k: SQL) => sql`((${statementDate})::date - make_interval(months => ${k}))::date`;
    const paidInFullCycles = sql<string>`(
    select count(*) from generate_series(1, ${sql.raw(String(FULL_PAY_CYCLES))}) as k
    join ${balanceSnapshots} s on s.account_id = ${bankAccounts.id} and s.date = ${closeOf(sql`k`)}
    where ${paidBetween(sql`s.date`, closeOf(sql`k - 1`))} >= s.current_balance_minor
  )`;
    return db
      .select({
        accountId: bankAccounts.id,
        name: bankAccounts.name,
        mask: bankAccounts.mask,
        subtype: bankAccounts.subtype,
        currency: bankAccounts.currency,
        institution: bankConnections.institutionName,
        kind,
        balance: bankAccounts.currentBalanceMinor,
        limit: bankAccounts.limitMinor,
        apr: liabilities.aprPercentage,
        minimumPayment: liabilities.minimumPaymentMinor,
        nextPaymentDueDate: liabilities.nextPaymentDueDate,
        lastPaymentDate: liabilities.lastPaymentDate,
        lastPayment: liabilities.lastPaymentAmountMinor,
        lastStatementBalance: liabilities.lastStatementBalanceMinor,
        lastStatementDate: statementDate,
        paidThisCycle: sql<string>`${paidBetween(cycleStart, null)}`,
        paidInFullCycles: sql<string>`case when ${kind} = 'credit' then ${paidInFullCycles} else 0 end`,
        isOverdue: liabilities.isOverdue,
        originationPrincipal: liabilities.originationPrincipalMinor,
        maturityDate: liabilities.maturityDate,
      })
      .from(bankAccounts)
      .innerJoin(bankConnections, eq(bankConnections.id, bankAccounts.connectionId))
      .leftJoin(liabilities, and(eq(liabilities.accountId, bankAccounts.id), eq(liabilities.userId, userId)))
      .where(and(...conditions))
      .orderBy(bankAccounts.type, bankConnections.institutionName, bankAccounts.name, bankAccounts.id)
      .prepare("");
  },
);

/**
 * Open credit and loan accounts with their liability details (accounts the provider sent no
 * details for are still listed, kind from the account type).
 */
export async function listDebts(
  db: Database,
  userId: string,
  kinds?: LiabilityKind[],
  scope: AccountScope = ALL_ACCOUNTS,
): Promise<DebtRow[]> {
  const rows = readable(scope, await debtsQuery(db, kinds).execute({ userId }));
  return rows.map((r) => ({
    accountId: r.accountId,
    name: r.name,
    mask: r.mask,
    institution: r.institution,
    kind: r.kind,
    subtype: r.subtype,
    currency: r.currency,
    balanceCents: toCents(r.balance),
    limitCents: toCentsOrNull(r.limit),
    apr: toNumberOrNull(r.apr),
    minimumPaymentCents: toCentsOrNull(r.minimumPayment),
    nextPaymentDueDate: r.nextPaymentDueDate,
    lastPaymentDate: r.lastPaymentDate,
    lastPaymentCents: toCentsOrNull(r.lastPayment),
    lastStatementBalanceCents: toCentsOrNull(r.lastStatementBalance),
    lastStatementDate: r.lastStatementDate,
    paidThisCycleCents: toCents(r.paidThisCycle),
    paidInFullCycles: r.lastStatementDate === null ? 0 : toCents(r.paidInFullCycles),
    isOverdue: r.isOverdue ?? false,
    originationPrincipalCents: toCentsOrNull(r.originationPrincipal),
    maturityDate: r.maturityDate,
  }));
}

/** Weighted APR over debts with an APR and a positive balance (see the rule above). */
export function weightedApr(debts: Array<Pick<DebtRow, "balanceCents" | "apr">>): number | null {
  let weight = 0;
  let weighted = 0;
  for (const d of debts) {
    if (d.apr === null || d.balanceCents <= 0) continue;
    weight += d.balanceCents;
    weighted += d.balanceCents * d.apr;
  }
  return weight > 0 ? Math.round((weighted / weight) * 100) / 100 : null;
}

export interface PaymentStatus {
  /** What remains to pay by the due date, as its owner pays (0: nothing due). */
  dueCents: number;
  overdue: boolean;
}

/** Whether a debt's payment is due and overdue on `today` (see "Payment status" above). */
export function paymentStatus(
  d: Pick<
    DebtRow,
    | "kind"
    | "minimumPaymentCents"
    | "nextPaymentDueDate"
    | "lastStatementBalanceCents"
    | "lastStatementDate"
    | "lastPaymentDate"
    | "lastPaymentCents"
    | "paidThisCycleCents"
    | "paidInFullCycles"
    | "isOverdue"
  >,
  today: string,
): PaymentStatus {
  const minimum = Math.max(0, d.minimumPaymentCents ?? 0);
  const pastDue = d.nextPaymentDueDate !== null && d.nextPaymentDueDate < today;
  if (d.kind !== "credit") {
    if (d.nextPaymentDueDate === null) return { dueCents: minimum, overdue: d.isOverdue };
    const periodStart = addMonths(d.nextPaymentDueDate, -1);
    const providerPaid =
      d.lastPaymentDate !== null && d.lastPaymentDate > periodStart ? (d.lastPaymentCents ?? 0) : 0;
    const dueCents = Math.max(0, minimum - Math.max(d.paidThisCycleCents, providerPaid));
    return { dueCents, overdue: dueCents > 0 && (pastDue || d.isOverdue) };
  }
  if (d.lastStatementDate === null) return { dueCents: minimum, overdue: d.isOverdue };
  const paid = d.paidThisCycleCents;
  const statementLeft =
    d.lastStatementBalanceCents === null ? null : Math.max(0, d.lastStatementBalanceCents - paid);
  if (statementLeft === 0) return { dueCents: 0, overdue: false };
  const minimumLeft = Math.max(0, minimum - paid);
  const paysInFull = statementLeft !== null && d.paidInFullCycles >= FULL_PAY_CYCLES;
  return { dueCents: paysInFull ? statementLeft : minimumLeft, overdue: pastDue && minimumLeft > 0 };
}

/** A debt as get_liabilities shows it: its row, utilization, and whether it is overdue today. */
export interface Debt extends DebtRow {
  /** balance / limit (cards with a positive limit), rounded to 4 decimals. */
  utilization: number | null;
  /** The due date has passed and what is due was not received (`paymentStatus`). */
  overdue: boolean;
}

/** Totals of one currency's debts, in its minor units. */
interface DebtTotals {
  currency: string;
  totalDebtCents: number;
  cardDebtCents: number;
  loanDebtCents: number;
  minimumPaymentCents: number;
  /** All card balances / all card limits, over cards with a limit. */
  creditUtilization: number | null;
  weightedApr: number | null;
  overdueCount: number;
}

/** Open debts (optionally of some kinds) as of `today`, with their totals per currency (code order). */
export async function getDebts(
  db: Database,
  userId: string,
  kinds: LiabilityKind[] | undefined,
  today: string,
  scope: AccountScope = ALL_ACCOUNTS,
): Promise<{ debts: Debt[]; totals: DebtTotals[] }> {
  const debts = (await listDebts(db, userId, kinds, scope)).map((d) => ({
    ...d,
    utilization: ratio(d.balanceCents, d.limitCents ?? 0),
    overdue: paymentStatus(d, today).overdue,
  }));
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const totals = groupByCurrency(debts, (d) => d.currency).map(([currency, ofCurrency]) => {
    const cards = ofCurrency.filter((d) => d.kind === "credit");
    const cardDebtCents = sum(cards.map((c) => c.balanceCents));
    const loanDebtCents = sum(ofCurrency.filter((d) => d.kind !== "credit").map((l) => l.balanceCents));
    const withLimit = cards.filter((c) => c.limitCents !== null);
    const cardLimits = sum(withLimit.map((c) => c.limitCents ?? 0));
    return {
      currency,
      totalDebtCents: cardDebtCents + loanDebtCents,
      cardDebtCents,
      loanDebtCents,
      minimumPaymentCents: sum(ofCurrency.map((d) => d.minimumPaymentCents ?? 0)),
      creditUtilization: cardLimits > 0 ? ratio(sum(withLimit.map((c) => c.balanceCents)), cardLimits) : null,
      weightedApr: weightedApr(ofCurrency),
      overdueCount: ofCurrency.filter((d) => d.overdue).length,
    };
  });
  return { debts, totals };
}
