/**
 * The test database: in-memory PGlite (migrated per test file) or, in the `postgres` project,
 * the real server at TEST_DATABASE_URL (migrated once by postgres-setup.ts). It is installed as
 * the process-wide database, so app code calling getDb() uses it.
 *
 * Tests on the shared server must not assume empty tables: create your own users and scope
 * every assertion to them.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { type Database, getHandle, openDatabase, type QueryObserver, setDbForTesting } from "@/db";
import { settleDeferred } from "@/lib/deferred";

export function testDatabaseKind(): "pglite" | "postgres" {
  return process.env.LEDGERLINK_TEST_DB === "postgres" ? "postgres" : "pglite";
}

/** `observe` is told of every statement at the driver (tests/support/statement-counter.ts). */
export async function openTestDatabase(observe?: QueryObserver) {
  const handle =
    testDatabaseKind() === "postgres"
      ? await openDatabase({ url: process.env.TEST_DATABASE_URL, migrate: false, observe })
      : await openDatabase({ pgliteDir: "memory://", observe });
  setDbForTesting(handle);
  return handle;
}

/** Registers beforeAll/afterAll hooks and returns a getter for the database. */
export function useTestDatabase(observe?: QueryObserver): () => Database {
  let db: Database | undefined;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const handle = await openTestDatabase(observe);
    db = handle.db;
    close = handle.close;
  });
  afterAll(async () => {
    // Work deferred past an answer (activity rows) still writes to this database.
    await settleDeferred();
    setDbForTesting(undefined);
    await close?.();
  });
  return () => {
    if (!db) throw new Error("test database not open yet");
    return db;
  };
}

/**
 * Runs `fn` while the process-wide database is one that cannot be reached (nothing listens on
 * port 1: every query fails to connect), then puts the test database back.
 */
export async function whileDatabaseDown<T>(fn: () => Promise<T>): Promise<T> {
  const previous = await getHandle();
  const broken = await openDatabase({ url: "postgres://ledgerlink@127.0.0.1:1/down", driver: "pg" });
  setDbForTesting(broken);
  try {
    return await fn();
  } finally {
    setDbForTesting(previous);
    await broken.close();
  }
}

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * A fresh, empty database on the PostgreSQL test server, for a file that seeds the demo users
 * (their addresses are fixed and other files seed them too, rotating their keys): its URL, and
 * `drop` for afterAll. The caller opens it with `migrate: true`.
 */
export async function createScratchDatabase(
  prefix: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${randomBytes(4).toString("hex")}`;
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(process.env.TEST_DATABASE_URL ?? "");
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
