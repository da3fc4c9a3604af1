/**
 * Faults caused for real: the MCP endpoint, served over HTTP, talks to PostgreSQL through a TCP
 * proxy that freezes or drops its connections (tests/support/fault-proxy.ts). Every wait is
 * bounded (DB_CONNECT_TIMEOUT_MS, DB_ACQUIRE_TIMEOUT_MS, DB_STATEMENT_TIMEOUT_MS), so a frozen
 * database answers 503 with Retry-After instead of hanging, a dropped connection never crashes
 * the process, and the next request after the fault succeeds. PostgreSQL only: PGlite has no
 * network to fail.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Handle, openDatabase, setDbForTesting } from "@/db";
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
