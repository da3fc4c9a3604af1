/**
 * The monthly rollup `transaction_months` equals the raw aggregation of `transactions` after every
 * kind of write (sync with pending rows replaced by posted ones, random inserts, updates of every
 * rolled-up column, deletes, an account removed), and the rebuild gives the same rollup. The
 * search summary, which reads the rollup for whole months, equals a plain TypeScript sum of the
 * raw rows for ranges with and without partial months and every rollable filter.
 */
import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { bankAccounts, transactions } from "@/db/schema";
import { syncConnection } from "@/lib/banking/connections";
import { wholeMonths } from "@/lib/finance/rollups";
import { executeRows } from "@/lib/finance/sql";
import { searchTransactionsTool } from "@/lib/mcp/tools/search-transactions";
import { useTestDatabase } from "../helpers/db";
import { linkSandboxBank } from "../helpers/fixtures";
import { callTool, contextFor, createUser, random } from "./tools-helpers";

const getDb = useTestDatabase();
const LINKED = new Date("2025-09-10T12:00:00Z");
const NOW = new Date("2025-11-10T12:00:00Z");

/** Rollup rows with something in them, and the same aggregation of the raw rows, both as text. */
async function compare(userId: string) {
  const db = getDb();
  const keys = "account_id, month, category, currency, pending, is_transfer";
  const rolled = await executeRows(
    db,
    sql`select ${sql.raw(keys)}, inflow_minor::text as i, outflow_minor::text as o, count, inflow_count, outflow_count
        from transaction_months where user_id = ${userId} and count <> 0 order by ${sql.raw(keys)}`,
  );
  const raw = await executeRows(
    db,
    sql`select account_id, date_trunc('month', date::timestamp)::date as month, category, currency, pending, is_transfer,
          coalesce(sum(amount_minor) filter (where amount_minor > 0), 0)::text as i,
          coalesce(sum(amount_minor) filter (where amount_minor < 0), 0)::text as o,
          count(*)::int as count, (count(*) filter (where amount_minor > 0))::int as inflow_count,
          (count(*) filter (where amount_minor < 0))::int as outflow_count
        from transactions where user_id = ${userId} group by 1, 2, 3, 4, 5, 6 order by ${sql.raw(keys)}`,
  );
  const norm = (rows: Array<Record<string, unknown>>) =>
    rows.map((r) =>
      Object.fromEntries(
        Object.entries(r).map(([k, v]) => [k, String(v instanceof Date ? v.toISOString().slice(0, 10) : v)]),
      ),
    );
  return { rolled: norm(rolled), raw: norm(raw) };
}

describe("the rollup follows every write", () => {
  let userId = "";
  let connectionId = "";
  beforeAll(async () => {
    userId = await createUser(getDb());
    // A fixed seed whose data has pending rows on the day of linking (a random one may have none).
    connectionId = (await linkSandboxBank(getDb(), userId, "ins_platypus", LINKED, "rollups-1")).connection
      .id;
  }, 60_000);

  it("after the first sync, and after a later sync that posts pending rows", async () => {
    const first = await compare(userId);
    expect(first.rolled.length).toBeGreaterThan(20);
    expect(first.rolled).toEqual(first.raw);
    const pendingBefore = await executeRows(
      getDb(),
      sql`select count(*)::int as n from transactions where user_id = ${userId} and pending`,
    );
    await syncConnection(getDb(), connectionId, { now: NOW });
    const later = await compare(userId);
    expect(later.rolled).toEqual(later.raw);
    expect(Number(pendingBefore[0]?.n)).toBeGreaterThan(0);
  }, 60_000);

  it("after random inserts, updates of every rolled-up column and deletes", async () => {
    const db = getDb();
    const next = random(42);
    const accounts = (
      await db.select({ id: bankAccounts.id }).from(bankAccounts).where(eq(bankAccounts.userId, userId))
    ).map((a) => a.id);
    const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)] as T;
    for (let round = 0; round < 12; round++) {
      await db.insert(transactions).values(
        Array.from({ length: 5 }, (_, i) => ({
          userId,
          accountId: pick(accounts),
          providerTransactionId: `random-${round}-${i}`,
          date: `2025-${String(1 + Math.floor(next() * 11)).padStart(2, "0")}-${String(1 + Math.floor(next() * 28)).padStart(2, "0")}`,
          name: "Random",
          amountMinor: Math.round((next() - 0.5) * 20_000),
          currency: next() < 0.2 ? "EUR" : "USD",
          category: pick(["groceries", "income", "transfer", "shopping"]),
          pending: next() < 0.3,
          isTransfer: next() < 0.2,
        })),
      );
      const ids = (
        await executeRows(
          db,
          sql`select id from transactions where user_id = ${userId} order by md5(id || ${String(round)}) limit 6`,
        )
      ).map((r) => String(r.id));
      await db.execute(sql`update transactions set amount_minor = -amount_minor where id = ${ids[0]}`);
      await db.execute(sql`update transactions set date = date - 40 where id = ${ids[1]}`);
      await db.execute(sql`update transactions set category = 'fees', currency = 'EUR' where id = ${ids[2]}`);
      await db.execute(
        sql`update transactions set pending = not pending, is_transfer = not is_transfer where id = ${ids[3]}`,
      );
      await db.execute(sql`update transactions set account_id = ${pick(accounts)} where id = ${ids[4]}`);
      await db.execute(sql`delete from transactions where id = ${ids[5]}`);
      const { rolled, raw } = await compare(userId);
      expect(rolled, `round ${round}`).toEqual(raw);
    }
  }, 60_000);

  it("rebuilds to the same rollup, and drops an account's months with it", async () => {
    const db = getDb();
    const before = await compare(userId);
    await db.execute(sql`select ledgerlink_rebuild_transaction_months()`);
    expect((await compare(userId)).rolled).toEqual(before.rolled);
    const [account] = await db
      .select({ id: bankAccounts.id })
      .from(bankAccounts)
      .where(eq(bankAccounts.userId, userId));
    await db.delete(bankAccounts).where(eq(bankAccounts.id, account?.id ?? ""));
    const after = await compare(userId);
    expect(after.rolled).toEqual(after.raw);
    expect(after.rolled.some((r) => r.account_id === account?.id)).toBe(false);
  });
});

describe("the search summary over whole months", () => {
  it("finds the whole months of a range", () => {
    expect(wholeMonths({ start: "2025-01-01", end: "2025-03-31" })).toEqual({
      first: "2025-01-01",
      last: "2025-03-01",
    });
    expect(wholeMonths({ start: "2025-01-02", end: "2025-03-30" })).toEqual({
      first: "2025-02-01",
      last: "2025-02-01",
    });
    expect(wholeMonths({ start: "2025-01-15", end: "2025-02-14" })).toBeNull();
    expect(wholeMonths({ start: "2024-02-01", end: "2024-02-29" })).toEqual({
      first: "2024-02-01",
      last: "2024-02-01",
    });
  });

  it("equals the sum of the raw rows for every rollable filter and range", async () => {
    const db = getDb();
    const userId = await createUser(db);
    await linkSandboxBank(db, userId, "ins_platypus", NOW, "rollups-2");
    await linkSandboxBank(db, userId, "ins_tartan", NOW, "rollups-2");
    const rows = (
      await executeRows(
        db,
        sql`select account_id, date::text as date, amount_minor::text as amount, currency, category, pending, is_transfer
            from transactions where user_id = ${userId}`,
      )
    ).map((r) => ({
      account: String(r.account_id),
      date: String(r.date),
      amount: Number(r.amount),
      currency: String(r.currency),
      category: String(r.category),
      pending: r.pending === true,
      transfer: r.is_transfer === true,
    }));
    const account = rows[0]?.account ?? "";
    const cases: Array<Record<string, unknown>> = [
      {},
      { start_date: "2025-03-01", end_date: "2025-08-31" },
      { start_date: "2025-03-17", end_date: "2025-08-04" },
      { start_date: "2025-05-03", end_date: "2025-05-20" },
      { period: "last_month" },
      { period: "last_12_months", direction: "outflow" },
      { direction: "inflow", include_pending: false },
      { exclude_transfers: true, start_date: "2025-02-11" },
      { categories: ["groceries", "restaurants"], start_date: "2025-01-01", end_date: "2025-06-30" },
      { account_ids: [account], direction: "outflow", start_date: "2024-12-31", end_date: "2025-10-01" },
    ];
    const ctx = await contextFor(db, userId, NOW);
    for (const args of cases) {
      const out = await callTool(searchTransactionsTool, { ...args, limit: 1 }, ctx);
      const range = out.data.range;
      const selected = rows.filter(
        (r) =>
          (!range || (r.date >= range.start && r.date <= range.end)) &&
          (args.direction !== "inflow" || r.amount > 0) &&
          (args.direction !== "outflow" || r.amount < 0) &&
          (args.include_pending !== false || !r.pending) &&
          (!args.exclude_transfers || !r.transfer) &&
          (!args.categories || (args.categories as string[]).includes(r.category)) &&
          (!args.account_ids || (args.account_ids as string[]).includes(r.account)),
      );
      const want = [...new Set(selected.map((r) => r.currency))].sort().map((currency) => {
        const of = selected.filter((r) => r.currency === currency);
        const inflow = of.filter((r) => r.amount > 0).reduce((n, r) => n + r.amount, 0);
        const outflow = of.filter((r) => r.amount < 0).reduce((n, r) => n + r.amount, 0);
        return { currency, count: of.length, inflow, outflow };
      });
      const got = out.data.summary.totals.map((t) => ({
        currency: t.currency,
        count: t.count,
        inflow: Math.round(t.inflow * 100),
        outflow: Math.round(t.outflow * 100),
      }));
      expect(got, JSON.stringify(args)).toEqual(want);
      expect(
        want.reduce((n, w) => n + w.count, 0),
        JSON.stringify(args),
      ).toBeGreaterThan(0);
    }
  }, 60_000);
});
