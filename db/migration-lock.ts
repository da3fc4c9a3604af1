/**
 * Migrations on a server database run under one PostgreSQL advisory lock, so two deployments
 * that build at once (two pushes in a row, a redeploy during a deploy) never apply the same
 * migration twice: drizzle's migrator reads the last applied migration and then applies the rest
 * in one transaction, and two of them reading at once would both apply everything after it (the
 * second fails on a table that already exists, or, for a statement that can run twice, runs it
 * twice). The second migrator waits for the lock, then finds nothing left to apply.
 *
 * The lock is a session lock, held by the connection that runs the migrations: a migrator that
 * dies releases it with its connection. Session locks need a session of their own, so migrate
 * through a direct connection (Neon's unpooled URL), never through a pooler in transaction mode.
 * https://www.postgresql.org/docs/current/explicit-locking.html#ADVISORY-LOCKS
 */

/** The advisory lock's key: one 64-bit number for "ledgerlink migrations" (any fixed value would do). */
export const MIGRATION_LOCK_KEY = "7310454351087129601";

/** Longest a migrator waits for another to finish (a deployment's build has minutes, not hours). */
export const MIGRATION_LOCK_WAIT_MS = 10 * 60_000;

/**
 * A migration statement waits at most this long for a table's lock: an `alter table` queues
 * behind the running requests' reads and every later read queues behind it, so a migration that
 * cannot have its lock soon fails (the deployment fails and can be retried) instead of stalling
 * the live service. Migrations follow expand-then-contract (docs/deploy.md): none needs a long lock.
 */
export const MIGRATION_STATEMENT_LOCK_TIMEOUT_MS = 5_000;

/** Longest one migration statement may run (an index on a large table takes a while; the build waits). */
export const MIGRATION_STATEMENT_TIMEOUT_MS = 15 * 60_000;

interface SessionClient {
  query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
}

export interface MigrationRun {
  /** Migrations this run applied (0 when another run had applied them all). */
  applied: number;
  /** How long this run waited for another migrator's lock (0 when it found the lock free). */
  waitedMs: number;
}

/**
 * Runs `migrate` on `client`'s session while holding the migration lock, and counts what it
 * applied in drizzle's journal table. `onWait` is told when another migrator holds the lock.
 * The session's settings are changed for the migrations: the caller discards the connection after.
 */
export async function migrateUnderLock(
  client: SessionClient,
  migrate: () => Promise<void>,
  options: { onWait?: () => void; waitMs?: number } = {},
): Promise<MigrationRun> {
  const started = Date.now();
  let waitedMs = 0;
  const [free] = (
    await client.query("select pg_try_advisory_lock($1::bigint) as locked", [MIGRATION_LOCK_KEY])
  ).rows;
  if (free?.locked !== true) {
    options.onWait?.();
    // lock_timeout bounds the wait for an advisory lock as for any other lock (SQLSTATE 55P03).
    await client.query(`set lock_timeout = ${Math.max(1, options.waitMs ?? MIGRATION_LOCK_WAIT_MS)}`);
    await client.query("select pg_advisory_lock($1::bigint)", [MIGRATION_LOCK_KEY]);
    waitedMs = Date.now() - started;
  }
  try {
    await client.query(`set lock_timeout = ${MIGRATION_STATEMENT_LOCK_TIMEOUT_MS}`);
    await client.query(`set statement_timeout = ${MIGRATION_STATEMENT_TIMEOUT_MS}`);
    const before = await appliedCount(client);
    await migrate();
    return { applied: (await appliedCount(client)) - before, waitedMs };
  } finally {
    await client.query("select pg_advisory_unlock($1::bigint)", [MIGRATION_LOCK_KEY]).catch(() => undefined);
  }
}

/** Rows in drizzle's journal table (0 before the first migration created it). */
async function appliedCount(client: SessionClient): Promise<number> {
  const [table] = (
    await client.query("select to_regclass('drizzle.__drizzle_migrations') is not null as found")
  ).rows;
  if (table?.found !== true) return 0;
  const [row] = (await client.query("select count(*)::int as n from drizzle.__drizzle_migrations")).rows;
  return Number(row?.n ?? 0);
}
