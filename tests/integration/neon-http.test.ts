/**
 * Neon's HTTP mode (DATABASE_DRIVER=neon-http) against the local PostgreSQL server, through the
 * local stand-in for Neon's proxy (tests/support/neon-local.ts) that speaks Neon's SQL-over-HTTP.
 * Every tool answers the demo user exactly as node-postgres does, within the same two round
 * trips, each statement one HTTP request; what needs a session (an interactive transaction, a
 * sync) runs on the WebSocket pool beside it; a PostgreSQL error keeps its SQLSTATE.
 * PostgreSQL only.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Handle, openDatabase, setDbForTesting, syncDatabaseFor } from "@/db";
import { users } from "@/db/schema";
import { seedDemo } from "@/db/seed";
import { settleDeferred } from "@/lib/deferred";
import { resetEnvCache } from "@/lib/env";
import { createMcpEndpoint } from "@/lib/mcp/server";
import { createScratchDatabase, testDatabaseKind } from "../helpers/db";
import { TOOL_NAMES } from "../helpers/mcp-client";
import { type NeonLocal, startNeonLocal } from "../support/neon-local";
import { StatementCounter } from "../support/statement-counter";

const APP_URL = "http://localhost:3000";

describe.skipIf(testDatabaseKind() !== "postgres")("Neon's HTTP mode", () => {
  const counter = new StatementCounter();
  let neonLocal: NeonLocal;
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  let tcp: Handle;
  let http: Handle;
  let apiKey = "";
  const saved = { APP_URL: process.env.APP_URL, NEON_LOCAL_PROXY: process.env.NEON_LOCAL_PROXY };

  beforeAll(async () => {
    neonLocal = await startNeonLocal();
    Object.assign(process.env, { APP_URL, NEON_LOCAL_PROXY: neonLocal.host });
    resetEnvCache();
    scratch = await createScratchDatabase("ledgerlink_neon_http");
    tcp = await openDatabase({ url: scratch.url, driver: "pg", migrate: true });
    setDbForTesting(tcp);
    apiKey = (await seedDemo(tcp.db)).find((a) => a.state === "active")?.apiKey ?? "";
    http = await openDatabase({ url: scratch.url, driver: "neon-http", observe: counter });
  });

  afterAll(async () => {
    await settleDeferred();
    setDbForTesting(undefined);
    await http?.close();
    await tcp?.close();
    await neonLocal?.close();
    await scratch?.drop();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    resetEnvCache();
  });

  async function call(handle: Handle, name: string): Promise<unknown> {
    const endpoint = createMcpEndpoint({ getDb: async () => handle.db });
    const response = await endpoint(
      new Request(`${APP_URL}/api/mcp`, {
        method: "POST",
        headers: {
          host: "localhost:3000",
          authorization: `Bearer ${apiKey}`,
          "content-type": "application/json",
          accept: "application/json",
          "mcp-protocol-version": "2025-06-18",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name, arguments: {} },
        }),
      }),
    );
    expect(response.status, name).toBe(200);
    return response.json();
  }

  it("answers every tool as node-postgres does, in at most two round trips of HTTP requests", async () => {
    expect(http.kind).toBe("neon-http");
    for (const name of TOOL_NAMES) {
      const overTcp = await call(tcp, name);
      await settleDeferred();
      counter.take();
      const requestsBefore = neonLocal.httpRequests();
      const overHttp = await call(http, name);
      const cost = counter.take();
      const requests = neonLocal.httpRequests() - requestsBefore;
      await settleDeferred();
      expect(overHttp, name).toEqual(overTcp);
      expect(JSON.stringify(overHttp)).not.toContain('"isError":true');
      expect(cost.waves, name).toBeLessThanOrEqual(2);
      // Each statement before the answer was one request to Neon's HTTP endpoint.
      expect(requests, name).toBe(cost.statements);
    }
  });

  it("runs transactions and syncs on the WebSocket pool, and keeps PostgreSQL's error codes", async () => {
    const email = `neon-http-${crypto.randomUUID()}@test.local`;
    const before = neonLocal.httpRequests();
    await http.db
      .transaction(async (tx) => {
        await tx.insert(users).values({ email });
        throw new Error("roll back");
      })
      .catch(() => undefined);
    const id = await http.db.transaction(async (tx) => {
      const [row] = await tx.insert(users).values({ email }).returning({ id: users.id });
      return row?.id;
    });
    // No statement of either transaction went over HTTP.
    expect(neonLocal.httpRequests()).toBe(before);
    const found = await http.db.select().from(users).where(eq(users.email, email));
    expect(found.map((u) => u.id)).toEqual([id]);
    expect(neonLocal.httpRequests()).toBe(before + 1);
    await expect(http.db.insert(users).values({ email })).rejects.toMatchObject({ cause: { code: "23505" } });
    expect(syncDatabaseFor(http.db)).not.toBe(http.db);
    await http.db.delete(users).where(eq(users.email, email));
  });
});
