/**
 * Transactions changing over time and connections failing: a pending purchase that posts (with
 * a tip) is counted once; a cleaned-up merchant name modifies the same row; re-authorization and
 * other provider errors keep every row; a failure mid-fetch writes nothing; Reconnect heals.
 */
import { and, count, eq, inArray, sql } from "drizzle-orm";
import pg from "pg";
import { describe, expect, it } from "vitest";
import type { Database } from "@/db";
import {
  balanceSnapshots,
  bankAccounts,
  bankConnections,
  liabilities,
  recurringStreams,
  transactions,
} from "@/db/schema";
import { forceReauth, reconnectConnection, syncNow } from "@/lib/banking/connections";
import { type BankProvider, ProviderError } from "@/lib/banking/provider";
import { createSandboxProvider, generateSandboxData } from "@/lib/banking/sandbox";
import { syncConnection } from "@/lib/banking/sync";
import { renewSyncLease, takeSyncLease } from "@/lib/banking/sync/lease";
import { testDatabaseKind, useTestDatabase } from "../helpers/db";
import { createTestUser, linkSandboxBank } from "../helpers/fixtures";

const getDb = useTestDatabase();
const BASE = new Date("2026-03-31T12:00:00Z");
const at = (iso: string) => new Date(`${iso}T12:00:00Z`);

const createUser = async (db: Database) => (await createTestUser(db, "lifecycle")).id;

async function countsOf(db: Database, userId: string) {
  const one = async (
    table:
      | typeof transactions
      | typeof bankAccounts
      | typeof balanceSnapshots
      | typeof liabilities
      | typeof recurringStreams,
  ) => (await db.select({ n: count() }).from(table).where(eq(table.userId, userId)))[0]!.n;
  const [sum] = await db
    .select({ total: sql<string>`coalesce(sum(${transactions.amountMinor}), 0)` })
    .from(transactions)
    .where(eq(transactions.userId, userId));
  return {
    transactions: await one(transactions),
    accounts: await one(bankAccounts),
    snapshots: await one(balanceSnapshots),
    liabilities: await one(liabilities),
    streams: await one(recurringStreams),
    total: Number(sum!.total),
  };
}

describe("transaction lifecycle", () => {
  it("counts a pending purchase once when it posts under a new id with the tip added", async () => {
    const db = getDb();
    const userId = await createUser(db);
    const raw = generateSandboxData(userId, "ins_platypus", BASE);
    // A restaurant bill: pending on its authorization day, posted (bigger, with the tip) later.
    const bill = raw.lifecycles.find(
      (t) =>
        t.category === "restaurants" &&
        t.pendingAmountMinor !== null &&
        t.pendingAmountMinor !== t.amountMinor &&
        t.authorizedDate >= "2026-02-01" &&
        t.postedDate <= "2026-03-25",
    )!;
    expect(bill).toBeDefined();
    const { connection } = await linkSandboxBank(db, userId, "ins_platypus", at(bill.authorizedDate));
    const ids = [bill.pendingId!, bill.id];
    const rowsFor = () =>
      db
        .select()
        .from(transactions)
        .where(and(eq(transactions.userId, userId), inArray(transactions.providerTransactionId, ids)));

    const before = await rowsFor();
    expect(before).toHaveLength(1);
    expect(before[0]).toMatchObject({
      providerTransactionId: bill.pendingId,
      pending: true,
      amountMinor: bill.pendingAmountMinor,
    });

    const summary = await syncNow(db, userId, connection.id, { now: at(bill.postedDate) });
    expect(summary.removed).toBeGreaterThanOrEqual(1);
    const after = await rowsFor();
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({
      providerTransactionId: bill.id,
      pendingTransactionId: bill.pendingId,
      pending: false,
      amountMinor: bill.amountMinor,
    });

    // Restaurant spending of that month equals the raw data's, computed independently.
    const month = bill.postedDate.slice(0, 7);
    const rawView = generateSandboxData(userId, "ins_platypus", at(bill.postedDate));
    const expected = rawView.transactions
      .filter((t) => t.category === "restaurants" && t.date.startsWith(month))
      .reduce((s, t) => s + t.amountMinor, 0);
    const [dbTotal] = await db
      .select({ total: sql<string>`coalesce(sum(${transactions.amountMinor}), 0)` })
      .from(transactions)
      .where(
        and(
          eq(transactions.userId, userId),
          eq(transactions.category, "restaurants"),
          sql`to_char(${transactions.date}, 'YYYY-MM') = ${month}`,
        ),
      );
    expect(Number(dbTotal!.total)).toBe(expected);
  });

  it("replaces the pending row by its posted one even when the provider does not list it as removed", async () => {
    const db = getDb();
    const userId = await createUser(db);
    const raw = generateSandboxData(userId, "ins_platypus", BASE);
    const purchase = raw.lifecycles.find(
      (t) => t.pendingId && t.authorizedDate >= "2026-02-01" && t.postedDate <= "2026-03-25",
    )!;
    const { connection } = await linkSandboxBank(db, userId, "ins_platypus", at(purchase.authorizedDate));
    const sandbox = createSandboxProvider(db);
    const forgetful: BankProvider = {
      ...sandbox,
      syncTransactions: async (token, cursor, ctx) => ({
        ...(await sandbox.syncTransactions(token, cursor, ctx)),
        removed: [],
      }),
    };
    await syncConnection(db, connection.id, { now: at(purchase.postedDate), provider: forgetful });
    const rows = await db
      .select({ id: transactions.providerTransactionId, pending: transactions.pending })
      .from(transactions)
      .where(
        and(
          eq(transactions.userId, userId),
          inArray(transactions.providerTransactionId, [purchase.pendingId!, purchase.id]),
        ),
      );
    expect(rows).toEqual([{ id: purchase.id, pending: false }]);
  });

  it("applies a modification to the same row (merchant name cleaned up after posting)", async () => {
    const db = getDb();
    const userId = await createUser(db);
    const raw = generateSandboxData(userId, "ins_platypus", BASE);
    const coffee = raw.lifecycles.find(
      (t) => t.revision && t.postedDate >= "2026-02-01" && t.revision.date <= "2026-03-30",
    )!;
    expect(coffee).toBeDefined();
    const { connection } = await linkSandboxBank(db, userId, "ins_platypus", at(coffee.postedDate));
    const rowFor = async () =>
      (
        await db
          .select()
          .from(transactions)
          .where(and(eq(transactions.userId, userId), eq(transactions.providerTransactionId, coffee.id)))
      )[0]!;
    const before = await rowFor();
    expect(before.merchantName).toBeNull();
    expect(before.name).toBe(coffee.name);

    const summary = await syncNow(db, userId, connection.id, { now: at(coffee.revision!.date) });
    expect(summary.modified).toBeGreaterThanOrEqual(1);
    const after = await rowFor();
    expect(after.id).toBe(before.id);
    expect(after.merchantName).toBe("Blue Bottle Coffee");
    expect(after.name).toBe("Blue Bottle Coffee");
    expect(after.amountMinor).toBe(before.amountMinor);
    expect(after.updatedAt.getTime()).toBeGreaterThan(before.updatedAt.getTime());
  });
});

describe("connection failures", () => {
  it("keeps all data when the bank needs re-authorization, and Reconnect heals it", async () => {
    const db = getDb();
    const userId = await createUser(db);
    const { connection } = await linkSandboxBank(db, userId, "ins_tartan", BASE);
    const before = await countsOf(db, userId);
    expect(before.transactions).toBeGreaterThan(200);

    const summary = await forceReauth(db, userId, connection.id, { now: BASE });
    expect(summary).toMatchObject({ status: "reauth_required", error: { code: "reauth_required" } });
    const later = new Date(BASE.getTime() + 20 * 86_400_000);
    const again = await syncNow(db, userId, connection.id, { now: later });
    expect(again.status).toBe("reauth_required");
    const [row] = await db.select().from(bankConnections).where(eq(bankConnections.id, connection.id));
    expect(row).toMatchObject({ status: "reauth_required", lastErrorCode: "reauth_required" });
    expect(row!.lastSyncedAt?.toISOString()).toBe(BASE.toISOString());
    expect(row!.lastSyncAttemptAt?.toISOString()).toBe(later.toISOString());
    expect(await countsOf(db, userId)).toEqual(before);

    const healed = await reconnectConnection(db, userId, connection.id, { now: later });
    expect(healed.status).toBe("healthy");
    expect(healed.added).toBeGreaterThan(0);
    const [fixed] = await db.select().from(bankConnections).where(eq(bankConnections.id, connection.id));
    expect(fixed).toMatchObject({ status: "healthy", lastErrorCode: null, lastErrorMessage: null });
    expect(fixed!.lastSyncedAt?.toISOString()).toBe(later.toISOString());
  });

  it("marks other provider errors as `error`, keeps data, and writes nothing from a failed sync", async () => {
    const db = getDb();
    const userId = await createUser(db);
    const { connection } = await linkSandboxBank(db, userId, "ins_platypus", BASE);
    const before = await countsOf(db, userId);
    const [original] = await db.select().from(bankConnections).where(eq(bankConnections.id, connection.id));
    const sandbox = createSandboxProvider(db);
    // Fails after the transactions were already fetched: nothing of this sync may be written.
    const flaky: BankProvider = {
      ...sandbox,
      getRecurringStreams: async () => {
        throw new ProviderError("institution_down", "The institution is not responding.", {
          requestId: "req-42",
        });
      },
    };
    const later = new Date(BASE.getTime() + 30 * 86_400_000);
    const summary = await syncConnection(db, connection.id, { now: later, provider: flaky });
    expect(summary).toMatchObject({
      status: "error",
      error: { code: "institution_down", requestId: "req-42" },
      added: 0,
    });
    const [row] = await db.select().from(bankConnections).where(eq(bankConnections.id, connection.id));
    expect(row).toMatchObject({
      status: "error",
      lastErrorCode: "institution_down",
      syncCursor: original!.syncCursor,
    });
    expect(await countsOf(db, userId)).toEqual(before);

    // The next good sync picks up from the old cursor and becomes healthy.
    const good = await syncConnection(db, connection.id, { now: later });
    expect(good.status).toBe("healthy");
    expect(good.added).toBeGreaterThan(30);
    const raw = generateSandboxData(userId, "ins_platypus", later);
    const accounts = await db.select().from(bankAccounts).where(eq(bankAccounts.userId, userId));
    for (const a of raw.accounts) {
      expect(accounts.find((r) => r.providerAccountId === a.providerAccountId)!.currentBalanceMinor).toBe(
        a.currentBalanceMinor,
      );
    }
  });

  it("refuses to force re-authorization in production", async () => {
    const db = getDb();
    const userId = await createUser(db);
    const { connection } = await linkSandboxBank(db, userId, "ins_tartan", BASE);
    const { resetEnvCache } = await import("@/lib/env");
    const previous = process.env.NODE_ENV;
    try {
      (process.env as Record<string, string>).NODE_ENV = "production";
      resetEnvCache();
      await expect(forceReauth(db, userId, connection.id, { now: BASE })).rejects.toMatchObject({
        code: "forbidden",
      });
    } finally {
      (process.env as Record<string, string | undefined>).NODE_ENV = previous;
      resetEnvCache();
    }
    const [row] = await db.select().from(bankConnections).where(eq(bankConnections.id, connection.id));
    expect(row!.status).toBe("healthy");
  });
});

describe("sync lease", () => {
  it("is moved at once, without waiting, while a transaction holds the connection's row (the sync's own write)", async () => {
    const db = getDb();
    const userId = await createUser(db);
    const { connection } = await linkSandboxBank(db, userId, "ins_tartan", BASE);
    const leaseOf = async () =>
      (await db.select().from(bankConnections).where(eq(bankConnections.id, connection.id)))[0]!
        .syncLeaseUntil;
    const leaseHolder = "holder-lifecycle";
    expect(await takeSyncLease(db, connection.id, leaseHolder, new Date())).not.toBeNull();
    const first = new Date(Date.now() + 60_000);
    expect(await renewSyncLease(db, connection.id, leaseHolder, first)).toBe(true);
    // Only its holder moves a lease.
    expect(await renewSyncLease(db, connection.id, "someone-else", new Date(first.getTime() + 1))).toBe(
      false,
    );
    expect(await leaseOf()).toEqual(first);
    // PGlite has one connection: no other transaction can hold the row while a statement runs.
    if (testDatabaseKind() !== "postgres") return;
    const holder = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await holder.connect();
    try {
      await holder.query("begin");
      await holder.query("select id from bank_connections where id = $1 for update", [connection.id]);
      // Answered while the lock is still held: waiting for it would end at the statement bound
      // (57014), logged as a failure every 20 s of a long first sync.
      expect(await renewSyncLease(db, connection.id, leaseHolder, new Date(first.getTime() + 20_000))).toBe(
        false,
      );
      await holder.query("rollback");
    } finally {
      await holder.end();
    }
    expect(await leaseOf()).toEqual(first);
    const later = new Date(first.getTime() + 40_000);
    expect(await renewSyncLease(db, connection.id, leaseHolder, later)).toBe(true);
    expect(await leaseOf()).toEqual(later);
  });
});
