/**
 * Debts: credit cards and loans with their terms.
 *
 * Rules: balances are positive amounts owed (as stored by sync, whatever the provider's sign).
 * Utilization = balance / limit (null without a limit). Total debt = SUM of balances in SQL.
 * Weighted APR = Σ(balance × APR) / Σ balance over debts that report an APR and owe more than 0,
 * rounded to 2 decimals; null when none does.
 */
import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { bankAccounts, bankConnections, liabilities } from "@/db/schema";
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
