/**
 * One sync per connection at a time, and every sync finishes (issue 34 §5): the lease is taken
 * conditionally (a second sync — a webhook, "Sync now", another cron — is refused before any
 * provider call and says a sync is already running); cron runs claim their batch atomically, so
 * two at once (two database pools, as two servers) split the due connections; the report counts
 * what was synced, failed and skipped; a lease left behind by a killed sync makes the connection
 * due again once it runs out, whatever its status. Provider calls are counted on the Plaid fake.
 */
import { generateKeyPairSync, randomUUID } from "node:crypto";
import { eq, inArray } from "drizzle-orm";
import pg from "pg";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { type Database, openDatabase } from "@/db";
import { bankConnections, transactions } from "@/db/schema";
import { IDLE } from "@/lib/action-state";
import { syncNow } from "@/lib/banking/connections";
import type { BankProvider } from "@/lib/banking/provider";
import { getProvider } from "@/lib/banking/registry";
import { syncConnection } from "@/lib/banking/sync";
import {
  claimDueConnections,
  findDueConnections,
  releaseSyncLease,
  takeSyncLease,
} from "@/lib/banking/sync/lease";
import { syncDueConnections } from "@/lib/banking/sync-due";
import { resetEnvCache } from "@/lib/env";
import { testDatabaseKind, useTestDatabase } from "@/tests/helpers/db";
import { createTestUser, linkPlaidItem, usePlaidFake } from "@/tests/helpers/fixtures";
import { signPlaidWebhook } from "../fixtures/plaid-fake";

// The dashboard's Sync now runs as the real server action; only Next's request context is stood in for.
const request = vi.hoisted(() => ({
  user: null as { id: string; email: string | null; name: string | null } | null,
}));
vi.mock("next/headers", () => ({ headers: async () => new Headers({ origin: "http://localhost:3999" }) }));
vi.mock("next/cache", () => ({ revalidatePath: () => undefined }));
vi.mock("@/lib/auth", () => ({ getSessionUser: async () => request.user }));
const { syncBankAction } = await import("@/app/dashboard/banks/actions");

const getDb = useTestDatabase();
const HOUR = 3600_000;
const KID = `kid-${randomUUID()}`;

const plaid = usePlaidFake({
  routes: { "/api/webhooks/plaid": () => import("@/app/api/webhooks/plaid/route") },
  env: { APP_URL: "http://localhost:3999" },
});

const { privateKey: webhookKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
beforeAll(() => {
  plaid.fake.addWebhookKey({ ...publicKey.export({ format: "jwk" }), kid: KID });
});

/**
 * A second pool on the same database, as a second server has (PostgreSQL). PGlite is one
 * in-process database with one connection: there the second "server" shares it.
 */
async function secondServerDb(): Promise<{ db: Database; close: () => Promise<void> }> {
  if (testDatabaseKind() !== "postgres") return { db: getDb(), close: async () => {} };
  const handle = await openDatabase({ url: process.env.TEST_DATABASE_URL, migrate: false });
  return { db: handle.db, close: () => handle.close() };
}

/** Requests the Plaid fake received for one item (its access token), by path. */
function callsFor(accessToken: string): string[] {
  return plaid.fake.requests.filter((r) => r.body.access_token === accessToken).map((r) => r.path);
}

async function userWithItems(count: number) {
  const db = getDb();
  const { id: userId } = await createTestUser(db, "lease", { subscription: "active" });
  const items: Array<{ connectionId: string; accessToken: string; itemId: string }> = [];
  for (let i = 0; i < count; i++) {
    const { connectionId, item } = await linkPlaidItem(db, plaid.fake, userId);
    items.push({ connectionId, accessToken: item.accessToken, itemId: item.itemId });
  }
  return { userId, items };
}

const setRow = (db: Database, ids: string[], values: Partial<typeof bankConnections.$inferInsert>) =>
  db.update(bankConnections).set(values).where(inArray(bankConnections.id, ids));

const rowOf = async (id: string) =>
  (await getDb().select().from(bankConnections).where(eq(bankConnections.id, id)))[0]!;

/** The registry's Plaid provider, whose first `getAccounts` waits for `open()`. */
function gatedPlaidProvider(db: Database) {
  const real = getProvider("plaid", db);
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let entered!: () => void;
  const started = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const provider = new Proxy(real, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (key !== "getAccounts" || typeof value !== "function") return value;
      return async (...args: unknown[]) => {
        entered();
        await gate;
        return value.apply(target, args);
      };
    },
  }) as BankProvider;
  return { provider, open, started };
}

/** Plaid's SYNC_UPDATES_AVAILABLE for `itemId`, signed, posted to the real webhook route; its JSON answer. */
/** The signing second of the last delivery: each one is signed at least a second before it. */
let lastIat = Number.POSITIVE_INFINITY;

/**
 * Plaid's SYNC_UPDATES_AVAILABLE for `itemId`, as a new delivery. A delivery is known by its body
 * and its signing second (lib/banking/plaid/webhooks.ts): two of the same body signed in the same
 * second are one delivery sent twice, which a quick second pass made of this test's two webhooks.
 */
async function postSyncWebhook(itemId: string): Promise<unknown> {
  const body = JSON.stringify({
    webhook_type: "TRANSACTIONS",
    webhook_code: "SYNC_UPDATES_AVAILABLE",
    item_id: itemId,
    initial_update_complete: true,
    historical_update_complete: true,
    environment: "sandbox",
  });
  lastIat = Math.min(Math.floor(Date.now() / 1000), lastIat - 1);
  const res = await fetch(plaid.server.url("/api/webhooks/plaid"), {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "plaid-verification": signPlaidWebhook(body, {
        privateKey: webhookKey,
        kid: KID,
        iat: lastIat,
      }),
    },
    body,
  });
  expect(res.status).toBe(200);
  return res.json();
}

/** A new posted transaction at the fake, like the item's first one. */
function addFakeTransaction(itemId: string): string {
  const item = plaid.fake.items.get(itemId)!;
  const id = `tx-late-${randomUUID()}`;
  plaid.fake.addTransactions(itemId, [
    { ...item.data.transactions[0]!, transaction_id: id, pending: false, pending_transaction_id: null },
  ]);
  return id;
}

const providerIdsOf = async (userId: string) =>
  (
    await getDb()
      .select({ id: transactions.providerTransactionId })
      .from(transactions)
      .where(eq(transactions.userId, userId))
  ).map((r) => r.id);

/**
 * Holds every sync after its /transactions/sync pages: `/investments/holdings/get` (the next call)
 * answers after `ms`. Returns a wait for the n-th such call of `accessToken` since now.
 */
function holdAfterPages(accessToken: string, ms: number) {
  plaid.fake.setLatency("/investments/holdings/get", ms);
  const from = callsFor(accessToken).length;
  return {
    pagesRead: (n: number) =>
      until(
        async () =>
          callsFor(accessToken)
            .slice(from)
            .filter((p) => p === "/investments/holdings/get").length >= n,
        10_000,
      ),
    fetches: () =>
      callsFor(accessToken)
        .slice(from)
        .filter((p) => p === "/transactions/sync").length,
    release: () => plaid.fake.setLatency("/investments/holdings/get", 0),
  };
}

/** Waits for `check` to hold, at most `ms`. */
async function until(check: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("the lease", () => {
  it("is taken by one sync at a time; a second sync, Sync now and a webhook are refused without calling the provider", async () => {
    const db = getDb();
    const { userId, items } = await userWithItems(1);
    const { connectionId, accessToken, itemId } = items[0]!;
    const syncNowForm = new FormData();
    syncNowForm.set("connectionId", connectionId);
    const gated = gatedPlaidProvider(db);
    const running = syncConnection(db, connectionId, { provider: gated.provider });
    await gated.started;
    const held = await rowOf(connectionId);
    expect(held.syncLeaseHolder).toBeTruthy();
    expect(held.syncLeaseUntil!.getTime()).toBeGreaterThan(Date.now());
    const before = callsFor(accessToken).length;

    const second = await syncConnection(db, connectionId);
    expect(second).toMatchObject({ connectionId, skipped: "already_running", added: 0 });
    const now = await syncNow(db, userId, connectionId);
    expect(now.skipped).toBe("already_running");
    request.user = { id: userId, email: null, name: null };
    expect(await syncBankAction(IDLE, syncNowForm)).toMatchObject({
      status: "ok",
      message: "A sync of this bank is already under way: the new data follows as soon as it ends.",
    });

    expect(await postSyncWebhook(itemId)).toMatchObject({
      received: true,
      outcome: "applied",
      sync: "already_running",
    });

    // None of the three reached the provider; the lease is still the first sync's.
    expect(callsFor(accessToken).length).toBe(before);
    expect((await rowOf(connectionId)).syncLeaseHolder).toBe(held.syncLeaseHolder);

    gated.open();
    expect((await running).status).toBe("healthy");
    const after = await rowOf(connectionId);
    expect(after).toMatchObject({ syncLeaseUntil: null, syncLeaseHolder: null, status: "healthy" });
    // Free again: the next Sync now runs and calls the provider.
    expect(await syncBankAction(IDLE, syncNowForm)).toMatchObject({
      status: "ok",
      message: "Synced just now.",
    });
    expect(callsFor(accessToken).length).toBeGreaterThan(before);
  });

  it("is renewed and released only by its holder; a live one cannot be taken", async () => {
    const db = getDb();
    const { items } = await userWithItems(1);
    const { connectionId } = items[0]!;
    const now = new Date();
    expect(await takeSyncLease(db, connectionId, "first", now)).toMatchObject({ syncLeaseHolder: "first" });
    expect(await takeSyncLease(db, connectionId, "second", now)).toBeNull();
    await releaseSyncLease(db, connectionId, "second");
    expect((await rowOf(connectionId)).syncLeaseHolder).toBe("first");
    await releaseSyncLease(db, connectionId, "first");
    expect(await rowOf(connectionId)).toMatchObject({ syncLeaseHolder: null, syncLeaseUntil: null });
    expect(await takeSyncLease(db, connectionId, "second", now)).toMatchObject({ syncLeaseHolder: "second" });
    await releaseSyncLease(db, connectionId, "second");
  });
});

describe("the lease while a sync writes", () => {
  it.skipIf(testDatabaseKind() !== "postgres")(
    "is refused while the connection's row is locked by a writing sync, and the request recorded once the write ends within the lock bound (PostgreSQL)",
    async () => {
      const db = getDb();
      const { items } = await userWithItems(1);
      const { connectionId, accessToken } = items[0]!;
      const before = callsFor(accessToken).length;
      const writer = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await writer.connect();
      try {
        await writer.query("begin");
        await writer.query("select id from bank_connections where id = $1 for update", [connectionId]);
        // Waiting for the lock to take the lease would end in DB_LOCK_TIMEOUT_MS's error (55P03), not
        // this answer. Recording the request does wait for the write, within that bound: a write
        // that outlasts it leaves the request unrecorded (logged), the answer unchanged.
        expect((await syncConnection(db, connectionId)).skipped).toBe("already_running");
        expect((await rowOf(connectionId)).syncRequestedAt).toBeNull();
        // A write that ends within the bound: the request is recorded once it commits.
        const refused = syncConnection(db, connectionId);
        await new Promise((r) => setTimeout(r, 150));
        await writer.query("rollback");
        expect((await refused).skipped).toBe("already_running");
        expect((await rowOf(connectionId)).syncRequestedAt).not.toBeNull();
      } finally {
        await writer.end();
      }
      expect(callsFor(accessToken).length).toBe(before);
    },
  );
});

describe("cron runs at once", () => {
  it("two claims on two pools split the due connections, none twice, none left out", async () => {
    const { userId, items } = await userWithItems(9);
    const ids = items.map((i) => i.connectionId);
    const stale = new Date(Date.now() - 24 * HOUR);
    await setRow(getDb(), ids, { lastSyncedAt: stale, lastSyncAttemptAt: stale });
    const other = await secondServerDb();
    try {
      const now = new Date();
      const [a, b] = await Promise.all([
        claimDueConnections(getDb(), { now, userIds: [userId], batchSize: 5 }),
        claimDueConnections(other.db, { now, userIds: [userId], batchSize: 5 }),
      ]);
      const claimed = [...a, ...b].map((c) => c.connectionId);
      expect(claimed.sort()).toEqual([...ids].sort());
      expect(a.length).toBeLessThanOrEqual(5);
      expect(b.length).toBeLessThanOrEqual(5);
      // Each claim has a holder of its own, and nothing is due while they hold.
      expect(new Set([...a, ...b].map((c) => c.holder)).size).toBe(9);
      expect(await findDueConnections(getDb(), { now, userIds: [userId] })).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it.skipIf(testDatabaseKind() !== "postgres")(
    "a claim passes over the rows another run is claiming instead of waiting for them (PostgreSQL)",
    async () => {
      const { userId, items } = await userWithItems(9);
      const ids = items.map((i) => i.connectionId);
      const stale = new Date(Date.now() - 24 * HOUR);
      await setRow(getDb(), ids, { lastSyncedAt: stale, lastSyncAttemptAt: stale });
      const other = await secondServerDb();
      try {
        const now = new Date();
        type Claimed = Awaited<ReturnType<typeof claimDueConnections>>;
        let second: Claimed | "waited" = "waited";
        // The first run's claim stays uncommitted while the second claims.
        const first = await getDb().transaction(async (tx) => {
          const mine = await claimDueConnections(tx, { now, userIds: [userId], batchSize: 5 });
          second = await Promise.race([
            claimDueConnections(other.db, { now, userIds: [userId], batchSize: 5 }),
            new Promise<"waited">((resolve) => setTimeout(() => resolve("waited"), 3_000)),
          ]);
          return mine;
        });
        if (second === "waited") throw new Error("the second claim waited for the first one's rows");
        const a = first.map((c) => c.connectionId);
        const b = (second as Claimed).map((c) => c.connectionId);
        expect(a).toHaveLength(5);
        expect(b).toHaveLength(4);
        expect([...a, ...b].sort()).toEqual([...ids].sort());
      } finally {
        await other.close();
      }
    },
  );

  it("two whole runs at once fetch each due connection exactly once, and their reports add up", async () => {
    const { userId, items } = await userWithItems(9);
    const ids = items.map((i) => i.connectionId);
    const stale = new Date(Date.now() - 24 * HOUR);
    await setRow(getDb(), ids, { lastSyncedAt: stale, lastSyncAttemptAt: stale });
    const before = new Map(items.map((i) => [i.accessToken, callsFor(i.accessToken).length]));
    const other = await secondServerDb();
    try {
      const now = new Date();
      const reports = await Promise.all([
        syncDueConnections(getDb(), { now, userIds: [userId] }),
        syncDueConnections(other.db, { now, userIds: [userId] }),
      ]);
      const total = (key: "due" | "synced" | "failed" | "skipped") => reports[0]![key] + reports[1]![key];
      expect({
        due: total("due"),
        synced: total("synced"),
        failed: total("failed"),
        skipped: total("skipped"),
      }).toEqual({ due: 9, synced: 9, failed: 0, skipped: 0 });
      const reported = reports.flatMap((r) => r.results.map((x) => x.connectionId));
      expect(reported.sort()).toEqual([...ids].sort());
      for (const item of items) {
        const calls = callsFor(item.accessToken).slice(before.get(item.accessToken));
        expect(
          calls.filter((p) => p === "/accounts/get"),
          item.connectionId,
        ).toHaveLength(1);
      }
    } finally {
      await other.close();
    }
  });
});

describe("the cron's report", () => {
  it("counts synced, failed and skipped (lease lost, disconnected meanwhile): due = synced + failed + skipped", async () => {
    const db = getDb();
    const { userId, items } = await userWithItems(4);
    const [ok, down, lost, gone] = items as [
      (typeof items)[0],
      (typeof items)[0],
      (typeof items)[0],
      (typeof items)[0],
    ];
    const stale = new Date(Date.now() - 24 * HOUR);
    await setRow(
      db,
      items.map((i) => i.connectionId),
      { lastSyncedAt: stale, lastSyncAttemptAt: stale },
    );
    plaid.fake.setItemError(down.itemId, "INSTITUTION_DOWN");
    const before = new Map(items.map((i) => [i.accessToken, callsFor(i.accessToken).length]));
    const now = new Date();
    const report = await syncDueConnections(db, {
      now,
      userIds: [userId],
      afterClaim: async (claimed) => {
        expect(claimed).toHaveLength(4);
        // Another sync takes over one lease (as after a run outlived it); one bank is removed.
        await setRow(db, [lost.connectionId], {
          syncLeaseHolder: "someone-else",
          syncLeaseUntil: new Date(now.getTime() + 60_000),
        });
        await setRow(db, [gone.connectionId], { status: "disconnected" });
      },
    });
    plaid.fake.setItemError(down.itemId, null);
    expect(report).toMatchObject({ due: 4, synced: 1, failed: 1, skipped: 2 });
    expect(report.due).toBe(report.synced + report.failed + report.skipped);
    const outcome = Object.fromEntries(report.results.map((r) => [r.connectionId, r.outcome]));
    expect(outcome).toEqual({
      [ok.connectionId]: "synced",
      [down.connectionId]: "failed",
      [lost.connectionId]: "skipped",
      [gone.connectionId]: "skipped",
    });
    // The skipped ones never reached the provider; the lease taken over is left to its holder.
    expect(callsFor(lost.accessToken).length).toBe(before.get(lost.accessToken));
    expect(callsFor(gone.accessToken).length).toBe(before.get(gone.accessToken));
    expect(await rowOf(lost.connectionId)).toMatchObject({ syncLeaseHolder: "someone-else" });
    expect(await rowOf(gone.connectionId)).toMatchObject({ syncLeaseHolder: null, syncLeaseUntil: null });
    expect(await rowOf(down.connectionId)).toMatchObject({ status: "error", syncLeaseHolder: null });
  });
});

describe("after a crash", () => {
  it("a lease left behind makes the connection due once it runs out, whatever its status, fresh data or not", async () => {
    const db = getDb();
    const { userId, items } = await userWithItems(2);
    const [healthy, failing] = items as [(typeof items)[0], (typeof items)[0]];
    const killedAt = new Date();
    // Both syncs were killed mid-way: leases taken, never released. One connection had failed
    // just before (status error, attempt now: the retry wait would hold it back), both have data
    // from a minute ago (not stale).
    await setRow(db, [failing.connectionId], { status: "error", lastErrorCode: "institution_down" });
    for (const item of items) {
      expect(
        await takeSyncLease(db, item.connectionId, `killed-${item.connectionId}`, killedAt),
      ).not.toBeNull();
    }
    await setRow(
      db,
      items.map((i) => i.connectionId),
      { lastSyncedAt: new Date(killedAt.getTime() - 60_000) },
    );
    const ids = items.map((i) => i.connectionId).sort();
    expect(
      await findDueConnections(db, { now: new Date(killedAt.getTime() + 30_000), userIds: [userId] }),
    ).toEqual([]);
    const afterLease = new Date(killedAt.getTime() + 61_000);
    expect((await findDueConnections(db, { now: afterLease, userIds: [userId] })).sort()).toEqual(ids);
    const report = await syncDueConnections(db, { now: afterLease, userIds: [userId] });
    expect(report).toMatchObject({ due: 2, synced: 2, failed: 0, skipped: 0 });
    for (const item of [healthy, failing]) {
      expect(await rowOf(item.connectionId)).toMatchObject({
        status: "healthy",
        syncLeaseHolder: null,
        syncLeaseUntil: null,
        lastSyncedAt: afterLease,
      });
    }
    // Finished: not due again until its data is stale.
    expect(await findDueConnections(db, { now: afterLease, userIds: [userId] })).toEqual([]);
  });

  it("SYNC_LEASE_SECONDS sets how long a killed sync's lease holds the connection (real clock)", async () => {
    const db = getDb();
    const { userId, items } = await userWithItems(1);
    const { connectionId } = items[0]!;
    const saved = process.env.SYNC_LEASE_SECONDS;
    process.env.SYNC_LEASE_SECONDS = "1";
    resetEnvCache();
    try {
      await setRow(db, [connectionId], { status: "error" });
      const takenAt = Date.now();
      expect(await takeSyncLease(db, connectionId, "killed", new Date())).not.toBeNull();
      expect((await rowOf(connectionId)).syncLeaseUntil!.getTime()).toBeLessThanOrEqual(takenAt + 1_500);
      await until(
        async () => (await findDueConnections(db, { userIds: [userId] })).includes(connectionId),
        5_000,
      );
    } finally {
      if (saved === undefined) delete process.env.SYNC_LEASE_SECONDS;
      else process.env.SYNC_LEASE_SECONDS = saved;
      resetEnvCache();
    }
  });
});

describe("a sync asked for while one runs", () => {
  it("a webhook after the running sync read its pages leads to exactly one more fetch once it ends, with what the bank added meanwhile", async () => {
    const db = getDb();
    const { userId, items } = await userWithItems(1);
    const { connectionId, accessToken, itemId } = items[0]!;
    const held = holdAfterPages(accessToken, 1_000);
    try {
      const running = syncConnection(db, connectionId);
      await held.pagesRead(1);
      const late = addFakeTransaction(itemId);
      expect(await postSyncWebhook(itemId)).toMatchObject({ outcome: "applied", sync: "already_running" });
      const requested = await rowOf(connectionId);
      expect(requested.syncRequestedAt).not.toBeNull();
      expect(held.fetches()).toBe(1);

      const summary = await running;
      expect(summary).toMatchObject({ status: "healthy", added: 1 });
      expect(summary.skipped).toBeUndefined();
      expect(held.fetches()).toBe(2);
      expect(await providerIdsOf(userId)).toContain(late);
      // Served: the request is cleared and the lease dropped; the bank is not due.
      expect(await rowOf(connectionId)).toMatchObject({
        syncRequestedAt: null,
        syncLeaseHolder: null,
        syncLeaseUntil: null,
        status: "healthy",
      });
      expect(await findDueConnections(db, { userIds: [userId] })).toEqual([]);
    } finally {
      held.release();
    }
  });

  it("with no request a sync fetches exactly once", async () => {
    const db = getDb();
    const { userId, items } = await userWithItems(1);
    const { connectionId, accessToken } = items[0]!;
    const held = holdAfterPages(accessToken, 300);
    try {
      expect(await syncConnection(db, connectionId)).toMatchObject({ status: "healthy" });
      expect(held.fetches()).toBe(1);
      expect(callsFor(accessToken).filter((p) => p === "/investments/holdings/get").length).toBeGreaterThan(
        0,
      );
      expect(await rowOf(connectionId)).toMatchObject({ syncRequestedAt: null, syncLeaseHolder: null });
      expect(await findDueConnections(db, { userIds: [userId] })).toEqual([]);
    } finally {
      held.release();
    }
  });

  it("webhooks during both passes get one extra pass only; a request newer than it is left for the cron, which serves and clears it", async () => {
    const db = getDb();
    const { userId, items } = await userWithItems(1);
    const { connectionId, accessToken, itemId } = items[0]!;
    const held = holdAfterPages(accessToken, 800);
    try {
      const running = syncConnection(db, connectionId);
      await held.pagesRead(1);
      addFakeTransaction(itemId);
      expect(await postSyncWebhook(itemId)).toMatchObject({ sync: "already_running" });
      // The extra pass has read its pages: another webhook now asks for a third pass, which is not run.
      await held.pagesRead(2);
      const last = addFakeTransaction(itemId);
      expect(await postSyncWebhook(itemId)).toMatchObject({ sync: "already_running" });
      expect((await running).status).toBe("healthy");
      expect(held.fetches()).toBe(2);
      expect(await providerIdsOf(userId)).not.toContain(last);
      const left = await rowOf(connectionId);
      expect(left).toMatchObject({ syncLeaseHolder: null, syncLeaseUntil: null });
      expect(left.syncRequestedAt).not.toBeNull();
      // Fresh data, yet due for the cron, which fetches once and clears the request.
      expect(await findDueConnections(db, { userIds: [userId] })).toEqual([connectionId]);
      held.release();
      expect(await syncDueConnections(db, { userIds: [userId] })).toMatchObject({ due: 1, synced: 1 });
      expect(held.fetches()).toBe(3);
      expect(await providerIdsOf(userId)).toContain(last);
      expect((await rowOf(connectionId)).syncRequestedAt).toBeNull();
      expect(await findDueConnections(db, { userIds: [userId] })).toEqual([]);
    } finally {
      held.release();
    }
  });

  it("a request left by a killed holder makes the bank due for the cron's claim, whatever its staleness and retry wait", async () => {
    const db = getDb();
    const { userId, items } = await userWithItems(2);
    const [asked, quiet] = items as [(typeof items)[0], (typeof items)[0]];
    const ids = items.map((i) => i.connectionId);
    const now = new Date();
    // Both failed a minute ago (the retry wait holds them back) and have fresh data.
    await setRow(db, ids, {
      status: "error",
      lastSyncAttemptAt: new Date(now.getTime() - 60_000),
      lastSyncedAt: new Date(now.getTime() - 60_000),
    });
    // A holder takes `asked`'s lease and is killed; a webhook meanwhile is refused and records its request.
    expect(await takeSyncLease(db, asked.connectionId, "killed", now)).not.toBeNull();
    expect(await postSyncWebhook(asked.itemId)).toMatchObject({ sync: "already_running" });
    expect((await rowOf(asked.connectionId)).syncRequestedAt).not.toBeNull();
    expect(await findDueConnections(db, { now, userIds: [userId] })).toEqual([]);
    // The request alone makes it due (the lease's own rule aside: as if the holder had ended without serving it).
    await setRow(db, [asked.connectionId], { syncLeaseHolder: null, syncLeaseUntil: null });
    expect(await findDueConnections(db, { now, userIds: [userId] })).toEqual([asked.connectionId]);
    const claimed = await claimDueConnections(db, { now, userIds: [userId] });
    expect(claimed.map((c) => c.connectionId)).toEqual([asked.connectionId]);
    await releaseSyncLease(db, asked.connectionId, claimed[0]!.holder);
    const report = await syncDueConnections(db, { now, userIds: [userId] });
    expect(report).toMatchObject({ due: 1, synced: 1 });
    expect(await rowOf(asked.connectionId)).toMatchObject({ status: "healthy", syncRequestedAt: null });
    expect(await rowOf(quiet.connectionId)).toMatchObject({ status: "error", syncRequestedAt: null });
    expect(await findDueConnections(db, { now, userIds: [userId] })).toEqual([]);
  });
});
