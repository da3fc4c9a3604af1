/**
 * The sync engine against the sandbox bank: the first sync stores exactly what the bank shows
 * (checked against the raw generator), a second sync changes nothing, paging gives the same
 * result, snapshots match balances derived independently, tokens are encrypted, and every
 * service function is scoped by user.
 */
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Database } from "@/db";
import {
  balanceSnapshots,
  bankAccounts,
  bankConnections,
  holdings,
  investmentTransactions,
  liabilities,
  recurringStreams,
  sandboxItems,
  transactions,
} from "@/db/schema";
import { removeConnection, syncNow } from "@/lib/banking/connections";
import { createSandboxProvider, generateSandboxData } from "@/lib/banking/sandbox";
import { buildSandboxWorld, transactionsOn } from "@/lib/banking/sandbox/world";
import { syncConnection } from "@/lib/banking/sync";
import { testDatabaseKind, useTestDatabase } from "../helpers/db";
import { createTestUser, linkSandboxBank } from "../helpers/fixtures";

const getDb = useTestDatabase();
const NOW = new Date("2026-06-30T12:00:00Z");
const dayMs = 86_400_000;
const isoPlus = (iso: string, days: number) =>
  new Date(Date.parse(`${iso}T00:00:00Z`) + days * dayMs).toISOString().slice(0, 10);

const createUser = async (db: Database) => (await createTestUser(db, "sync")).id;

async function accountMap(db: Database, userId: string, connectionId: string) {
  const rows = await db
    .select()
    .from(bankAccounts)
    .where(and(eq(bankAccounts.userId, userId), eq(bankAccounts.connectionId, connectionId)));
  return new Map(rows.map((r) => [r.providerAccountId, r]));
}

/** Everything the sync wrote for a user, in a stable order. */
async function dump(db: Database, userId: string) {
  const order = <T extends { id: string }>(rows: T[]) => rows.sort((a, b) => a.id.localeCompare(b.id));
  return {
    accounts: order(await db.select().from(bankAccounts).where(eq(bankAccounts.userId, userId))),
    transactions: order(await db.select().from(transactions).where(eq(transactions.userId, userId))),
    holdings: order(await db.select().from(holdings).where(eq(holdings.userId, userId))),
    investmentTransactions: order(
      await db.select().from(investmentTransactions).where(eq(investmentTransactions.userId, userId)),
    ),
    liabilities: await db
      .select()
      .from(liabilities)
      .where(eq(liabilities.userId, userId))
      .orderBy(asc(liabilities.accountId)),
    streams: order(await db.select().from(recurringStreams).where(eq(recurringStreams.userId, userId))),
    snapshots: await db
      .select()
      .from(balanceSnapshots)
      .where(eq(balanceSnapshots.userId, userId))
      .orderBy(asc(balanceSnapshots.accountId), asc(balanceSnapshots.date)),
  };
}

describe("first sync", () => {
  it("stores exactly the transactions, accounts and balances the bank shows", async () => {
    const db = getDb();
    const userId = await createUser(db);
    const { connection, sync } = await linkSandboxBank(db, userId, "ins_platypus", NOW);
    const expected = generateSandboxData(userId, "ins_platypus", NOW);
    expect(sync.status).toBe("healthy");
    expect(sync.added).toBe(expected.transactions.length);
    expect(connection.status).toBe("healthy");
    expect(connection.lastSyncedAt?.toISOString()).toBe(NOW.toISOString());
    expect(connection.institutionName).toBe("First Platypus Bank");

    const accounts = await accountMap(db, userId, connection.id);
    expect(accounts.size).toBe(expected.accounts.length);
    for (const a of expected.accounts) {
      const row = accounts.get(a.providerAccountId)!;
      expect(row.currentBalanceMinor).toBe(a.currentBalanceMinor);
      expect(row.availableBalanceMinor).toBe(a.availableBalanceMinor);
      expect(row.type).toBe(a.type);
    }

    const rows = await db.select().from(transactions).where(eq(transactions.userId, userId));
    const key = (t: { providerTransactionId: string; amountMinor: number; date: string; pending: boolean }) =>
      `${t.providerTransactionId}|${t.amountMinor}|${t.date}|${t.pending}`;
    expect(rows.map(key).sort()).toEqual(expected.transactions.map(key).sort());
    // Per-account totals to the cent.
    for (const [providerAccountId, account] of accounts) {
      const dbSum = rows.filter((r) => r.accountId === account.id).reduce((s, r) => s + r.amountMinor, 0);
      const rawSum = expected.transactions
        .filter((t) => t.providerAccountId === providerAccountId)
        .reduce((s, t) => s + t.amountMinor, 0);
      expect(dbSum).toBe(rawSum);
    }
  });

  it("writes today's snapshot and a history that matches balances derived from the transactions", async () => {
    const db = getDb();
    const userId = await createUser(db);
    const { connection } = await linkSandboxBank(db, userId, "ins_platypus", NOW);
    const expected = generateSandboxData(userId, "ins_platypus", NOW);
    const accounts = await accountMap(db, userId, connection.id);
    const snapshots = await db.select().from(balanceSnapshots).where(eq(balanceSnapshots.userId, userId));
    const today = expected.asOf;
    for (const a of expected.accounts) {
      const accountId = accounts.get(a.providerAccountId)!.id;
      const own = snapshots.filter((s) => s.accountId === accountId);
      expect(own.find((s) => s.date === today)?.currentBalanceMinor).toBe(a.currentBalanceMinor);
      expect(own.length).toBeGreaterThanOrEqual(700);
      if (a.type !== "depository" && a.type !== "credit") continue;
      // Independent derivation: the balance at the end of day d = today's − what posted after d.
      for (const d of [isoPlus(expected.windowStart, 10), "2025-06-30", "2026-01-31", isoPlus(today, -1)]) {
        const after = expected.transactions
          .filter((t) => t.providerAccountId === a.providerAccountId && !t.pending && t.date > d)
          .reduce((s, t) => s + t.amountMinor, 0);
        const derived = a.type === "credit" ? a.currentBalanceMinor! + after : a.currentBalanceMinor! - after;
        expect(own.find((s) => s.date === d)?.currentBalanceMinor, `${a.name} on ${d}`).toBe(derived);
      }
    }
    // The mortgage's history falls month by month (payments on the 1st).
    const mortgageId = accounts.get("plat_mortgage")!.id;
    const mortgage = snapshots
      .filter((s) => s.accountId === mortgageId)
      .sort((x, y) => x.date.localeCompare(y.date));
    expect(mortgage[0]!.currentBalanceMinor).toBeGreaterThan(mortgage.at(-1)!.currentBalanceMinor);
  });

  it("stores holdings, securities, investment transactions, liabilities and recurring streams", async () => {
    const db = getDb();
    const userId = await createUser(db);
    const hound = await linkSandboxBank(db, userId, "ins_houndstooth", NOW);
    const tartan = await linkSandboxBank(db, userId, "ins_tartan", NOW);
    const rawHound = generateSandboxData(userId, "ins_houndstooth", NOW);
    const rawTartan = generateSandboxData(userId, "ins_tartan", NOW);

    const houndAccounts = await accountMap(db, userId, hound.connection.id);
    const holdingRows = await db.select().from(holdings).where(eq(holdings.userId, userId));
    expect(holdingRows.length).toBe(rawHound.holdings.length);
    for (const [providerAccountId, account] of houndAccounts) {
      const total = holdingRows
        .filter((h) => h.accountId === account.id)
        .reduce((s, h) => s + h.valueMinor, 0);
      expect(total).toBe(account.currentBalanceMinor);
      const rawCost = rawHound.holdings
        .filter((h) => h.providerAccountId === providerAccountId)
        .reduce((s, h) => s + (h.costBasisMinor ?? 0), 0);
      const dbCost = holdingRows
        .filter((h) => h.accountId === account.id)
        .reduce((s, h) => s + (h.costBasisMinor ?? 0), 0);
      expect(dbCost).toBe(rawCost);
    }
    const since = isoPlus(rawHound.asOf, -730);
    const invRows = await db
      .select()
      .from(investmentTransactions)
      .where(eq(investmentTransactions.userId, userId));
    expect(invRows.length).toBe(rawHound.investmentTransactions.filter((t) => t.date >= since).length);
    expect(new Set(invRows.map((t) => t.type))).toEqual(new Set(["buy", "sell", "dividend", "cash"]));

    const tartanAccounts = await accountMap(db, userId, tartan.connection.id);
    const liabilityRows = await db.select().from(liabilities).where(eq(liabilities.userId, userId));
    expect(liabilityRows.length).toBe(rawTartan.liabilities.length);
    for (const l of rawTartan.liabilities) {
      const row = liabilityRows.find((r) => r.accountId === tartanAccounts.get(l.providerAccountId)!.id)!;
      expect(row.kind).toBe(l.kind);
      expect(Number(row.aprPercentage)).toBe(Number(l.aprPercentage));
      expect(row.minimumPaymentMinor).toBe(l.minimumPaymentMinor);
      expect(row.nextPaymentDueDate).toBe(l.nextPaymentDueDate);
    }
    const streams = await db
      .select()
      .from(recurringStreams)
      .where(
        and(eq(recurringStreams.userId, userId), eq(recurringStreams.connectionId, tartan.connection.id)),
      );
    expect(streams.map((s) => s.providerStreamId).sort()).toEqual(
      rawTartan.recurringStreams.map((s) => s.providerStreamId).sort(),
    );
  });

  it("keeps the access token encrypted at rest", async () => {
    const db = getDb();
    const userId = await createUser(db);
    const { connection } = await linkSandboxBank(db, userId, "ins_tartan", NOW);
    const [row] = await db.select().from(bankConnections).where(eq(bankConnections.id, connection.id));
    expect(row!.accessTokenCiphertext).not.toContain("access-sandbox");
    expect(Buffer.from(row!.accessTokenCiphertext, "base64url").toString("latin1")).not.toContain(
      "access-sandbox",
    );
    expect(Number.isInteger(row!.accessTokenKeyVersion)).toBe(true);
  });
});

describe("later syncs", () => {
  it("is idempotent: syncing again on the same day changes nothing", async () => {
    const db = getDb();
    const userId = await createUser(db);
    const { connection } = await linkSandboxBank(db, userId, "ins_platypus", NOW);
    await linkSandboxBank(db, userId, "ins_houndstooth", NOW);
    const before = await dump(db, userId);
    const summary = await syncNow(db, userId, connection.id, { now: NOW });
    expect(summary).toMatchObject({ status: "healthy", added: 0, modified: 0, removed: 0 });
    const after = await dump(db, userId);
    expect(after).toEqual(before);
  });

  it("pages through many changes and ends with exactly what the bank shows", async () => {
    const db = getDb();
    const userId = await createUser(db);
    const { connection } = await linkSandboxBank(db, userId, "ins_platypus", NOW);
    const later = new Date(NOW.getTime() + 60 * dayMs);
    const paged = createSandboxProvider(db, { pageSize: 25 });
    const summary = await syncConnection(db, connection.id, { now: later, provider: paged });
    expect(summary.status).toBe("healthy");
    expect(summary.added).toBeGreaterThan(50);
    const expected = generateSandboxData(userId, "ins_platypus", later);
    const rows = await db.select().from(transactions).where(eq(transactions.userId, userId));
    // The history window keeps the first sync's start: the bank's view on the later day from that start.
    const first = generateSandboxData(userId, "ins_platypus", NOW);
    const dayOfIso = (iso: string) => Date.parse(`${iso}T00:00:00Z`) / dayMs;
    const visible = transactionsOn(
      buildSandboxWorld(userId, "ins_platypus", dayOfIso(expected.asOf)),
      dayOfIso(first.windowStart),
      dayOfIso(expected.asOf),
    );
    expect(visible.length).toBeGreaterThan(expected.transactions.length);
    const key = (t: { providerTransactionId: string; amountMinor: number; merchantName: string | null }) =>
      `${t.providerTransactionId}|${t.amountMinor}|${t.merchantName}`;
    expect(rows.map(key).sort()).toEqual(visible.map(key).sort());
    const accounts = await accountMap(db, userId, connection.id);
    for (const a of expected.accounts) {
      expect(accounts.get(a.providerAccountId)!.currentBalanceMinor).toBe(a.currentBalanceMinor);
    }
    // Snapshots filled every day in between.
    const checkingId = accounts.get("plat_checking")!.id;
    const days = await db
      .select({ date: balanceSnapshots.date })
      .from(balanceSnapshots)
      .where(and(eq(balanceSnapshots.userId, userId), eq(balanceSnapshots.accountId, checkingId)));
    const dates = new Set(days.map((d) => d.date));
    for (let d = expected.asOf; d > first.asOf; d = isoPlus(d, -1)) expect(dates.has(d), d).toBe(true);
  });
});

describe("scoping and removal", () => {
  it("refuses another user's connection and removes one's own with all its data", async () => {
    const db = getDb();
    const owner = await createUser(db);
    const stranger = await createUser(db);
    const { connection } = await linkSandboxBank(db, owner, "ins_tartan", NOW);
    await expect(syncNow(db, stranger, connection.id, { now: NOW })).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(removeConnection(db, stranger, connection.id)).rejects.toMatchObject({ code: "not_found" });
    const accountIds = [...(await accountMap(db, owner, connection.id)).values()].map((a) => a.id);
    expect(accountIds.length).toBe(3);

    await removeConnection(db, owner, connection.id, { now: NOW });
    expect(await db.select().from(bankConnections).where(eq(bankConnections.id, connection.id))).toEqual([]);
    expect(await db.select().from(bankAccounts).where(inArray(bankAccounts.id, accountIds))).toEqual([]);
    expect(await db.select().from(transactions).where(eq(transactions.userId, owner))).toEqual([]);
    expect(await db.select().from(balanceSnapshots).where(eq(balanceSnapshots.userId, owner))).toEqual([]);
    expect(
      await db.select().from(sandboxItems).where(eq(sandboxItems.itemId, connection.providerItemId)),
    ).toEqual([]);
  });
});

describe.runIf(testDatabaseKind() === "pglite")("maintenance of embedded PGlite (no autovacuum)", () => {
  /** How often `transactions` was analyzed and vacuumed by hand so far. */
  const maintained = async (db: Database) => {
    const [row] = z
      .object({ rows: z.array(z.object({ analyzed: z.coerce.number(), vacuumed: z.coerce.number() })) })
      .parse(
        await db.execute(
          sql`select analyze_count as analyzed, vacuum_count as vacuumed from pg_stat_user_tables
              where relname = 'transactions'`,
        ),
      ).rows;
    return row;
  };

  it("vacuums and analyzes after a sync that wrote a bank's history, and not after one that wrote nothing", async () => {
    const db = getDb();
    const userId = await createUser(db);
    const before = await maintained(db);
    const { connection } = await linkSandboxBank(db, userId, "ins_platypus", NOW);
    const afterLink = await maintained(db);
    expect(afterLink).toEqual({
      analyzed: (before?.analyzed ?? 0) + 1,
      vacuumed: (before?.vacuumed ?? 0) + 1,
    });
    const summary = await syncNow(db, userId, connection.id, { now: NOW });
    expect(summary).toMatchObject({ added: 0, modified: 0, removed: 0 });
    expect(await maintained(db)).toEqual(afterLink);
  });

  it("vacuums once the rows of many small syncs add up, not after each", async () => {
    const db = getDb();
    const userId = await createUser(db);
    const { connection } = await linkSandboxBank(db, userId, "ins_platypus", NOW);
    const start = await maintained(db);
    let written = 0;
    let day = 0;
    // One day at a time: a few transactions and a snapshot per account each.
    while (day < 400) {
      day += 1;
      const summary = await syncConnection(db, connection.id, {
        now: new Date(NOW.getTime() + day * 86_400_000),
      });
      if (summary.status !== "healthy") throw new Error(`day ${day}: ${summary.status}`);
      const rows = summary.added + summary.modified + summary.removed + summary.snapshots;
      expect(rows).toBeLessThan(1000);
      written += rows;
      const now = await maintained(db);
      if (now?.vacuumed !== start?.vacuumed) {
        // On the sync that brought the rows since the link to 1,000, and only once.
        expect(written).toBeGreaterThanOrEqual(1000);
        expect(written - rows).toBeLessThan(1000);
        expect(now).toEqual({ analyzed: (start?.analyzed ?? 0) + 1, vacuumed: (start?.vacuumed ?? 0) + 1 });
        return;
      }
    }
    throw new Error(`no vacuum after ${day} days (${written} rows)`);
  });
});
