/**
 * The values precomputed for find_unusual_activity and list_recurring (migration 0007) equal what
 * plain TypeScript computes from the raw rows, after syncs that post pending rows, random direct
 * inserts, updates and deletes, an account removed, and a rebuild: first-seen dates per merchant,
 * typical amounts per stored anchor (365-day medians), and each stream's latest price change.
 * The sync stores the anchors of the default range for its day and the next in every timezone;
 * the tool reads them (a corrupted stored value changes its answer) and answers the same from the
 * rows when none are stored.
 */
import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { bankAccounts, transactions } from "@/db/schema";
import { syncConnection } from "@/lib/banking/connections";
import { minorUnits } from "@/lib/finance/currency";
import { addDays, todayIn } from "@/lib/finance/periods";
import { executeRows } from "@/lib/finance/sql";
import { findUnusualActivityTool } from "@/lib/mcp/tools/find-unusual-activity";
import { useTestDatabase } from "../helpers/db";
import { linkSandboxBank } from "../helpers/fixtures";
import { callTool, contextFor, createUser, random } from "./tools-helpers";

const getDb = useTestDatabase();
const LINKED = new Date("2025-09-10T12:00:00Z");
const DAY_MS = 86_400_000;
const ZONES = ["UTC", "Pacific/Kiritimati", "Pacific/Pago_Pago", "America/Los_Angeles", "Asia/Tokyo"];

interface Row {
  id: string;
  account: string;
  providerId: string;
  date: string;
  amount: number;
  currency: string;
  category: string;
  pending: boolean;
  transfer: boolean;
  merchantKey: string;
}

async function rawRows(userId: string): Promise<Row[]> {
  return (
    await executeRows(
      getDb(),
      sql`select id, account_id, provider_transaction_id, date::text as date, amount_minor::text as amount, currency,
            category, pending, is_transfer, coalesce(merchant_name, name) as merchant
          from transactions where user_id = ${userId}`,
    )
  ).map((r) => ({
    id: String(r.id),
    account: String(r.account_id),
    providerId: String(r.provider_transaction_id),
    date: String(r.date),
    amount: Number(r.amount),
    currency: String(r.currency),
    category: String(r.category),
    pending: r.pending === true,
    transfer: r.is_transfer === true,
    merchantKey: String(r.merchant).toLowerCase(),
  }));
}

/** Per category and currency: the median magnitude and count of the outflows in the year before `anchor`. */
function typicals(rows: Row[], anchor: string): Map<string, { typical: number; count: number }> {
  const groups = new Map<string, number[]>();
  for (const r of rows) {
    if (r.amount >= 0 || r.transfer || r.date < addDays(anchor, -365) || r.date >= anchor) continue;
    const key = `${r.category}|${r.currency}`;
    groups.set(key, [...(groups.get(key) ?? []), -r.amount]);
  }
  const out = new Map<string, { typical: number; count: number }>();
  for (const [key, values] of groups) {
    const sorted = values.sort((a, b) => a - b);
    const mid = (sorted.length - 1) / 2;
    const typical = ((sorted[Math.floor(mid)] ?? 0) + (sorted[Math.ceil(mid)] ?? 0)) / 2;
    out.set(key, { typical, count: sorted.length });
  }
  return out;
}

function firstSeen(rows: Row[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const r of rows) {
    const seen = out.get(r.merchantKey);
    if (!seen || r.date < seen) out.set(r.merchantKey, r.date);
  }
  return out;
}

const sortedEntries = <V>(map: Map<string, V>) => [...map.entries()].sort(([a], [b]) => (a < b ? -1 : 1));

/**
 * Compares every precomputed row of the user with the raw rows; returns the stored anchors and
 * how many streams have a price change (so a caller can check there was something to compare).
 */
async function expectPrecomputedEqualRaw(userId: string, label: string) {
  const db = getDb();
  const rows = await rawRows(userId);

  const seen = await executeRows(
    db,
    sql`select merchant_key, first_date::text as first from merchant_first_seen where user_id = ${userId}`,
  );
  expect(
    sortedEntries(new Map(seen.map((r) => [String(r.merchant_key), String(r.first)]))),
    `${label}: first seen`,
  ).toEqual(sortedEntries(firstSeen(rows)));

  const stored = await executeRows(
    db,
    sql`select anchor::text as anchor, category, currency, typical_minor::text as typical, count
        from category_typicals where user_id = ${userId}`,
  );
  const anchors = [...new Set(stored.map((r) => String(r.anchor)))].sort();
  for (const anchor of anchors) {
    const got = new Map(
      stored
        .filter((r) => r.anchor === anchor)
        .map((r) => [`${r.category}|${r.currency}`, { typical: Number(r.typical), count: Number(r.count) }]),
    );
    expect(sortedEntries(got), `${label}: typicals at ${anchor}`).toEqual(
      sortedEntries(typicals(rows, anchor)),
    );
  }

  const streams = await executeRows(
    db,
    sql`select account_id, transaction_ids, previous_amount_minor::text as previous,
          price_changed_on::text as since_date, price_change_transaction_id as since_id
        from recurring_streams where user_id = ${userId}`,
  );
  let changed = 0;
  for (const s of streams) {
    const ids = s.transaction_ids as string[];
    const charges = rows
      .filter((r) => r.account === s.account_id && !r.pending && ids.includes(r.providerId))
      .sort((a, b) => b.date.localeCompare(a.date) || (a.id < b.id ? 1 : -1));
    const newest = charges[0];
    const at = charges.findIndex((c) => Math.abs(c.amount) !== Math.abs(newest?.amount ?? 0));
    const want =
      at > 0
        ? {
            previous: String(Math.abs(charges[at]?.amount ?? 0)),
            since_date: charges[at - 1]?.date,
            since_id: charges[at - 1]?.id,
          }
        : { previous: null, since_date: null, since_id: null };
    if (at > 0) changed++;
    expect({ previous: s.previous, since_date: s.since_date, since_id: s.since_id }, label).toEqual(want);
  }
  return { anchors, changed, typicalRows: stored.length };
}

/** The anchors a sync at `at` must have stored: the default range's start that day and the next, in every zone. */
function anchorsOf(at: Date): string[] {
  return ZONES.flatMap((zone) =>
    [0, 1].map((d) => addDays(todayIn(zone, new Date(at.getTime() + d * DAY_MS)), -29)),
  );
}

describe("precomputed values follow every write", () => {
  let userId = "";
  const connections: string[] = [];
  let lastSync = LINKED;

  beforeAll(async () => {
    userId = await createUser(getDb());
    for (const bank of ["ins_platypus", "ins_eurobank"]) {
      connections.push((await linkSandboxBank(getDb(), userId, bank, LINKED, "unusual-1")).connection.id);
    }
  }, 60_000);

  it("after the first syncs and later ones that post pending rows", async () => {
    const first = await expectPrecomputedEqualRaw(userId, "linked");
    expect(first.anchors).toEqual(expect.arrayContaining(anchorsOf(LINKED)));
    expect(first.typicalRows).toBeGreaterThan(20);
    expect(first.changed).toBeGreaterThan(0);
    const pending = await rawRows(userId).then((rows) => rows.filter((r) => r.pending).map((r) => r.id));
    expect(pending.length).toBeGreaterThan(0);
    for (const days of [1, 4, 17]) {
      lastSync = new Date(lastSync.getTime() + days * DAY_MS);
      for (const id of connections) await syncConnection(getDb(), id, { now: lastSync });
      const later = await expectPrecomputedEqualRaw(userId, lastSync.toISOString());
      expect(later.anchors).toEqual(expect.arrayContaining(anchorsOf(lastSync)));
    }
    const stillThere = (await rawRows(userId)).filter((r) => pending.includes(r.id));
    expect(stillThere.length).toBeLessThan(pending.length);
  }, 120_000);

  it("after random inserts, updates of every derived-from column and deletes", async () => {
    const db = getDb();
    const next = random(7);
    const accounts = (
      await db.select({ id: bankAccounts.id }).from(bankAccounts).where(eq(bankAccounts.userId, userId))
    ).map((a) => a.id);
    const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)] as T;
    // Half the picks among the streams' charges, so their price changes move.
    const charges = (
      await executeRows(
        db,
        sql`select t.id from transactions t join recurring_streams s on s.account_id = t.account_id
            and s.transaction_ids ? t.provider_transaction_id where t.user_id = ${userId}`,
      )
    ).map((r) => String(r.id));
    expect(charges.length).toBeGreaterThan(20);
    for (let round = 0; round < 10; round++) {
      await db.insert(transactions).values(
        Array.from({ length: 4 }, (_, i) => ({
          userId,
          accountId: pick(accounts),
          providerTransactionId: `random-${round}-${i}`,
          date: addDays(lastSync.toISOString().slice(0, 10), -Math.floor(next() * 500)),
          name: pick(["Brand New Shop", "Random", "Blue Bottle Coffee"]),
          amountMinor: Math.round((next() - 0.7) * 40_000),
          currency: next() < 0.2 ? "EUR" : "USD",
          category: pick(["groceries", "restaurants", "shopping"]),
          pending: next() < 0.2,
          isTransfer: next() < 0.1,
        })),
      );
      const others = (
        await executeRows(
          db,
          sql`select id from transactions where user_id = ${userId} order by md5(id || ${String(round)}) limit 7`,
        )
      ).map((r) => String(r.id));
      const ids = others.map((id, i) => (i % 2 === 0 ? pick(charges) : id));
      await db.execute(sql`update transactions set amount_minor = amount_minor - 100 where id = ${ids[0]}`);
      await db.execute(sql`update transactions set date = date - 40 where id = ${ids[1]}`);
      await db.execute(sql`update transactions set date = date + 3 where id = ${ids[2]}`);
      await db.execute(sql`update transactions set category = 'fees', currency = 'EUR' where id = ${ids[3]}`);
      await db.execute(
        sql`update transactions set pending = not pending, is_transfer = not is_transfer where id = ${ids[4]}`,
      );
      await db.execute(
        sql`update transactions set merchant_name = 'Renamed' || ${round} where id = ${ids[5]}`,
      );
      await db.execute(sql`delete from transactions where id = ${ids[6]}`);
      await expectPrecomputedEqualRaw(userId, `round ${round}`);
    }
  }, 120_000);

  it("rebuilds to the same values, and follows an account removed", async () => {
    const db = getDb();
    const day = lastSync.toISOString().slice(0, 10);
    await db.execute(sql`select ledgerlink_store_typicals(${userId}, ${day}::date)`);
    const before = await expectPrecomputedEqualRaw(userId, "before the rebuild");
    await db.execute(sql`select ledgerlink_rebuild_unusual(${day}::date)`);
    const after = await expectPrecomputedEqualRaw(userId, "rebuilt");
    expect(after).toEqual(before);
    expect(after.anchors).toEqual(expect.arrayContaining(anchorsOf(lastSync)));
    const [account] = await db
      .select({ id: bankAccounts.id })
      .from(bankAccounts)
      .where(eq(bankAccounts.userId, userId));
    await db.delete(bankAccounts).where(eq(bankAccounts.id, account?.id ?? ""));
    await expectPrecomputedEqualRaw(userId, "account removed");
  }, 60_000);
});

describe("find_unusual_activity on the stored typical amounts", () => {
  const AT = new Date("2025-10-20T09:00:00Z");
  let userId = "";

  beforeAll(async () => {
    userId = await createUser(getDb());
    await linkSandboxBank(getDb(), userId, "ins_platypus", AT, "unusual-2");
    // Two charges far above their category's usual inside the default range, and a first charge
    // at a new merchant on the range's first day (after the anchor: the stored rows stay).
    const [account] = await getDb()
      .select({ id: bankAccounts.id })
      .from(bankAccounts)
      .where(eq(bankAccounts.userId, userId));
    const row = (n: number, date: string, category: string, name: string, amountMinor: number) => ({
      userId,
      accountId: account?.id ?? "",
      providerTransactionId: `hand-${n}`,
      date,
      name,
      amountMinor,
      category,
    });
    await getDb()
      .insert(transactions)
      .values([
        row(1, "2025-10-10", "groceries", "Big Spend", -90_000),
        row(2, "2025-10-11", "restaurants", "Big Spend", -90_000),
        row(3, "2025-09-21", "shopping", "Opening Day Shop", -1_500),
      ]);
  }, 60_000);

  it("counts large charges and new merchants as the raw rows do, stored or not", async () => {
    const db = getDb();
    const ctx = await contextFor(db, userId, AT);
    const args = { kinds: ["large", "new_merchant"], limit: 100 };
    const stored = await callTool(findUnusualActivityTool, args, ctx);

    const rows = await rawRows(userId);
    const { start, end } = stored.data.range;
    const hist = typicals(rows, start);
    const inRange = rows.filter((r) => r.date >= start && r.date <= end && !r.transfer && r.amount < 0);
    const large = inRange.filter((r) => {
      const h = hist.get(`${r.category}|${r.currency}`);
      return h && h.count >= 5 && -r.amount >= Math.max(3 * h.typical, 100 * 10 ** minorUnits(r.currency));
    });
    const seen = firstSeen(rows);
    const newMerchants = new Set(
      inRange.map((r) => r.merchantKey).filter((k) => (seen.get(k) ?? "") >= start),
    );
    expect(start).toBe("2025-09-21");
    expect(newMerchants.has("opening day shop")).toBe(true);
    expect(stored.data.counts).toEqual({ large: large.length, new_merchant: newMerchants.size });
    expect(large.length).toBeGreaterThan(0);
    expect(newMerchants.size).toBeGreaterThan(0);

    // Without stored rows for this range's start, the same answer from the rows.
    const deleted = await executeRows(
      db,
      sql`delete from category_typicals where user_id = ${userId} and anchor = ${start}::date returning 1`,
    );
    expect(deleted.length).toBeGreaterThan(0);
    expect(await callTool(findUnusualActivityTool, args, ctx)).toEqual(stored);

    // The stored values are what it reads: a smaller typical amount makes more charges large.
    await db.execute(sql`select ledgerlink_store_typicals(${userId}, ${end}::date)`);
    await db.execute(sql`update category_typicals set typical_minor = 1 where user_id = ${userId}`);
    const corrupted = await callTool(findUnusualActivityTool, args, ctx);
    expect(corrupted.data.counts.large).toBeGreaterThan(large.length);
  }, 60_000);
});
