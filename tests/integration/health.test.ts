/**
 * GET /api/health over real HTTP: liveness answers without the database (no statement, and 200
 * while the database is unreachable); readiness runs one statement and checks that every
 * migration of this build is applied (503 with Retry-After when it is not, or when the database
 * does not answer); neither answer shows anything but its status; other methods get 405 + Allow.
 * The database is this file's own (a fresh PGlite, or a scratch PostgreSQL database), since the
 * test rewinds its migration record.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Handle, openDatabase, setDbForTesting } from "@/db";
import { NEWEST_MIGRATION } from "@/lib/health";
import { createScratchDatabase, testDatabaseKind, whileDatabaseDown } from "../helpers/db";
import { type ServedRoutes, serveRoutes } from "../helpers/serve";
import { StatementCounter } from "../support/statement-counter";

describe("GET /api/health", () => {
  const counter = new StatementCounter();
  let handle: Handle;
  let drop: (() => Promise<void>) | undefined;
  let server: ServedRoutes;

  beforeAll(async () => {
    if (testDatabaseKind() === "postgres") {
      const scratch = await createScratchDatabase("ledgerlink_health");
      drop = scratch.drop;
      handle = await openDatabase({ url: scratch.url, migrate: true, observe: counter });
    } else handle = await openDatabase({ pgliteDir: "memory://", observe: counter });
    setDbForTesting(handle);
    server = await serveRoutes({ "/api/health": () => import("@/app/api/health/route") });
  });

  afterAll(async () => {
    await server?.close();
    setDbForTesting(undefined);
    await handle?.close();
    await drop?.();
  });

  const get = async (query = "", init: RequestInit = {}) => {
    counter.take();
    const response = await fetch(server.url(`/api/health${query}`), init);
    return {
      status: response.status,
      headers: response.headers,
      body: await response.text(),
      statements: counter.take().statements,
    };
  };

  it("liveness: 200 {status: ok} without a statement, even with the database unreachable", async () => {
    const live = await get();
    expect(live).toMatchObject({ status: 200, body: '{"status":"ok"}', statements: 0 });
    expect(live.headers.get("cache-control")).toBe("no-store");
    const down = await whileDatabaseDown(() => get());
    expect(down).toMatchObject({ status: 200, body: '{"status":"ok"}' });
  });

  it("readiness: one statement, 200 when every migration of this build is applied", async () => {
    expect(await get("?ready=1")).toMatchObject({ status: 200, body: '{"status":"ok"}', statements: 1 });
  });

  it("readiness: 503 with Retry-After and nothing else when the newest migration is missing", async () => {
    const newest = sql`update drizzle.__drizzle_migrations set created_at = ${NEWEST_MIGRATION - 1}
      where created_at = ${NEWEST_MIGRATION}`;
    await handle.db.execute(newest);
    try {
      const behind = await get("?ready=1");
      expect(behind).toMatchObject({ status: 503, body: '{"status":"unavailable"}', statements: 1 });
      expect(Number(behind.headers.get("retry-after"))).toBeGreaterThan(0);
    } finally {
      await handle.db.execute(
        sql`update drizzle.__drizzle_migrations set created_at = ${NEWEST_MIGRATION}
          where created_at = ${NEWEST_MIGRATION - 1}`,
      );
    }
    expect((await get("?ready=1")).status).toBe(200);
  });

  it("readiness: 503 with Retry-After and nothing else when the database does not answer", async () => {
    const down = await whileDatabaseDown(() => get("?ready=1"));
    expect(down).toMatchObject({ status: 503, body: '{"status":"unavailable"}' });
    expect(Number(down.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("other methods: 405 with Allow", async () => {
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      const answer = await get("", { method });
      expect(answer.status, method).toBe(405);
      expect(answer.headers.get("allow"), method).toBe("GET, HEAD");
    }
  });
});
