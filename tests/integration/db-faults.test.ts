/**
 * Faults caused for real: the MCP endpoint, served over HTTP, talks to PostgreSQL through a TCP
 * proxy that freezes or drops its connections (tests/support/fault-proxy.ts). Every wait is
 * bounded (DB_CONNECT_TIMEOUT_MS, DB_ACQUIRE_TIMEOUT_MS, DB_STATEMENT_TIMEOUT_MS), so a frozen
 * database answers 503 with Retry-After instead of hanging, a dropped connection never crashes
 * the process, and the next request after the fault succeeds. PostgreSQL only: PGlite has no
 * network to fail.
 */

import { sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Handle, openDatabase, setDbForTesting, syncDatabaseFor } from "@/db";
import { resetEnvCache } from "@/lib/env";
import { testDatabaseKind, useTestDatabase } from "../helpers/db";
import { createUserInState, initializeRequest, rpc, type StateUser } from "../helpers/mcp-client";
import { type ServedRoutes, serveRoutes } from "../helpers/serve";
import { type FaultProxy, startFaultProxy } from "../support/fault-proxy";

const getDb = useTestDatabase();
const BOUND_MS = 1_000;
const SETTINGS = {
  DB_CONNECT_TIMEOUT_MS: String(BOUND_MS),
  DB_ACQUIRE_TIMEOUT_MS: String(BOUND_MS),
  DB_STATEMENT_TIMEOUT_MS: String(BOUND_MS),
  PG_POOL_MAX: "2",
};

describe.skipIf(testDatabaseKind() !== "postgres")("a database that freezes or drops", () => {
  let proxy: FaultProxy;
  let handle: Handle;
  let server: ServedRoutes;
  let user: StateUser;
  let other: StateUser;
  const previous: Record<string, string | undefined> = {};
  const errors: unknown[] = [];
  const onUncaught = (error: unknown) => errors.push(error);

  beforeAll(async () => {
    for (const [name, value] of Object.entries(SETTINGS)) {
      previous[name] = process.env[name];
      process.env[name] = value;
    }
    resetEnvCache();
    process.on("uncaughtException", onUncaught);
    user = await createUserInState(getDb(), "active");
    other = await createUserInState(getDb(), "active");
    proxy = await startFaultProxy(process.env.TEST_DATABASE_URL ?? "");
    handle = await openDatabase({ url: proxy.url, driver: "pg" });
    setDbForTesting(handle);
    server = await serveRoutes({ "/api/mcp": () => import("@/app/api/mcp/route") });
  });

  afterAll(async () => {
    setDbForTesting(undefined);
    await server?.close();
    proxy?.heal();
    await handle?.close().catch(() => {});
    await proxy?.close();
    process.off("uncaughtException", onUncaught);
    for (const [name, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    resetEnvCache();
  });

  const initialize = () =>
    rpc(server.url("/api/mcp"), initializeRequest("2025-06-18"), { apiKey: user.apiKey });

  it("answers while the database is healthy", async () => {
    expect((await initialize()).status).toBe(200);
  });

  it("frozen: 503 with Retry-After within the bounds, for parallel requests too; then recovers", async () => {
    proxy.freeze();
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 4 }, initialize));
    const waited = Date.now() - started;
    for (const answer of answers) {
      expect(answer.status).toBe(503);
      expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    // Four requests on a pool of two: none waits longer than acquire + connect + statement bounds
    // (plus our one-second client-side margin), far from an unbounded hang.
    expect(waited).toBeLessThan(4 * BOUND_MS + 1_000 + 2_000);
    proxy.heal();
    let healed = 0;
    for (let i = 0; i < 5 && healed !== 200; i++) healed = (await initialize()).status;
    expect(healed).toBe(200);
  });

  it("slowed: a distant database still answers, slower; one too slow for the bounds gets 503 in time", async () => {
    proxy.slow(100);
    let started = Date.now();
    const slowed = await initialize();
    expect(slowed.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(200); // at least one round trip of 2 × 100 ms
    proxy.slow(1_500);
    started = Date.now();
    const tooSlow = await initialize();
    const waited = Date.now() - started;
    expect(tooSlow.status).toBe(503);
    expect(Number(tooSlow.headers.get("retry-after"))).toBeGreaterThan(0);
    // The statement bound plus our one-second margin, with slack for a busy machine.
    expect(waited).toBeLessThan(BOUND_MS + 1_000 + 1_500);
    proxy.heal();
    let status = 0;
    for (let i = 0; i < 5 && status !== 200; i++) status = (await initialize()).status;
    expect(status).toBe(200);
  });

  it("syncs run on their own pool, whose statements may take a minute; requests keep their bound", async () => {
    const shown = async (db: typeof handle.db) =>
      (
        (await db.execute(sql`show statement_timeout`)) as unknown as {
          rows: { statement_timeout: string }[];
        }
      ).rows[0]?.statement_timeout;
    expect(await shown(handle.db)).toBe("1s");
    expect(syncDatabaseFor(handle.db)).not.toBe(handle.db);
    expect(await shown(syncDatabaseFor(handle.db))).toBe("1min");
  });

  it("one caller's stuck requests hold at most half the pool: another caller is still answered", async () => {
    // The first caller's rate-limit row is locked by another session, so each of its requests
    // waits on the lock until the statement bound (a real slow query, not a mock).
    expect((await initialize()).status).toBe(200);
    const locker = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await locker.connect();
    try {
      await locker.query("begin");
      await locker.query("select 1 from rate_limits where key = $1 for update", [`api_key:${user.apiKeyId}`]);
      let stuckSettled = false;
      const stuck = Promise.all(Array.from({ length: 4 }, initialize)).finally(() => {
        stuckSettled = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const started = Date.now();
      const answer = await rpc(server.url("/api/mcp"), initializeRequest("2025-06-18"), {
        apiKey: other.apiKey,
      });
      const waited = Date.now() - started;
      // Answered at once, while the first caller's requests are still stuck (without the
      // per-credential slots it waited for their statement bound to free a connection).
      expect(answer.status).toBe(200);
      expect(stuckSettled).toBe(false);
      expect(waited).toBeLessThan(BOUND_MS / 2);
      const stuckAnswers = await stuck;
      for (const a of stuckAnswers) {
        expect(a.status).toBe(503);
        expect(Number(a.headers.get("retry-after"))).toBeGreaterThan(0);
      }
    } finally {
      await locker.query("rollback").catch(() => {});
      await locker.end();
    }
    expect((await initialize()).status).toBe(200);
  });

  it("clients that give up while their requests are stuck do not keep the credential's slots", async () => {
    const locker = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await locker.connect();
    try {
      await locker.query("begin");
      await locker.query("select 1 from rate_limits where key = $1 for update", [`api_key:${user.apiKeyId}`]);
      const gaveUp = Array.from({ length: 3 }, async () => {
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 100);
        await rpc(server.url("/api/mcp"), initializeRequest("2025-06-18"), {
          apiKey: user.apiKey,
          signal: controller.signal,
        }).catch(() => undefined);
      });
      await Promise.all(gaveUp);
    } finally {
      await locker.query("rollback").catch(() => {});
      await locker.end();
    }
    // The abandoned requests finish on the server; their slots are free again at once.
    await new Promise((resolve) => setTimeout(resolve, BOUND_MS + 200));
    const answers = await Promise.all([initialize(), initialize()]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
  });

  it("dropped connections: no crash, the next request succeeds", async () => {
    expect((await initialize()).status).toBe(200);
    proxy.drop();
    await new Promise((resolve) => setTimeout(resolve, 100));
    let status = 0;
    for (let i = 0; i < 3 && status !== 200; i++) status = (await initialize()).status;
    expect(status).toBe(200);
    expect(errors).toEqual([]);
  });
});
