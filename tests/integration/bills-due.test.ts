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
import { liabilities } from "@/db/schema";
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
