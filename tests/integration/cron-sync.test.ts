/**
 * Scheduled sync: GET /api/cron/sync (Vercel Cron's `Authorization: Bearer <CRON_SECRET>`) and
 * the selection of due connections behind it (stale data, not needing the user, not retried too
 * soon, oldest first, at most the batch size).
 */
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { bankConnections } from "@/db/schema";
import { findDueConnections } from "@/lib/banking/sync/lease";
import { syncDueConnections } from "@/lib/banking/sync-due";
import { resetEnvCache } from "@/lib/env";
import { testDatabaseKind, useTestDatabase, whileDatabaseDown } from "@/tests/helpers/db";
import { createTestUser, linkPlaidItem, usePlaidFake } from "@/tests/helpers/fixtures";

const getDb = useTestDatabase();
const SECRET = `cron-${randomUUID()}`;
const HOUR = 3600_000;

const plaid = usePlaidFake({
  routes: { "/api/cron/sync": () => import("@/app/api/cron/sync/route") },
  env: { CRON_SECRET: SECRET, SYNC_STALE_AFTER_MINUTES: "360" },
});

async function userWithConnections(count: number) {
  const db = getDb();
  const { id: userId } = await createTestUser(db, "cron", { subscription: "active" });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await linkPlaidItem(db, plaid.fake, userId)).connectionId);
  return { userId, ids };
}

const get = (headers: Record<string, string>) =>
  fetch(plaid.server.url("/api/cron/sync"), { headers }).then(async (r) => ({
    status: r.status,
    body: await r.json(),
  }));

describe("GET /api/cron/sync", () => {
  it("refuses a missing, wrong or malformed bearer with 401", async () => {
    const attempts: Array<Record<string, string>> = [
      {},
      { authorization: `Bearer wrong-${SECRET}` },
      { authorization: `Bearer ${SECRET.slice(0, -1)}` },
      { authorization: `bearer ${SECRET}` },
      { authorization: `Bearer  ${SECRET}` },
      { authorization: SECRET },
      { authorization: `Basic ${Buffer.from(`x:${SECRET}`).toString("base64")}` },
    ];
    for (const headers of attempts) {
      const res = await get(headers);
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(res.body.error).toBe("unauthorized");
    }
  });

  it("refuses everything when CRON_SECRET is unset", async () => {
    process.env.CRON_SECRET = "";
    resetEnvCache();
    try {
      expect((await get({ authorization: "Bearer " })).status).toBe(401);
      expect((await get({ authorization: `Bearer ${SECRET}` })).status).toBe(401);
    } finally {
      process.env.CRON_SECRET = SECRET;
      resetEnvCache();
    }
  });

  it("the database down: 503 with Retry-After", async () => {
    await whileDatabaseDown(async () => {
      const res = await fetch(plaid.server.url("/api/cron/sync"), {
        headers: { authorization: `Bearer ${SECRET}` },
      });
      expect(res.status).toBe(503);
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    });
  });

  // On the shared Postgres server other test files' connections are due too: the open route
  // would sync them. Its database-wide run is checked on the per-file PGlite only.
  it.skipIf(testDatabaseKind() === "postgres")(
    "with the right secret syncs the stale connections",
    async () => {
      const { ids } = await userWithConnections(2);
      const stale = new Date(Date.now() - 7 * HOUR);
      await getDb()
        .update(bankConnections)
        .set({ lastSyncedAt: stale, lastSyncAttemptAt: stale })
        .where(eq(bankConnections.id, ids[0]!));
      const res = await get({ authorization: `Bearer ${SECRET}` });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ due: 1, synced: 1, failed: 0, skipped: 0 });
      expect(res.body.results).toEqual([{ connectionId: ids[0], outcome: "synced", status: "healthy" }]);
      const [row] = await getDb().select().from(bankConnections).where(eq(bankConnections.id, ids[0]!));
      expect(row?.lastSyncedAt?.getTime()).toBeGreaterThan(stale.getTime());
      expect(JSON.stringify(res.body)).not.toMatch(/access-sandbox-/);
    },
  );
});

describe("sync leases", () => {
  it("a running sync's lease keeps it from being picked; a killed sync's lease runs out and it is retried", async () => {
    const db = getDb();
    const { userId, ids } = await userWithConnections(3);
    const [running, killed, done] = ids as [string, string, string];
    const now = new Date();
    const staleSync = { lastSyncedAt: new Date(now.getTime() - 24 * HOUR) };
    const set = (id: string, values: Partial<typeof bankConnections.$inferInsert>) =>
      db.update(bankConnections).set(values).where(eq(bankConnections.id, id));
    // running: started 20 s ago, its lease ahead. killed: started 2 min ago, its lease run out (a
    // killed process never released it). done: no lease.
    await set(running, {
      ...staleSync,
      lastSyncAttemptAt: new Date(now.getTime() - 20_000),
      syncLeaseUntil: new Date(now.getTime() + 40_000),
    });
    await set(killed, {
      ...staleSync,
      lastSyncAttemptAt: new Date(now.getTime() - 2 * 60_000),
      syncLeaseUntil: new Date(now.getTime() - 60_000),
    });
    await set(done, staleSync);
    expect((await findDueConnections(db, { now, userIds: [userId] })).sort()).toEqual([killed, done].sort());
    // A sync that ends releases its lease.
    const report = await syncDueConnections(db, { now, userIds: [userId] });
    expect(report).toMatchObject({ due: 2, synced: 2, failed: 0, skipped: 0 });
    const rows = await db.select().from(bankConnections).where(eq(bankConnections.userId, userId));
    expect(rows.filter((r) => r.id !== running).map((r) => r.syncLeaseUntil)).toEqual([null, null]);
  });
});

describe("syncDueConnections", () => {
  it("picks stale healthy/erroring connections, oldest first, skips reauth/disconnected/recently tried, caps the batch", async () => {
    const db = getDb();
    const { userId, ids } = await userWithConnections(6);
    const [oldest, older, fresh, reauth, triedRecently, erroring] = ids as [
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const now = new Date();
    const set = (id: string, values: Partial<typeof bankConnections.$inferInsert>) =>
      db.update(bankConnections).set(values).where(eq(bankConnections.id, id));
    await set(oldest, {
      lastSyncedAt: new Date(now.getTime() - 48 * HOUR),
      lastSyncAttemptAt: new Date(now.getTime() - 48 * HOUR),
    });
    await set(older, {
      lastSyncedAt: new Date(now.getTime() - 24 * HOUR),
      lastSyncAttemptAt: new Date(now.getTime() - 24 * HOUR),
    });
    await set(fresh, {
      lastSyncedAt: new Date(now.getTime() - 1 * HOUR),
      lastSyncAttemptAt: new Date(now.getTime() - 1 * HOUR),
    });
    await set(reauth, {
      status: "reauth_required",
      lastSyncedAt: new Date(now.getTime() - 72 * HOUR),
      lastSyncAttemptAt: new Date(now.getTime() - 72 * HOUR),
    });
    await set(triedRecently, {
      status: "error",
      lastSyncedAt: new Date(now.getTime() - 30 * HOUR),
      lastSyncAttemptAt: new Date(now.getTime() - 2 * 60_000),
    });
    await set(erroring, {
      status: "error",
      lastSyncedAt: new Date(now.getTime() - 12 * HOUR),
      lastSyncAttemptAt: new Date(now.getTime() - 30 * 60_000),
    });

    expect(await findDueConnections(db, { now, userIds: [userId], batchSize: 10 })).toEqual([
      oldest,
      older,
      erroring,
    ]);

    const report = await syncDueConnections(db, { now, userIds: [userId], batchSize: 2 });
    expect(report).toMatchObject({ due: 2, synced: 2, failed: 0 });
    expect(report.results.map((r) => r.connectionId).sort()).toEqual([oldest, older].sort());
    // Synced now, so no longer due; the erroring one is next.
    expect(await findDueConnections(db, { now, userIds: [userId], batchSize: 10 })).toEqual([erroring]);

    // A failing bank is recorded, the run goes on, and it is not retried for a while.
    const [row] = await db.select().from(bankConnections).where(eq(bankConnections.id, erroring));
    const item = [...plaid.fake.items.values()].find((i) => i.itemId === row?.providerItemId)!;
    plaid.fake.setItemError(item.itemId, "INSTITUTION_DOWN");
    const failing = await syncDueConnections(db, { now, userIds: [userId] });
    expect(failing).toMatchObject({ due: 1, synced: 0, failed: 1 });
    expect(failing.results[0]).toMatchObject({
      connectionId: erroring,
      status: "error",
      error: "institution_down",
    });
    expect(await findDueConnections(db, { now, userIds: [userId] })).toEqual([]);
    const later = new Date(now.getTime() + 11 * 60_000);
    // Ten minutes on, both erroring banks are retried, the one with older data first.
    expect(await findDueConnections(db, { now: later, userIds: [userId] })).toEqual([
      triedRecently,
      erroring,
    ]);
  });
});
