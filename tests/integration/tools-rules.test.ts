/**
 * The counting rules on hand-made rows, where each special case is known exactly: transfers
 * excluded, a still-pending charge counted, refunds lowering their category, liabilities
 * positive, totals over all matches while the page is limited, foreign ids finding nothing, bad
 * arguments named. Expected figures are computed in plain TypeScript from the same raw rows.
 */
import { and, eq, sql } from "drizzle-orm";
import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { balanceSnapshots, bankAccounts } from "@/db/schema";
import { AppError } from "@/lib/errors";
import { addDays } from "@/lib/finance/periods";
import { envelopeSchema } from "@/lib/mcp/envelope";
import { allTools } from "@/lib/mcp/tools";
import { findUnusualActivityTool } from "@/lib/mcp/tools/find-unusual-activity";
import { getCashFlowTool } from "@/lib/mcp/tools/get-cash-flow";
import { getFinancialOverviewTool } from "@/lib/mcp/tools/get-financial-overview";
import { getLiabilitiesTool } from "@/lib/mcp/tools/get-liabilities";
import { getNetWorthTool } from "@/lib/mcp/tools/get-net-worth";
import { getSpendingBreakdownTool } from "@/lib/mcp/tools/get-spending-breakdown";
import { listAccountsTool } from "@/lib/mcp/tools/list-accounts";
import { searchTransactionsTool } from "@/lib/mcp/tools/search-transactions";
import { testDatabaseKind, useTestDatabase } from "../helpers/db";
import { TOOL_NAMES } from "../helpers/mcp-client";
import {
  addAccount,
  addConnection,
  addLiability,
  addTransactions,
  callTool,
  cents,
  contextFor,
  createUser,
  expectedFlow,
  netWorthPoints,
  only,
  type RawTxn,
  random,
} from "./tools-helpers";

const getDb = useTestDatabase();
const NOW = new Date("2025-11-10T15:00:00Z");

let userId: string;
let otherUserId: string;
let otherAccountId: string;
let otherConnectionId: string;
const acct = { checking: "", savings: "", card: "", mortgage: "", brokerage: "" };
const raw: RawTxn[] = [];

beforeAll(async () => {
  const db = getDb();
  userId = await createUser(db);
  const conn = await addConnection(db, userId, "Rule Bank");
  acct.checking = await addAccount(db, userId, conn, {
    name: "Checking",
    type: "depository",
    balance: 500_000,
  });
  acct.savings = await addAccount(db, userId, conn, {
    name: "Savings",
    type: "depository",
    balance: 1_000_000,
  });
  acct.card = await addAccount(db, userId, conn, {
    name: "Card",
    type: "credit",
    balance: 123_456,
    limit: 500_000,
  });
  acct.mortgage = await addAccount(db, userId, conn, { name: "Mortgage", type: "loan", balance: 25_000_000 });
  acct.brokerage = await addAccount(db, userId, conn, {
    name: "Brokerage",
    type: "investment",
    balance: 2_000_000,
  });
  await addLiability(db, userId, acct.card, {
    kind: "credit",
    apr: "24.0000",
    minimum: 3_500,
    due: "2025-11-14",
  });
  await addLiability(db, userId, acct.mortgage, {
    kind: "mortgage",
    apr: "6.0000",
    minimum: 180_000,
    due: "2025-12-01",
  });

  const c = acct.checking;
  raw.push(
    {
      accountId: c,
      date: "2025-10-01",
      amountMinor: 300_000,
      category: "income",
      name: "ACME PAYROLL",
      merchantName: "Acme",
    },
    {
      accountId: c,
      date: "2025-10-15",
      amountMinor: 300_000,
      category: "income",
      name: "ACME PAYROLL",
      merchantName: "Acme",
    },
    {
      accountId: acct.savings,
      date: "2025-10-31",
      amountMinor: 123,
      category: "interest_earned",
      name: "INTEREST",
    },
    {
      accountId: c,
      date: "2025-10-03",
      amountMinor: -10_050,
      category: "groceries",
      name: "WHOLE FOODS",
      merchantName: "Whole Foods",
    },
    {
      accountId: acct.card,
      date: "2025-10-04",
      amountMinor: -4_950,
      category: "groceries",
      name: "TRADER JOES",
      merchantName: "Trader Joe's",
    },
    {
      accountId: acct.card,
      date: "2025-10-05",
      amountMinor: -20_000,
      category: "shopping",
      name: "BIG STORE",
      merchantName: "Big Store",
    },
    // A refund: lowers shopping, is not income.
    {
      accountId: acct.card,
      date: "2025-10-20",
      amountMinor: 5_000,
      category: "shopping",
      name: "BIG STORE REFUND",
      merchantName: "Big Store",
    },
    // Transfers between own accounts, both legs; a card payment, both legs.
    {
      accountId: c,
      date: "2025-10-10",
      amountMinor: -50_000,
      category: "transfer",
      name: "TO SAVINGS",
      isTransfer: true,
    },
    {
      accountId: acct.savings,
      date: "2025-10-10",
      amountMinor: 50_000,
      category: "transfer",
      name: "FROM CHECKING",
      isTransfer: true,
    },
    {
      accountId: c,
      date: "2025-10-25",
      amountMinor: -30_000,
      category: "credit_card_payment",
      name: "CARD PAYMENT",
      isTransfer: true,
    },
    {
      accountId: acct.card,
      date: "2025-10-25",
      amountMinor: 30_000,
      category: "credit_card_payment",
      name: "PAYMENT THANK YOU",
      isTransfer: true,
    },
    // A pending charge (40.00) that posted with a tip (45.00): the sync stores only the posted row,
    // which names the pending one (tools-sandbox.test.ts proves the replacement end to end).
    {
      accountId: acct.card,
      date: "2025-10-30",
      amountMinor: -4_500,
      category: "restaurants",
      name: "BISTRO",
      merchantName: "Bistro",
      pendingTransactionId: "pend-1",
    },
    // Still pending: counted.
    {
      accountId: acct.card,
      date: "2025-10-31",
      amountMinor: -1_000,
      category: "restaurants",
      name: "TACO STAND",
      merchantName: "Taco Stand",
      pending: true,
    },
    // Wildcards in text.
    {
      accountId: c,
      date: "2025-10-12",
      amountMinor: -333,
      category: "groceries",
      name: "100% JUICE BAR",
      merchantName: "100% Juice",
    },
    {
      accountId: c,
      date: "2025-10-12",
      amountMinor: -444,
      category: "groceries",
      name: "1000 JUICES",
      merchantName: "1000 Juices",
    },
  );
  // Hundreds of coffees in September for the page-vs-summary check.
  for (let i = 0; i < 320; i++) {
    raw.push({
      accountId: i % 2 ? c : acct.card,
      date: `2025-09-${String((i % 30) + 1).padStart(2, "0")}`,
      amountMinor: -(250 + ((i * 37) % 900)),
      category: "restaurants",
      name: `SQ *COFFEE ${i}`,
      merchantName: "Blue Coffee",
    });
  }
  // Fill in provider ids for rows that do not set one, so the raw list is the stored list.
  raw.forEach((r, i) => {
    r.providerTransactionId ??= `txn-${i}`;
  });
  await addTransactions(db, userId, raw);

  otherUserId = await createUser(db);
  otherConnectionId = await addConnection(db, otherUserId, "Other Bank");
  otherAccountId = await addAccount(db, otherUserId, otherConnectionId, {
    name: "Other",
    type: "depository",
    balance: 99,
  });
  await addTransactions(db, otherUserId, [
    {
      accountId: otherAccountId,
      date: "2025-10-05",
      amountMinor: -999_999,
      category: "shopping",
      name: "BIG STORE",
    },
  ]);
});

describe("income and spending rules", () => {
  it("cash flow for October: transfers excluded, refund lowers spending, pending-then-posted once", async () => {
    const ctx = await contextFor(getDb(), userId, NOW);
    const out = await callTool(getCashFlowTool, { start_date: "2025-10-01", end_date: "2025-10-31" }, ctx);
    const expected = expectedFlow(raw, "2025-10-01", "2025-10-31");
    // Hand-checked too: income 3000+3000+1.23; spending 100.50+49.50+3.33+4.44 + 200−50 + 45+10.
    expect(expected.income).toBe(600_123);
    expect(expected.spending).toBe(10_050 + 4_950 + 333 + 444 + 15_000 + 4_500 + 1_000);
    const month = out.data.intervals.find((i) => i.label === "2025-10");
    expect(month).toBeDefined();
    expect(cents(month?.income ?? 0)).toBe(expected.income);
    expect(cents(month?.spending ?? 0)).toBe(expected.spending);
    expect(cents(month?.net ?? 0)).toBe(expected.income - expected.spending);
    expect(month?.savings_rate).toBeCloseTo((expected.income - expected.spending) / expected.income, 4);
    expect(cents(only(out.data.totals).income)).toBe(expected.income);
    expect(out.data.top_income_sources[0]?.source).toBe("Acme");
    expect(cents(out.data.top_income_sources[0]?.amount ?? 0)).toBe(600_000);
  });

  it("spending breakdown by category matches, with the refund netted and no transfer group", async () => {
    const ctx = await contextFor(getDb(), userId, NOW);
    const out = await callTool(getSpendingBreakdownTool, { period: "last_month" }, ctx);
    expect(out.data.range).toEqual({ start: "2025-10-01", end: "2025-10-31" });
    const expected = expectedFlow(raw, "2025-10-01", "2025-10-31");
    expect(cents(only(out.data.totals).total_spending)).toBe(expected.spending);
    for (const [category, amount] of expected.byCategory) {
      const group = out.data.groups.find((g) => g.key === category);
      expect(cents(group?.amount ?? Number.NaN), category).toBe(amount);
    }
    expect(out.data.groups.map((g) => g.key).sort()).toEqual([...expected.byCategory.keys()].sort());
    const shopping = out.data.groups.find((g) => g.key === "shopping");
    expect(shopping?.amount).toBe(150);
    expect(shopping?.count).toBe(2);
    const restaurants = out.data.groups.find((g) => g.key === "restaurants");
    expect(restaurants?.amount).toBe(55);
    // Previous period: September's coffees.
    const sept = expectedFlow(raw, "2025-09-01", "2025-09-30");
    expect(cents(only(out.data.totals).previous_total_spending ?? 0)).toBe(sept.spending);
    expect(cents(restaurants?.previous_amount ?? 0)).toBe(sept.byCategory.get("restaurants"));
  });

  it("top_n cuts the list but not the total", async () => {
    const ctx = await contextFor(getDb(), userId, NOW);
    const out = await callTool(
      getSpendingBreakdownTool,
      { period: "last_month", top_n: 1, group_by: "merchant" },
      ctx,
    );
    expect(out.data.groups).toHaveLength(1);
    const listed = out.data.groups.reduce((n, g) => n + cents(g.amount), 0);
    expect(listed + cents(only(out.data.totals).other?.amount ?? 0)).toBe(
      cents(only(out.data.totals).total_spending),
    );
    expect(cents(only(out.data.totals).total_spending)).toBe(
      expectedFlow(raw, "2025-10-01", "2025-10-31").spending,
    );
  });

  it("overview compares this period with the previous one and sums balances", async () => {
    const ctx = await contextFor(getDb(), userId, new Date("2025-10-31T23:00:00Z"));
    const out = await callTool(getFinancialOverviewTool, {}, ctx);
    const oct = expectedFlow(raw, "2025-10-01", "2025-10-31");
    const sep = expectedFlow(raw, "2025-09-01", "2025-09-30");
    expect(cents(only(out.data.totals).current.income)).toBe(oct.income);
    expect(cents(only(out.data.totals).current.spending)).toBe(oct.spending);
    expect(cents(only(out.data.totals).previous.spending)).toBe(sep.spending);
    expect(cents(only(out.data.totals).change.spending)).toBe(oct.spending - sep.spending);
    expect(cents(only(out.data.totals).cash)).toBe(1_500_000);
    expect(cents(only(out.data.totals).debt)).toBe(123_456 + 25_000_000);
    expect(cents(only(out.data.totals).net_worth)).toBe(
      500_000 + 1_000_000 + 2_000_000 - 123_456 - 25_000_000,
    );
    expect(only(out.data.totals).top_categories.length).toBeLessThanOrEqual(5);
    expect(out.data.connections[0]?.institution).toBe("Rule Bank");
  });
});

describe("liabilities and net worth", () => {
  it("reports balances owed as positive and net worth as assets minus liabilities", async () => {
    const ctx = await contextFor(getDb(), userId, NOW);
    const liab = await callTool(getLiabilitiesTool, {}, ctx);
    expect(liab.data.credit_cards[0]?.balance).toBe(1234.56);
    expect(liab.data.credit_cards[0]?.utilization).toBeCloseTo(123_456 / 500_000, 4);
    expect(liab.data.loans[0]?.balance).toBe(250_000);
    expect(liab.data.loans[0]?.kind).toBe("mortgage");
    expect(cents(only(liab.data.totals).total_debt)).toBe(123_456 + 25_000_000);
    const weighted = (123_456 * 24 + 25_000_000 * 6) / (123_456 + 25_000_000);
    expect(only(liab.data.totals).weighted_apr).toBeCloseTo(weighted, 2);
    const onlyCards = await callTool(getLiabilitiesTool, { types: ["credit"] }, ctx);
    expect(onlyCards.data.loans).toHaveLength(0);

    const nw = await callTool(getNetWorthTool, { interval: "none" }, ctx);
    expect(cents(only(nw.data.totals).assets)).toBe(3_500_000);
    expect(cents(only(nw.data.totals).liabilities)).toBe(25_123_456);
    expect(cents(only(nw.data.totals).net_worth)).toBe(3_500_000 - 25_123_456);
    expect(nw.data.history).toEqual([]);
    expect(nw.data.history_starts).toBeNull();

    const accounts = await callTool(listAccountsTool, {}, ctx);
    expect(accounts.data.accounts).toHaveLength(5);
    expect(accounts.data.accounts.find((a) => a.type === "credit")?.is_liability).toBe(true);
    expect(cents(only(accounts.data.totals).net)).toBe(3_500_000 - 25_123_456);
  });
});

describe("net worth history", () => {
  it("daily and weekly points carry each account's latest snapshot forward, per currency", async () => {
    const db = getDb();
    const owner = await createUser(db);
    const conn = await addConnection(db, owner, "History Bank");
    const accounts = [
      { type: "depository" as const, currency: "USD" },
      { type: "credit" as const, currency: "USD" },
      { type: "depository" as const, currency: "EUR" },
      { type: "loan" as const, currency: "EUR" },
    ];
    const ids: string[] = [];
    for (const [i, a] of accounts.entries()) {
      const id = await addAccount(db, owner, conn, { name: `History ${i}`, type: a.type, balance: 0 });
      await db.update(bankAccounts).set({ currency: a.currency }).where(eq(bankAccounts.id, id));
      ids.push(id);
    }
    // Sparse snapshots with gaps of 1 to 9 days, each account starting on another day (the EUR
    // loan only 40 days ago), some before the history's range.
    const next = random(11);
    const snapshots: Array<{ accountId: string; date: string; cents: number }> = [];
    for (const [i, accountId] of ids.entries()) {
      for (let date = addDays("2024-09-01", i === 3 ? 400 : i * 3); date <= "2025-11-10"; ) {
        snapshots.push({ accountId, date, cents: Math.floor(next() * 2_000_000) - 100_000 });
        date = addDays(date, 1 + Math.floor(next() * 9));
      }
    }
    await db.insert(balanceSnapshots).values(
      snapshots.map((x) => ({
        accountId: x.accountId,
        userId: owner,
        date: x.date,
        currentBalanceMinor: x.cents,
      })),
    );

    // Plain TypeScript: per date, each account's latest snapshot on or before it.
    const expected = (dates: string[]) =>
      ["EUR", "USD"].flatMap((currency) =>
        dates.map((date) => {
          let assets = 0;
          let liabilities = 0;
          for (const [i, accountId] of ids.entries()) {
            if (accounts[i]?.currency !== currency) continue;
            const latest = snapshots
              .filter((x) => x.accountId === accountId && x.date <= date)
              .sort((a, b) => a.date.localeCompare(b.date))
              .at(-1);
            if (!latest) continue;
            if (accounts[i]?.type === "depository") assets += latest.cents;
            else liabilities += latest.cents;
          }
          return { currency, date, assets, liabilities, net_worth: assets - liabilities };
        }),
      );
    const inCents = (
      history: Array<{
        currency: string;
        date: string;
        assets: number;
        liabilities: number;
        net_worth: number;
      }>,
    ) =>
      history.map((p) => ({
        currency: p.currency,
        date: p.date,
        assets: cents(p.assets),
        liabilities: cents(p.liabilities),
        net_worth: cents(p.net_worth),
      }));
    const ctx = await contextFor(db, owner, NOW);

    const daily = await callTool(getNetWorthTool, { interval: "day", months: 12 }, ctx);
    const days: string[] = [];
    for (let d = "2024-11-11"; d <= "2025-11-10"; d = addDays(d, 1)) days.push(d);
    expect(inCents(netWorthPoints(daily.data.history))).toEqual(expected(days));
    expect(daily.data.history_starts).toBe("2024-09-01");

    const weekly = await callTool(getNetWorthTool, { interval: "week", months: 3 }, ctx);
    const weeks = netWorthPoints(weekly.data.history)
      .filter((p) => p.currency === "USD")
      .map((p) => p.date);
    expect(weeks.at(-1)).toBe("2025-11-10");
    expect(weeks.slice(0, -1).every((d) => new Date(`${d}T00:00:00Z`).getUTCDay() === 0)).toBe(true);
    expect(inCents(netWorthPoints(weekly.data.history))).toEqual(expected(weeks));

    // Every kind of write to the snapshots afterwards (the daily history reads the changes kept by
    // a trigger, net_worth_days): backdated inserts before an account's first snapshot and between
    // two, updates of one and of many rows, deletes, then an account that changes type and
    // currency, and an account removed with its snapshots.
    const find = (accountId: string, date: string) =>
      snapshots.findIndex((x) => x.accountId === accountId && x.date === date);
    const backdated = [
      { accountId: ids[3] as string, date: "2025-01-15", cents: 777_777 },
      { accountId: ids[0] as string, date: "2025-06-02", cents: 12_345 },
      { accountId: ids[0] as string, date: "2025-06-03", cents: -4_321 },
    ].filter((x) => find(x.accountId, x.date) < 0);
    await db.insert(balanceSnapshots).values(
      backdated.map((x) => ({
        accountId: x.accountId,
        userId: owner,
        date: x.date,
        currentBalanceMinor: x.cents,
      })),
    );
    snapshots.push(...backdated);
    for (const [round, accountId] of [ids[0], ids[1], ids[2]].entries()) {
      const mine = snapshots.filter((x) => x.accountId === accountId && x.date >= "2024-12-01");
      const changed = mine[Math.floor(next() * mine.length)];
      const removed = mine.find((x) => x !== changed && next() < 0.2) ?? mine.at(-2);
      if (!changed || !removed) throw new Error("no snapshots to change");
      changed.cents += 50_000 * (round + 1);
      await db
        .update(balanceSnapshots)
        .set({ currentBalanceMinor: changed.cents })
        .where(
          and(eq(balanceSnapshots.accountId, accountId as string), eq(balanceSnapshots.date, changed.date)),
        );
      await db
        .delete(balanceSnapshots)
        .where(
          and(eq(balanceSnapshots.accountId, accountId as string), eq(balanceSnapshots.date, removed.date)),
        );
      snapshots.splice(snapshots.indexOf(removed), 1);
    }
    // One statement over many rows and two accounts.
    await db.execute(
      sql`update balance_snapshots set current_balance_minor = current_balance_minor + 100
          where account_id in (${ids[1]}, ${ids[2]}) and date >= '2025-03-01'`,
    );
    for (const x of snapshots)
      if ((x.accountId === ids[1] || x.accountId === ids[2]) && x.date >= "2025-03-01") x.cents += 100;
    const written = await callTool(getNetWorthTool, { interval: "day", months: 12 }, ctx);
    expect(inCents(netWorthPoints(written.data.history))).toEqual(expected(days));
    // The EUR loan becomes a USD asset; the USD credit card's account is removed.
    await db
      .update(bankAccounts)
      .set({ type: "depository", currency: "USD" })
      .where(eq(bankAccounts.id, ids[3] as string));
    accounts[3] = { type: "depository" as const, currency: "USD" };
    const moved = await callTool(getNetWorthTool, { interval: "day", months: 12 }, ctx);
    expect(inCents(netWorthPoints(moved.data.history))).toEqual(expected(days));
    await db.delete(bankAccounts).where(eq(bankAccounts.id, ids[1] as string));
    snapshots.splice(0, snapshots.length, ...snapshots.filter((x) => x.accountId !== ids[1]));

    const after = await callTool(getNetWorthTool, { interval: "day", months: 12 }, ctx);
    expect(inCents(netWorthPoints(after.data.history))).toEqual(expected(days));
  });
});

describe("daily net-worth changes under concurrent syncs", () => {
  it.runIf(testDatabaseKind() === "postgres")(
    "two banks of one user writing the same day's snapshots together both succeed, and the changes add up",
    async () => {
      const db = getDb();
      const owner = await createUser(db);
      const accountOf = async (bank: string) =>
        addAccount(db, owner, await addConnection(db, owner, bank), {
          name: bank,
          type: "depository",
          balance: 0,
        });
      const [first, second] = [await accountOf("Bank One"), await accountOf("Bank Two")];
      // Two sessions, as two syncs are: the first writes and holds its transaction open, the
      // second writes the same user's day meanwhile (it used to fail with a unique violation
      // once the first committed: both rewrote the user's day of net_worth_days).
      const one = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      const two = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await Promise.all([one.connect(), two.connect()]);
      try {
        const write = (client: pg.Client, accountId: string, cents: number) =>
          client.query(
            "insert into balance_snapshots (account_id, user_id, date, current_balance_minor) values ($1, $2, '2025-11-10', $3)",
            [accountId, owner, cents],
          );
        await one.query("begin");
        await write(one, first, 10_000);
        await two.query("begin");
        const waiting = write(two, second, 2_500).then(() => two.query("commit"));
        await new Promise((resolve) => setTimeout(resolve, 200));
        await one.query("commit");
        await waiting;
      } finally {
        await Promise.all([one.end(), two.end()]);
      }
      const daily = await callTool(
        getNetWorthTool,
        { interval: "day", months: 1 },
        await contextFor(db, owner, NOW),
      );
      expect(netWorthPoints(daily.data.history).at(-1)).toMatchObject({
        date: "2025-11-10",
        assets: 125,
        net_worth: 125,
      });
    },
  );
});

describe("search_transactions", () => {
  it("summarises all matches while returning a limited page, and pages with the cursor", async () => {
    const ctx = await contextFor(getDb(), userId, NOW);
    const coffees = raw.filter((r) => r.merchantName === "Blue Coffee");
    const out = await callTool(searchTransactionsTool, { query: "coffee", limit: 5 }, ctx);
    expect(out.data.transactions).toHaveLength(5);
    expect(out.data.summary.count).toBe(320);
    expect(cents(only(out.data.summary.totals).outflow)).toBe(coffees.reduce((n, r) => n + r.amountMinor, 0));
    expect(only(out.data.summary.totals).inflow).toBe(0);
    expect(out.page?.total_count).toBe(320);
    expect(out.page?.has_more).toBe(true);
    // Newest first.
    const dates = out.data.transactions.map((t) => t.date);
    expect([...dates].sort().reverse()).toEqual(dates);

    const seen = new Set(out.data.transactions.map((t) => t.id));
    let cursor = out.page?.next_cursor;
    let pages = 1;
    while (cursor) {
      // The cursor carries the offset and the filters, not the page size: a larger next page is fine.
      const next = await callTool(searchTransactionsTool, { query: "coffee", limit: 100, cursor }, ctx);
      for (const t of next.data.transactions) seen.add(t.id);
      expect(next.data.summary.count).toBe(320);
      cursor = next.page?.next_cursor;
      pages++;
    }
    expect(seen.size).toBe(320);
    expect(pages).toBe(5);
  });

  it("filters by direction, amount, pending, transfers, category and escapes wildcards", async () => {
    const ctx = await contextFor(getDb(), userId, NOW);
    const october = { start_date: "2025-10-01", end_date: "2025-10-31" };
    const inflow = await callTool(searchTransactionsTool, { ...october, direction: "inflow" }, ctx);
    const expectedIn = raw.filter(
      (r) => r.date >= "2025-10-01" && r.date <= "2025-10-31" && r.amountMinor > 0,
    );
    expect(inflow.data.summary.count).toBe(expectedIn.length);
    expect(cents(only(inflow.data.summary.totals).inflow)).toBe(
      expectedIn.reduce((n, r) => n + r.amountMinor, 0),
    );

    const noTransfers = await callTool(searchTransactionsTool, { ...october, exclude_transfers: true }, ctx);
    expect(noTransfers.data.transactions.some((t) => t.is_transfer)).toBe(false);

    const posted = await callTool(searchTransactionsTool, { ...october, include_pending: false }, ctx);
    expect(posted.data.transactions.some((t) => t.pending)).toBe(false);

    // One row per purchase: the posted Bistro charge at its final amount.
    const bistro = await callTool(searchTransactionsTool, { query: "bistro" }, ctx);
    expect(bistro.data.transactions).toHaveLength(1);
    expect(bistro.data.transactions[0]?.amount).toBe(-45);

    const big = await callTool(
      searchTransactionsTool,
      { min_amount: 200, max_amount: 3000, sort: "amount_desc" },
      ctx,
    );
    const expectedBig = raw.filter(
      (r) => Math.abs(r.amountMinor) >= 20_000 && Math.abs(r.amountMinor) <= 300_000,
    );
    expect(big.data.summary.count).toBe(expectedBig.length);
    const amounts = big.data.transactions.map((t) => Math.abs(t.amount));
    expect([...amounts].sort((a, b) => b - a)).toEqual(amounts);

    const percent = await callTool(searchTransactionsTool, { query: "%" }, ctx);
    expect(percent.data.transactions.map((t) => t.merchant)).toEqual(["100% Juice"]);
    const underscore = await callTool(searchTransactionsTool, { query: "_" }, ctx);
    expect(underscore.data.summary.count).toBe(0);

    const groceries = await callTool(searchTransactionsTool, { categories: ["groceries"] }, ctx);
    expect(groceries.data.summary.count).toBe(raw.filter((r) => r.category === "groceries").length);
  });

  it("finds nothing for another user's account and connection, never their rows", async () => {
    const ctx = await contextFor(getDb(), userId, NOW);
    const foreign = await callTool(searchTransactionsTool, { account_ids: [otherAccountId] }, ctx);
    expect(foreign.data.transactions).toEqual([]);
    expect(foreign.data.summary.count).toBe(0);
    const store = await callTool(searchTransactionsTool, { query: "big store" }, ctx);
    expect(store.data.transactions.every((t) => t.amount !== -9999.99)).toBe(true);
    const accounts = await callTool(listAccountsTool, { connection_id: otherConnectionId }, ctx);
    expect(accounts.data.accounts).toEqual([]);
    const spending = await callTool(getSpendingBreakdownTool, { account_ids: [otherAccountId] }, ctx);
    expect(spending.data.totals).toEqual([]);
    expect(spending.data.groups).toEqual([]);
  });

  it("refuses a garbled cursor and a cursor of another query, naming cursor", async () => {
    const ctx = await contextFor(getDb(), userId, NOW);
    const first = await callTool(searchTransactionsTool, { query: "coffee", limit: 5 }, ctx);
    const cursor = first.page?.next_cursor ?? "";
    for (const bad of ["garbage!!", "eyJvIjotMX0", Buffer.from('{"o":5,"f":"nope"}').toString("base64url")]) {
      await expect(callTool(searchTransactionsTool, { query: "coffee", cursor: bad }, ctx)).rejects.toSatisfy(
        (e: unknown) => e instanceof AppError && e.code === "invalid_input" && /cursor/.test(e.message),
      );
    }
    await expect(callTool(searchTransactionsTool, { query: "tea", cursor }, ctx)).rejects.toSatisfy(
      (e: unknown) => e instanceof AppError && /cursor/.test(e.message),
    );
  });
});

describe("arguments", () => {
  it("refuses bad arguments with messages naming the argument and the allowed values", () => {
    const search = searchTransactionsTool.input;
    const limit = search.safeParse({ limit: 251 });
    expect(limit.success).toBe(false);
    expect(limit.error?.issues[0]?.path).toEqual(["limit"]);
    expect(search.safeParse({ limit: 0 }).success).toBe(false);
    expect(search.safeParse({ limit: "ten" }).success).toBe(false);
    const period = search.safeParse({ period: "last_week" });
    expect(period.success).toBe(false);
    expect(period.error?.issues[0]?.path).toEqual(["period"]);
    expect(period.error?.issues[0]?.message).toMatch(/last_month/);
    expect(search.safeParse({ sort: "random" }).success).toBe(false);
    expect(search.safeParse({ start_date: "2025-02-30" }).error?.issues[0]?.path).toEqual(["start_date"]);
    expect(getSpendingBreakdownTool.input.safeParse({ top_n: 51 }).success).toBe(false);
    expect(getSpendingBreakdownTool.input.safeParse({ group_by: "weekday" }).success).toBe(false);
    expect(getCashFlowTool.input.safeParse({ months: 25 }).success).toBe(false);
    expect(findUnusualActivityTool.input.safeParse({ kinds: ["weird"] }).success).toBe(false);
    expect(getNetWorthTool.input.safeParse({ interval: "year" }).success).toBe(false);
    expect(getFinancialOverviewTool.input.safeParse({ period: 7 }).success).toBe(false);
  });

  it("refuses start after end and period with dates as invalid_input naming the argument", async () => {
    const ctx = await contextFor(getDb(), userId, NOW);
    await expect(
      callTool(searchTransactionsTool, { start_date: "2025-10-31", end_date: "2025-10-01" }, ctx),
    ).rejects.toSatisfy(
      (e: unknown) => e instanceof AppError && e.code === "invalid_input" && /start_date/.test(e.message),
    );
    await expect(
      callTool(getSpendingBreakdownTool, { period: "last_month", start_date: "2025-10-01" }, ctx),
    ).rejects.toSatisfy((e: unknown) => e instanceof AppError && /period/.test(e.message));
    await expect(callTool(searchTransactionsTool, { min_amount: 10, max_amount: 5 }, ctx)).rejects.toSatisfy(
      (e: unknown) => e instanceof AppError && /min_amount/.test(e.message),
    );
  });

  it("registers the twelve tools in product order, each describing every argument", () => {
    expect(allTools.map((t) => t.name)).toEqual(TOOL_NAMES);
    for (const tool of allTools) {
      expect(tool.description.length).toBeGreaterThan(100);
      // What clients see: JSON Schemas of the input and of the data (inside the envelope).
      const input = z.toJSONSchema(tool.input, { io: "input" }) as {
        properties?: Record<string, { enum?: unknown[] }>;
      };
      z.toJSONSchema(envelopeSchema(tool.data));
      if (input.properties?.period) expect(input.properties.period.enum).toContain("last_12_months");
      for (const [name, field] of Object.entries(tool.input.shape)) {
        expect((field as { description?: string }).description, `${tool.name}.${name}`).toBeTruthy();
      }
    }
  });
});

describe("unusual activity", () => {
  it("flags a duplicate charge, and none in a month without one", async () => {
    const db = getDb();
    await addTransactions(db, userId, [
      {
        accountId: acct.card,
        date: "2025-11-03",
        amountMinor: -2_999,
        category: "shopping",
        name: "GADGET SHOP",
        merchantName: "Gadget Shop",
        providerTransactionId: "dup-1",
      },
      {
        accountId: acct.card,
        date: "2025-11-04",
        amountMinor: -2_999,
        category: "shopping",
        name: "GADGET SHOP",
        merchantName: "Gadget Shop",
        providerTransactionId: "dup-2",
      },
    ]);
    const ctx = await contextFor(db, userId, NOW);
    const out = await callTool(findUnusualActivityTool, { kinds: ["duplicate"] }, ctx);
    expect(out.data.findings.map((f) => f.transaction.merchant)).toEqual(["Gadget Shop"]);
    expect(out.data.counts.duplicate).toBe(1);
    const october = await callTool(
      findUnusualActivityTool,
      { start_date: "2025-10-01", end_date: "2025-10-31", kinds: ["duplicate", "new_merchant"] },
      ctx,
    );
    expect(october.data.findings.some((f) => f.kind === "duplicate")).toBe(false);
    expect(
      october.data.findings.some((f) => f.transaction.merchant === "Bistro" && f.kind === "new_merchant"),
    ).toBe(true);
  });
});
