/**
 * Two deployments migrating one database at once: two real `npm run db:migrate` processes
 * (db/migrate.ts) against one fresh PostgreSQL database. Both connect through a fault proxy that
 * is frozen until both connections are open, then released together, so their migrations start
 * at the same moment (without the barrier one could finish before the other started, and the
 * test would prove nothing). One applies every migration; the other waits for its advisory lock
 * and applies none; drizzle's journal holds each migration once. Without the lock both read an
 * empty journal and apply everything: the second fails on a table the first created.
 * PostgreSQL only (PGlite opens its folder from one process at a time).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createScratchDatabase, testDatabaseKind } from "../helpers/db";
import { type FaultProxy, startFaultProxy } from "../support/fault-proxy";

const ROOT = path.resolve(import.meta.dirname, "../..");
const TSX = path.join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");
const journal = JSON.parse(readFileSync(path.join(ROOT, "db/migrations/meta/_journal.json"), "utf8")) as {
  entries: unknown[];
};

interface Finished {
  code: number | null;
  output: string;
}

/** Starts `npm run db:migrate` as its own process against `url`. */
function startMigrator(url: string): { child: ChildProcess; finished: Promise<Finished> } {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: url, NODE_ENV: "production" };
  delete env.DATABASE_URL_UNPOOLED;
  delete env.DATABASE_DRIVER;
  // The proxy holds the connection until both migrators have one: no connect bound may end it first.
  env.DB_CONNECT_TIMEOUT_MS = "120000";
  env.DB_ACQUIRE_TIMEOUT_MS = "120000";
  const child = spawn(process.execPath, [TSX, "db/migrate.ts"], { cwd: ROOT, env, stdio: "pipe" });
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const finished = new Promise<Finished>((resolve) => child.on("close", (code) => resolve({ code, output })));
  return { child, finished };
}

async function until(condition: () => boolean, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(testDatabaseKind() !== "postgres")("two deployments migrating at once", () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>> | undefined;
  let proxy: FaultProxy | undefined;
  const children: ChildProcess[] = [];

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    await proxy?.close();
    await scratch?.drop();
  });

  it("one migrates, the other waits for the lock and applies nothing; each migration is applied once", async () => {
    scratch = await createScratchDatabase("ll_migrate_race");
    proxy = await startFaultProxy(scratch.url);
    proxy.freeze();
    const first = startMigrator(proxy.url);
    const second = startMigrator(proxy.url);
    children.push(first.child, second.child);
    // Both processes have started and opened their connection: release them together.
    await until(() => proxy?.connections() === 2, "both migrators to connect");
    proxy.heal();
    const results = await Promise.all([first.finished, second.finished]);

    for (const result of results) expect(result.code, result.output).toBe(0);
    const applied = results.map((r) => Number(/\((\d+) migrations? applied/.exec(r.output)?.[1] ?? -1));
    expect(applied.sort((a, b) => a - b)).toEqual([0, journal.entries.length]);
    // The one that applied none said it waited for the other.
    const waiter = results.find((r) => r.output.includes("(0 migrations applied"));
    expect(waiter?.output).toContain("Another migration holds the lock");
    expect(waiter?.output).toMatch(/after waiting \d+ ms for the lock/);

    const client = new pg.Client({ connectionString: scratch.url });
    await client.connect();
    try {
      const { rows } = await client.query(
        "select count(*)::int as n, count(distinct hash)::int as hashes, count(distinct created_at)::int as times from drizzle.__drizzle_migrations",
      );
      expect(rows[0]).toEqual({
        n: journal.entries.length,
        hashes: journal.entries.length,
        times: journal.entries.length,
      });
      // The lock is gone with its sessions.
      const locks = await client.query("select count(*)::int as n from pg_locks where locktype = 'advisory'");
      expect(locks.rows[0]?.n).toBe(0);
    } finally {
      await client.end();
    }
  }, 180_000);
});
