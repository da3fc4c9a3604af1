/**
 * Upcoming bills and the projected cash balance.
 *
 * Rules:
 * - Bills are active outflow recurring streams projected by their frequency from their next
 *   date, plus card and loan due dates from the liabilities with what remains to pay (the
 *   statement balance for a card paid in full each cycle, otherwise the minimum; a statement or
 *   installment already paid is no bill; see `paymentStatus`). Streams in a
 *   transfer-kind category (e.g. credit-card payments), or in one the person counts as a transfer
 *   (lib/finance/category-rules.ts), are left out, since the card's due date
 *   stands for them; a loan's due date is left out when a recurring `loan_payments` stream
 *   already stands for loan payments.
 * - Cash = the current balances of open depository accounts (SQL sum), per currency. The
 *   projection walks day by day from today, once per currency: recurring income into a
 *   depository account adds, bills paid from a depository account and card/loan payments
 *   subtract (charges on a card do not move cash until the card is paid). A bill or income moves
 *   the cash of its own account's currency (a card is assumed paid from cash of the card's
 *   currency). The lowest point and its date are reported. It is an estimate.
 */
import { and, eq, type Placeholder, type SQL, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { perDatabase } from "@/db/fixed-statement";
import { bankAccounts } from "@/db/schema";
import { categoryKind } from "./categories";
import { listTransferCategories } from "./category-rules";
import { listDebts, paymentStatus } from "./liabilities";
import { toCents } from "./money";
import { addDays, type DateRange } from "./periods";
import { listStreams, projectDates } from "./recurring";
import { type AccountScope, ALL_ACCOUNTS, inScopeOf, scopedAccountIds } from "./scope";

export const BILL_KINDS = ["recurring", "credit_card", "loan"] as const;

export interface Bill {
  currency: string;
  date: string;
  name: string;
  /** Negative: money out. */
  amountCents: number;
  kind: (typeof BILL_KINDS)[number];
  frequency: string | null;
  account: string;
  category: string | null;
  /** True when paying it takes cash from a depository account. */
  fromCash: boolean;
}

/** The bills and cash projection of one currency over the window. */
export interface CashProjection {
  currency: string;
  /** Sum of the bills in the currency (negative), whether paid from cash or by card. */
  totalDueCents: number;
  startingCashCents: number;
  lowest: { cents: number; date: string };
  endingCashCents: number;
}

export interface UpcomingBills {
  window: DateRange;
  bills: Bill[];
  income: Array<{ currency: string; date: string; name: string; amountCents: number; account: string }>;
  /** One per currency of the cash accounts and of the bills and income (code order). */
  cash: CashProjection[];
}

/** Open depository balances summed by currency, of the user and (scoped) accounts `where` adds. */
function cashQuery(db: Database, userId: Placeholder | string, where?: SQL) {
  return db
    .select({
      currency: bankAccounts.currency,
      cents: sql<string>`coalesce(sum(${bankAccounts.currentBalanceMinor}), 0)`,
    })
    .from(bankAccounts)
    .where(
      and(
        eq(bankAccounts.userId, userId),
        eq(bankAccounts.type, "depository"),
        eq(bankAccounts.isClosed, false),
        where,
      ),
    )
    .groupBy(bankAccounts.currency);
}

const cashByCurrency = perDatabase((db) => cashQuery(db, sql.placeholder("userId")).prepare(""));
const scopedCashByCurrency = perDatabase((db) =>
  cashQuery(db, sql.placeholder("userId"), inScopeOf(bankAccounts.id)).prepare(""),
);

/** Current cash per currency: SQL sums of open depository balances (of the accounts in `scope`). */
async function getCashByCurrency(
  db: Database,
  userId: string,
  scope: AccountScope,
): Promise<Map<string, number>> {
  const accounts = scopedAccountIds(scope);
  const rows = accounts
    ? await scopedCashByCurrency(db).execute({ userId, accounts })
    : await cashByCurrency(db).execute({ userId });
  return new Map(rows.map((r) => [r.currency, toCents(r.cents)]));
}

/** Bills and expected income from `today` through `today + daysAhead`, in date order. */
export async function listBills(
  db: Database,
  userId: string,
  today: string,
  daysAhead: number,
  scope: AccountScope = ALL_ACCOUNTS,
): Promise<Omit<UpcomingBills, "cash">> {
  const window = { start: today, end: addDays(today, daysAhead) };
  const [streams, debts, transferCategories] = await Promise.all([
    listStreams(db, userId, { direction: "all", status: "active", today }, scope),
    listDebts(db, userId, undefined, scope),
    listTransferCategories(db, userId),
  ]);
  const countedAsTransfer = new Set<string>(transferCategories);
  const bills: Bill[] = [];
  const income: UpcomingBills["income"] = [];
  let hasLoanStream = false;
  for (const s of streams) {
    const dates = projectDates(s, window.start, window.end);
    if (s.direction === "inflow") {
      if (s.accountType !== "depository") continue;
      for (const date of dates)
        income.push({
          currency: s.currency,
          date,
          name: s.merchant,
          amountCents: s.lastCents,
          account: s.accountName,
        });
      continue;
    }
    if (categoryKind(s.category) === "transfer" || countedAsTransfer.has(s.category)) continue;
    if (s.category === "loan_payments") hasLoanStream = true;
    for (const date of dates) {
      bills.push({
        currency: s.currency,
        date,
        name: s.merchant,
        amountCents: s.lastCents,
        kind: "recurring",
        frequency: s.frequency,
        account: s.accountName,
        category: s.category,
        fromCash: s.accountType === "depository",
      });
    }
  }
  for (const d of debts) {
    if (!d.nextPaymentDueDate || d.nextPaymentDueDate < window.start || d.nextPaymentDueDate > window.end)
      continue;
    if (d.kind !== "credit" && hasLoanStream) continue;
    // What remains to pay as the owner pays (liabilities.ts); a paid statement or installment is no bill.
    const due = paymentStatus(d, today).dueCents;
    if (due === 0) continue;
    bills.push({
      currency: d.currency,
      date: d.nextPaymentDueDate,
      name: `${d.name} payment due`,
      amountCents: -due,
      kind: d.kind === "credit" ? "credit_card" : "loan",
      frequency: null,
      account: d.name,
      category: null,
      fromCash: true,
    });
  }
  bills.sort((a, b) => a.date.localeCompare(b.date) || a.amountCents - b.amountCents);
  income.sort((a, b) => a.date.localeCompare(b.date));
  return { window, bills, income };
}

/** Bills and expected income from `today` through `today + daysAhead`, and the cash projection. */
export async function getUpcomingBills(
  db: Database,
  userId: string,
  today: string,
  daysAhead: number,
  scope: AccountScope = ALL_ACCOUNTS,
): Promise<UpcomingBills> {
  const [{ window, bills, income }, startingCash] = await Promise.all([
    listBills(db, userId, today, daysAhead, scope),
    getCashByCurrency(db, userId, scope),
  ]);
  const currencies = [
    ...new Set([...startingCash.keys(), ...bills.map((b) => b.currency), ...income.map((i) => i.currency)]),
  ].sort();
  const cash = currencies.map((currency) => {
    // Walk the window day by day; within a day, income lands before bills (end-of-day balance).
    const delta = new Map<string, number>();
    for (const b of bills)
      if (b.fromCash && b.currency === currency) delta.set(b.date, (delta.get(b.date) ?? 0) + b.amountCents);
    for (const i of income)
      if (i.currency === currency) delta.set(i.date, (delta.get(i.date) ?? 0) + i.amountCents);
    const startingCashCents = startingCash.get(currency) ?? 0;
    let balance = startingCashCents;
    let lowest = { cents: balance, date: today };
    for (let date = window.start; date <= window.end; date = addDays(date, 1)) {
      balance += delta.get(date) ?? 0;
      if (balance < lowest.cents) lowest = { cents: balance, date };
    }
    const totalDueCents = bills.reduce((n, b) => (b.currency === currency ? n + b.amountCents : n), 0);
    return { currency, totalDueCents, startingCashCents, lowest, endingCashCents: balance };
  });
  return { window, bills, income, cash };
}
