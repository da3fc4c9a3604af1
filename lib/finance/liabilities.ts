/**
 * Debts: credit cards and loans with their terms.
 *
 * Rules: balances are positive amounts owed (as stored by sync, whatever the provider's sign).
 * Utilization = balance / limit (null without a limit). Total debt = SUM of balances in SQL.
 * Weighted APR = Σ(balance × APR) / Σ balance over debts that report an APR and owe more than 0,
 * rounded to 2 decimals; null when none does. Callers compute every total, utilization and
 * weighted APR within one currency (get_liabilities groups the debts by currency first).
 *
 * Payment status (`paymentStatus`): a card's statement is paid by the payments posted to the
 * card after the statement's issue date (money in to the card that is a transfer or a
 * credit-card payment; a refund is not a payment). A card's bill is due only while the minimum
 * is not yet covered by those payments and the statement balance is not paid; it is overdue only
 * when the due date has passed and the minimum was not received. What remains to pay is the
 * minimum less those payments. Without a statement date (the provider sent none) the provider's
 * figures stand: the minimum is due and its overdue flag decides. Loans: the next unpaid
 * installment is due; overdue when its date has passed (or the provider says so).
 */
import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { bankAccounts, bankConnections, liabilities, transactions } from "@/db/schema";
import { toCents, toCentsOrNull, toNumberOrNull } from "./money";

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
  /** Payments posted to the account after `lastStatementDate` (0 without one). */
  paidSinceStatementCents: number;
  isOverdue: boolean;
  originationPrincipalCents: number | null;
  maturityDate: string | null;
}

/**
 * Open credit and loan accounts with their liability details (accounts the provider sent no
 * details for are still listed, kind from the account type).
 */
export async function listDebts(db: Database, userId: string, kinds?: LiabilityKind[]): Promise<DebtRow[]> {
  const kind = sql<LiabilityKind>`coalesce(${liabilities.kind}, case when ${bankAccounts.type} = 'credit' then 'credit' else 'other' end)`;
  const conditions: SQL[] = [
    eq(bankAccounts.userId, userId),
    eq(bankAccounts.isClosed, false),
    inArray(bankAccounts.type, ["credit", "loan"]),
  ];
  if (kinds && kinds.length > 0) conditions.push(sql`${kind} in ${kinds}`);
  // The sandbox stores the statement date as lastStatementIssueDate, Plaid as last_statement_issue_date.
  const statementDate = sql<
    string | null
  >`coalesce(${liabilities.details}->>'lastStatementIssueDate', ${liabilities.details}->>'last_statement_issue_date')`;
  const paidSinceStatement = sql<string>`(
    select coalesce(sum(${transactions.amountMinor}), 0) from ${transactions}
    where ${transactions.userId} = ${userId} and ${transactions.accountId} = ${bankAccounts.id}
      and ${transactions.amountMinor} > 0
      and (${transactions.isTransfer} or ${transactions.category} = 'credit_card_payment')
      and ${transactions.date} > (${statementDate})::date
  )`;
  const rows = await db
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
      paidSinceStatement,
      isOverdue: liabilities.isOverdue,
      originationPrincipal: liabilities.originationPrincipalMinor,
      maturityDate: liabilities.maturityDate,
    })
    .from(bankAccounts)
    .innerJoin(bankConnections, eq(bankConnections.id, bankAccounts.connectionId))
    .leftJoin(liabilities, and(eq(liabilities.accountId, bankAccounts.id), eq(liabilities.userId, userId)))
    .where(and(...conditions))
    .orderBy(bankAccounts.type, bankConnections.institutionName, bankAccounts.name, bankAccounts.id);
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
    paidSinceStatementCents: r.lastStatementDate === null ? 0 : toCents(r.paidSinceStatement),
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
  /** What remains to pay by the due date (0: nothing due). */
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
    | "paidSinceStatementCents"
    | "isOverdue"
  >,
  today: string,
): PaymentStatus {
  const minimum = Math.max(0, d.minimumPaymentCents ?? 0);
  const pastDue = d.nextPaymentDueDate !== null && d.nextPaymentDueDate < today;
  if (d.kind !== "credit" || d.lastStatementDate === null) {
    return { dueCents: minimum, overdue: d.isOverdue || (pastDue && minimum > 0 && d.kind !== "credit") };
  }
  const paid = d.paidSinceStatementCents;
  const statementPaid = d.lastStatementBalanceCents !== null && paid >= d.lastStatementBalanceCents;
  const dueCents = statementPaid ? 0 : Math.max(0, minimum - paid);
  return { dueCents, overdue: pastDue && dueCents > 0 };
}
