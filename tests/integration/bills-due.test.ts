/**
 * Bills and due dates a person acts on, checked on every day of a two-month window around one
 * card statement (issued 2025-10-25, balance 800.00, minimum 35.00, due 2025-11-20), for cards
 * paid early, on the due date, late, partially, with the minimum only, and not at all. The
 * provider's liability row stays as the last sync left it (its due date does not move), as it
 * does between syncs. Expected figures come from the payments alone, in plain TypeScript:
 *   paid = payments posted after the statement date up to the day;
 *   due = 0 when the statement balance is paid, else the minimum less what was paid (at least 0);
 *   overdue = the due date has passed and something of the minimum is still due.
 */
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { balanceSnapshots, liabilities } from "@/db/schema";
import { addDays } from "@/lib/finance/periods";
import { getFinancialOverviewTool } from "@/lib/mcp/tools/get-financial-overview";
import { getLiabilitiesTool } from "@/lib/mcp/tools/get-liabilities";
import { getUpcomingBillsTool } from "@/lib/mcp/tools/get-upcoming-bills";
import { useTestDatabase } from "../helpers/db";
import {
  addAccount,
  addConnection,
  addLiability,
  addTransactions,
  callTool,
  cents,
  contextFor,
  createUser,
} from "./tools-helpers";

const getDb = useTestDatabase();
const STATEMENT_DATE = "2025-10-25";
const DUE = "2025-11-20";
const STATEMENT = 80_000;
const MINIMUM = 3_500;
const CASH = 100_000;

const SCENARIOS: Record<string, { date: string; amount: number }[]> = {
  paid_early: [{ date: "2025-11-05", amount: 80_000 }],
  paid_on_due_date: [{ date: DUE, amount: 80_000 }],
  paid_late: [{ date: "2025-11-28", amount: 80_000 }],
  partial_below_minimum: [{ date: "2025-11-15", amount: 2_000 }],
  minimum_only: [{ date: "2025-11-18", amount: 3_500 }],
  two_payments: [
    { date: "2025-11-10", amount: 1_000 },
    { date: "2025-11-19", amount: 79_000 },
  ],
  unpaid: [],
};

/** A user with CASH in checking and a card whose last statement is STATEMENT, due DUE. */
async function cardUser(): Promise<{ userId: string; cardId: string }> {
  const db = getDb();
  const userId = await createUser(db);
  const connectionId = await addConnection(db, userId);
  await addAccount(db, userId, connectionId, { name: "Checking", type: "depository", balance: CASH });
  const cardId = await addAccount(db, userId, connectionId, {
    name: "Card",
    type: "credit",
    balance: 95_000,
    limit: 500_000,
  });
  await addLiability(db, userId, cardId, { kind: "credit", apr: "24.99", minimum: MINIMUM, due: DUE });
  await db
    .update(liabilities)
    .set({ lastStatementBalanceMinor: STATEMENT, details: { lastStatementIssueDate: STATEMENT_DATE } })
    .where(eq(liabilities.accountId, cardId));
  return { userId, cardId };
}

function expected(payments: { date: string; amount: number }[], day: string) {
  const paid = payments
    .filter((p) => p.date > STATEMENT_DATE && p.date <= day)
    .reduce((n, p) => n + p.amount, 0);
  const due = paid >= STATEMENT ? 0 : Math.max(0, MINIMUM - paid);
  return { due, overdue: day > DUE && due > 0 };
}

const users = new Map<string, { userId: string; cardId: string; inserted: Set<string> }>();

beforeAll(async () => {
  const db = getDb();
  for (const name of Object.keys(SCENARIOS)) {
    const { userId, cardId } = await cardUser();
    // A purchase on the card and a refund to it: money in to the card that is not a payment.
    await addTransactions(db, userId, [
      { accountId: cardId, date: "2025-11-02", amountMinor: -4_200, category: "groceries", name: "Market" },
      {
        accountId: cardId,
        date: "2025-11-03",
        amountMinor: 4_200,
        category: "groceries",
        name: "Market refund",
      },
    ]);
    users.set(name, { userId, cardId, inserted: new Set() });
  }
}, 120_000);

describe("card bills and overdue flags, every day of two months", () => {
  for (const [name, payments] of Object.entries(SCENARIOS)) {
    it(name, async () => {
      const db = getDb();
      const u = users.get(name);
      if (!u) throw new Error(name);
      for (let day = "2025-10-26"; day <= "2025-12-24"; day = addDays(day, 1)) {
        // The payments the bank has posted by this day (each once, as sync would write it).
        const posted = payments.filter((p) => p.date <= day && !u.inserted.has(p.date));
        await addTransactions(
          db,
          u.userId,
          posted.map((p) => ({
            accountId: u.cardId,
            date: p.date,
            amountMinor: p.amount,
            category: "credit_card_payment",
            name: "Payment, thank you",
            isTransfer: true,
          })),
        );
        for (const p of posted) u.inserted.add(p.date);

        const want = expected(payments, day);
        const ctx = await contextFor(db, u.userId, new Date(`${day}T12:00:00Z`));
        const liab = await callTool(getLiabilitiesTool, {}, ctx);
        expect(liab.data.credit_cards[0]?.is_overdue, `${name} ${day} is_overdue`).toBe(want.overdue);
        expect(liab.data.totals[0]?.overdue_count, `${name} ${day} overdue_count`).toBe(want.overdue ? 1 : 0);

        const bills = await callTool(getUpcomingBillsTool, { days_ahead: 30 }, ctx);
        const cardBills = bills.data.bills.filter((b) => b.kind === "credit_card");
        const inWindow = DUE >= day && DUE <= addDays(day, 30);
        const listed = want.due > 0 && inWindow;
        expect(
          cardBills.map((b) => cents(b.amount)),
          `${name} ${day} card bill`,
        ).toEqual(listed ? [-want.due] : []);
        expect(
          cents(bills.data.totals[0]?.projected_lowest_balance ?? Number.NaN),
          `${name} ${day} lowest`,
        ).toBe(CASH - (listed ? want.due : 0));

        const overview = await callTool(getFinancialOverviewTool, {}, ctx);
        const soon = want.due > 0 && DUE >= day && DUE <= addDays(day, 7);
        expect(
          overview.data.bills_due_7_days
            .filter((b) => b.name === "Card payment due")
            .map((b) => cents(b.amount)),
          `${name} ${day} overview`,
        ).toEqual(soon ? [-want.due] : []);
      }
    }, 120_000);
  }
});

/**
 * A card paid in full in each of its last three cycles is projected at what remains of its
 * statement, any other at what remains of the minimum; overdue still follows the minimum alone.
 * The cycles before the statement of 2025-10-25 closed on the 25th of July, August and September;
 * each was paid in full when the payments after its close, up to the next close, reached the
 * card's balance on its close date. Checked on every day of the same two months as above, with
 * this cycle's payments posted as their day comes (autopay pays the statement on the due date).
 */
const CYCLES = ["2025-07-25", "2025-08-25", "2025-09-25"];
const HISTORY: Record<
  string,
  {
    snapshots: Record<string, number>;
    payments: { date: string; amount: number }[];
    now: { date: string; amount: number }[];
  }
> = {
  autopay_in_full: {
    snapshots: { "2025-07-25": 65_000, "2025-08-25": 70_000, "2025-09-25": 60_000 },
    payments: [
      { date: "2025-08-20", amount: 65_000 },
      { date: "2025-09-20", amount: 70_000 },
      { date: "2025-10-20", amount: 60_000 },
    ],
    now: [{ date: DUE, amount: STATEMENT }],
  },
  in_full_then_partly: {
    snapshots: { "2025-07-25": 65_000, "2025-08-25": 70_000, "2025-09-25": 60_000 },
    payments: [
      { date: "2025-08-10", amount: 65_000 },
      { date: "2025-09-12", amount: 70_000 },
      { date: "2025-10-09", amount: 60_000 },
    ],
    now: [
      { date: "2025-11-02", amount: 30_000 },
      { date: "2025-11-27", amount: 2_000 },
    ],
  },
  one_cycle_short: {
    snapshots: { "2025-07-25": 65_000, "2025-08-25": 70_000, "2025-09-25": 60_000 },
    payments: [
      { date: "2025-08-10", amount: 65_000 },
      { date: "2025-09-12", amount: 10_000 },
      { date: "2025-10-09", amount: 60_000 },
    ],
    now: [{ date: "2025-11-18", amount: 3_500 }],
  },
  history_missing: {
    snapshots: { "2025-08-25": 70_000, "2025-09-25": 60_000 },
    payments: [
      { date: "2025-09-12", amount: 70_000 },
      { date: "2025-10-09", amount: 60_000 },
    ],
    now: [{ date: DUE, amount: STATEMENT }],
  },
};

/** Cycles paid in full before this statement, from the snapshots and payments alone. */
function fullCycles(h: (typeof HISTORY)[string]): number {
  const closes = [...CYCLES, STATEMENT_DATE];
  let full = 0;
  for (let i = 0; i < CYCLES.length; i++) {
    const close = closes[i] as string;
    const balance = h.snapshots[close];
    const paid = h.payments
      .filter((p) => p.date > close && p.date <= (closes[i + 1] as string))
      .reduce((n, p) => n + p.amount, 0);
    if (balance !== undefined && paid >= balance) full += 1;
  }
  return full;
}

function expectedOnDay(h: (typeof HISTORY)[string], day: string) {
  const paid = h.now.filter((p) => p.date <= day).reduce((n, p) => n + p.amount, 0);
  const statementLeft = Math.max(0, STATEMENT - paid);
  const minimumLeft = statementLeft === 0 ? 0 : Math.max(0, MINIMUM - paid);
  const due = statementLeft === 0 ? 0 : fullCycles(h) === 3 ? statementLeft : minimumLeft;
  return { due, overdue: day > DUE && minimumLeft > 0 };
}

describe("a card paid in full each cycle is projected at its statement balance, every day", () => {
  for (const [name, h] of Object.entries(HISTORY)) {
    it(name, async () => {
      const db = getDb();
      const { userId, cardId } = await cardUser();
      for (const [date, balance] of Object.entries(h.snapshots)) {
        await db
          .insert(balanceSnapshots)
          .values({ accountId: cardId, userId, date, currentBalanceMinor: balance });
      }
      const payment = (p: { date: string; amount: number }) => ({
        accountId: cardId,
        date: p.date,
        amountMinor: p.amount,
        category: "credit_card_payment",
        name: "Autopay payment",
        isTransfer: true,
      });
      await addTransactions(db, userId, h.payments.map(payment));
      const posted = new Set<string>();
      for (let day = "2025-10-26"; day <= "2025-12-24"; day = addDays(day, 1)) {
        const today = h.now.filter((p) => p.date <= day && !posted.has(p.date));
        await addTransactions(db, userId, today.map(payment));
        for (const p of today) posted.add(p.date);

        const want = expectedOnDay(h, day);
        const ctx = await contextFor(db, userId, new Date(`${day}T12:00:00Z`));
        const bills = await callTool(getUpcomingBillsTool, { days_ahead: 30 }, ctx);
        const listed = want.due > 0 && DUE >= day && DUE <= addDays(day, 30);
        expect(
          bills.data.bills.filter((b) => b.kind === "credit_card").map((b) => cents(b.amount)),
          `${name} ${day} card bill`,
        ).toEqual(listed ? [-want.due] : []);
        expect(
          cents(bills.data.totals[0]?.projected_lowest_balance ?? Number.NaN),
          `${name} ${day} lowest`,
        ).toBe(CASH - (listed ? want.due : 0));
        const liab = await callTool(getLiabilitiesTool, {}, ctx);
        expect(liab.data.credit_cards[0]?.is_overdue, `${name} ${day} is_overdue`).toBe(want.overdue);
      }
    }, 120_000);
  }

  it("the histories exercise both projections", () => {
    expect(Object.values(HISTORY).map(fullCycles)).toEqual([3, 3, 2, 2]);
  });
});

/**
 * A loan's installment (500.00 due 2025-11-20) is paid by the payments of its period, the month
 * before the due date: those posted to the loan account, or the provider's last payment as the
 * last sync reported it. The provider's due date does not move between syncs.
 */
const LOAN_DUE = "2025-11-20";
const INSTALLMENT = 50_000;
const LOANS: Record<
  string,
  { provider?: { date: string; amount: number }; posted?: { date: string; amount: number } }
> = {
  paid_on_time: { provider: { date: "2025-11-18", amount: INSTALLMENT } },
  paid_late: { provider: { date: "2025-11-25", amount: INSTALLMENT } },
  paid_partly: { provider: { date: "2025-11-18", amount: 20_000 } },
  posted_to_the_loan: { posted: { date: "2025-11-15", amount: INSTALLMENT } },
  unpaid: {},
};

function expectedLoan(l: (typeof LOANS)[string], day: string) {
  const periodStart = "2025-10-20";
  const counted = (p?: { date: string; amount: number }) =>
    p && p.date > periodStart && p.date <= day ? p.amount : 0;
  const due = Math.max(0, INSTALLMENT - Math.max(counted(l.provider), counted(l.posted)));
  return { due, overdue: due > 0 && day > LOAN_DUE };
}

describe("loan installments, every day from a month before to three weeks after the due date", () => {
  for (const [name, l] of Object.entries(LOANS)) {
    it(name, async () => {
      const db = getDb();
      const userId = await createUser(db);
      const connectionId = await addConnection(db, userId);
      await addAccount(db, userId, connectionId, { name: "Checking", type: "depository", balance: CASH });
      const loanId = await addAccount(db, userId, connectionId, {
        name: "Auto loan",
        type: "loan",
        balance: 900_000,
      });
      await addLiability(db, userId, loanId, {
        kind: "other",
        apr: "6.5",
        minimum: INSTALLMENT,
        due: LOAN_DUE,
      });
      let synced = false;
      for (let day = "2025-10-21"; day <= "2025-12-10"; day = addDays(day, 1)) {
        if (l.provider && !synced && l.provider.date <= day) {
          // The sync after the payment reports it; the due date stays until the servicer moves it.
          await db
            .update(liabilities)
            .set({ lastPaymentDate: l.provider.date, lastPaymentAmountMinor: l.provider.amount })
            .where(eq(liabilities.accountId, loanId));
          synced = true;
        }
        if (l.posted && !synced && l.posted.date <= day) {
          await addTransactions(db, userId, [
            {
              accountId: loanId,
              date: l.posted.date,
              amountMinor: l.posted.amount,
              category: "loan_payments",
              name: "Payment received",
            },
          ]);
          synced = true;
        }
        const want = expectedLoan(l, day);
        const ctx = await contextFor(db, userId, new Date(`${day}T12:00:00Z`));
        const liab = await callTool(getLiabilitiesTool, {}, ctx);
        expect(liab.data.loans[0]?.is_overdue, `${name} ${day} is_overdue`).toBe(want.overdue);
        const bills = await callTool(getUpcomingBillsTool, { days_ahead: 30 }, ctx);
        const listed = want.due > 0 && LOAN_DUE >= day && LOAN_DUE <= addDays(day, 30);
        expect(
          bills.data.bills.filter((b) => b.kind === "loan").map((b) => cents(b.amount)),
          `${name} ${day} loan bill`,
        ).toEqual(listed ? [-want.due] : []);
      }
    }, 120_000);
  }
});
