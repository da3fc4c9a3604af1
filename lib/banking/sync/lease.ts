/**
 * The sync lease: one sync per connection at a time, across every server.
 *
 * A sync runs only while it holds its connection's lease (`bank_connections.sync_lease_until`
 * and `sync_lease_holder`, a random id per sync). Taking it is one conditional UPDATE that
 * succeeds only when no live lease is held (none, or run out), so of two syncs that start
 * together — the cron on two servers, a webhook, "Sync now" — one gets it and the other is told
 * a sync is already running, before anything is fetched from the provider. Only the holder
 * renews it (every third of SYNC_LEASE_SECONDS while the sync runs) and releases it (when the
 * sync ends). The cron claims a whole batch in one statement (`claimDueConnections`: `FOR UPDATE
 * SKIP LOCKED`), so two runs at once split the due connections between them.
 *
 * A killed sync never releases its lease: the connection stays leased until it runs out, then it
 * is due again at once (a lease left behind marks a sync that never finished, so neither the
 * staleness nor the retry wait after a failure holds it back).
 *
 * A sync refused while another holds the lease records the request (`sync_requested_at`, the
 * database's clock): the holder, when its pass ends, runs one more pass if a request is newer than
 * the pass's start (`endSyncPass`), so what a webhook announced mid-sync is fetched at once; a
 * request left behind (a killed holder, or one more request than the extra pass served) makes the
 * connection due for the cron regardless of staleness and retry wait.
 *
 * The lease clock is the sync's own `now` (tests pin it) moved on by the real time since.
 */
import { randomUUID } from "node:crypto";
import {
  and,
  asc,
  eq,
  getTableColumns,
  inArray,
  isNotNull,
  isNull,
  lt,
  ne,
  or,
  type SQL,
  sql,
} from "drizzle-orm";
import type { Database } from "@/db";
import { type BankConnection, bankConnections, type ConnectionStatus } from "@/db/schema";
import { getEnv } from "@/lib/env";

/** Minimum wait after a failed attempt on one connection. */
export const RETRY_AFTER_MINUTES = 10;

/** How far ahead a lease is held (SYNC_LEASE_SECONDS, default 60). */
export function syncLeaseMs(): number {
  return getEnv().SYNC_LEASE_SECONDS * 1000;
}

/** The lease clock: `now` moved on by the real time since this call. */
export function leaseClock(now: Date): () => Date {
  const startedWall = Date.now();
  return () => new Date(now.getTime() + (Date.now() - startedWall));
}

/** A new holder id (one per sync). */
export function newLeaseHolder(): string {
  return randomUUID();
}

/**
 * Takes the connection's lease for `holder` when no live lease is held, and notes the attempt.
 * Returns the connection's row as it now is (with the pass's start on the database's clock), or
 * null when another sync holds the lease (or the connection is gone or disconnected). A row
 * locked at that moment is a running sync writing (its transaction holds the row): refused at
 * once rather than waited for.
 */
export async function takeSyncLease(
  db: Database,
  connectionId: string,
  holder: string,
  now: Date,
): Promise<PassRow | null> {
  const [row] = await db
    .update(bankConnections)
    .set({
      syncLeaseHolder: holder,
      syncLeaseUntil: new Date(now.getTime() + syncLeaseMs()),
      lastSyncAttemptAt: now,
    })
    .where(
      and(
        eq(bankConnections.id, connectionId),
        inArray(
          bankConnections.id,
          db
            .select({ id: bankConnections.id })
            .from(bankConnections)
            .where(eq(bankConnections.id, connectionId))
            .for("update", { skipLocked: true }),
        ),
        ne(bankConnections.status, "disconnected"),
        or(isNull(bankConnections.syncLeaseUntil), lt(bankConnections.syncLeaseUntil, now)),
      ),
    )
    .returning({ ...getTableColumns(bankConnections), passStartedAt: passStartColumn() });
  return row ?? null;
}

/**
 * Moves `holder`'s lease to `until`, unless the connection's row is locked: the sync's own
 * write transaction holds it (`for update`) while it writes, and that lock already keeps every
 * other sync of the connection from writing. Waiting for it instead held a request connection
 * until the statement bound cut the wait, and logged a failure every 20 s of a long first sync
 * on a server. True when the lease moved; false too when another holder has it now.
 */
export async function renewSyncLease(
  db: Database,
  connectionId: string,
  holder: string,
  until: Date,
): Promise<boolean> {
  return (await renewSyncLeases(db, [{ connectionId, holder }], until)) > 0;
}

/** `renewSyncLease` for many leases in one statement (a cron run's claimed batch); how many moved. */
export async function renewSyncLeases(
  db: Database,
  leases: ReadonlyArray<{ connectionId: string; holder: string }>,
  until: Date,
): Promise<number> {
  if (leases.length === 0) return 0;
  const free = db
    .select({ id: bankConnections.id })
    .from(bankConnections)
    .where(
      inArray(
        bankConnections.id,
        leases.map((l) => l.connectionId),
      ),
    )
    .for("update", { skipLocked: true });
  const ids = sql.param(leases.map((l) => l.connectionId));
  const holders = sql.param(leases.map((l) => l.holder));
  const moved = await db
    .update(bankConnections)
    .set({ syncLeaseUntil: until })
    .where(
      and(
        inArray(bankConnections.id, free),
        sql`(${bankConnections.id}, ${bankConnections.syncLeaseHolder}) in (select * from unnest(${ids}::text[], ${holders}::text[]))`,
      ),
    )
    .returning({ id: bankConnections.id });
  return moved.length;
}

/** Drops `holder`'s lease (a lease another sync has taken since is left alone). */
export async function releaseSyncLease(db: Database, connectionId: string, holder: string): Promise<void> {
  await db
    .update(bankConnections)
    .set({ syncLeaseUntil: null, syncLeaseHolder: null })
    .where(and(eq(bankConnections.id, connectionId), eq(bankConnections.syncLeaseHolder, holder)));
}

/** The database's clock as exact text (microseconds kept), the start of a sync pass. */
export const passStartColumn = () => sql<string>`now()::text`;

/** A connection's row with the start of the pass that reads it (the database's clock). */
export type PassRow = BankConnection & { passStartedAt: string };

/**
 * Records that a sync was asked for while another holds the lease (`sync_requested_at` = the
 * database's now). Returns the connection's status, or null when it is gone or disconnected. While the holder's
 * write transaction has the row locked this waits for it, within the pool's lock bound
 * (DB_LOCK_TIMEOUT_MS for requests): that is the moment its pages have been read, when a request
 * matters most.
 */
export async function recordSyncRequest(
  db: Database,
  connectionId: string,
): Promise<ConnectionStatus | null> {
  const [row] = await db
    .update(bankConnections)
    .set({ syncRequestedAt: sql`now()` })
    .where(and(eq(bankConnections.id, connectionId), ne(bankConnections.status, "disconnected")))
    .returning({ status: bankConnections.status });
  return row?.status ?? null;
}

/**
 * Ends `holder`'s pass that started at `passStartedAt` in one statement: a request not newer than
 * the pass is served and cleared. With `again`, a request newer than the pass keeps the lease for
 * one more pass: the lease moves to `again.until` and the row comes back with the new pass's start
 * (the cursor as this pass wrote it); otherwise the lease is dropped, a newer request is left for
 * the cron, and null comes back. A lease another sync has taken since is left alone.
 */
export async function endSyncPass(
  db: Database,
  connectionId: string,
  holder: string,
  passStartedAt: string,
  again?: { until: Date; now: Date },
): Promise<PassRow | null> {
  const c = bankConnections;
  const newer = sql`(${c.syncRequestedAt} > ${passStartedAt}::timestamptz)`;
  const more = again ? sql`(${newer} and ${c.status} <> 'disconnected')` : null;
  const [row] = await db
    .update(c)
    .set({
      syncLeaseUntil: more
        ? sql`case when ${more} then ${again!.until.toISOString()}::timestamptz end`
        : null,
      syncLeaseHolder: more ? sql`case when ${more} then ${holder}::text end` : null,
      ...(more
        ? {
            lastSyncAttemptAt: sql`case when ${more} then ${again!.now.toISOString()}::timestamptz else ${c.lastSyncAttemptAt} end`,
          }
        : {}),
      syncRequestedAt: sql`case when ${newer} then ${c.syncRequestedAt} end`,
    })
    .where(and(eq(c.id, connectionId), eq(c.syncLeaseHolder, holder)))
    .returning({ ...getTableColumns(c), passStartedAt: passStartColumn() });
  return row && row.syncLeaseHolder === holder ? row : null;
}

export interface DueOptions {
  now?: Date;
  staleAfterMinutes?: number;
  batchSize?: number;
  /** Only these users' connections (tests on a shared database; re-syncing one customer). */
  userIds?: string[];
}

/**
 * Which connections are due at `now`: status `healthy` or `error` (a connection that needs the
 * user, `reauth_required`, or was `disconnected` cannot sync without them), no live lease, and
 * either a lease left behind by a killed sync (run out), or a sync asked for and not served
 * (`sync_requested_at`), or data older than
 * SYNC_STALE_AFTER_MINUTES (or none) and, after a failed attempt (`error`), none in the last
 * RETRY_AFTER_MINUTES (so a bank that is down or rate-limiting us is not hammered every run).
 */
function dueWhere(options: DueOptions, now: Date): SQL | undefined {
  const env = getEnv();
  const staleBefore = new Date(
    now.getTime() - (options.staleAfterMinutes ?? env.SYNC_STALE_AFTER_MINUTES) * 60_000,
  );
  const retryBefore = new Date(now.getTime() - RETRY_AFTER_MINUTES * 60_000);
  return and(
    inArray(bankConnections.status, ["healthy", "error"]),
    or(isNull(bankConnections.syncLeaseUntil), lt(bankConnections.syncLeaseUntil, now)),
    or(
      // Left behind by a sync that never finished: retried as soon as it runs out.
      isNotNull(bankConnections.syncLeaseUntil),
      // Asked for while another sync ran, and not served (its holder died, or a pass was spent).
      isNotNull(bankConnections.syncRequestedAt),
      and(
        or(isNull(bankConnections.lastSyncedAt), lt(bankConnections.lastSyncedAt, staleBefore)),
        or(
          eq(bankConnections.status, "healthy"),
          isNull(bankConnections.lastSyncAttemptAt),
          lt(bankConnections.lastSyncAttemptAt, retryBefore),
        ),
      ),
    ),
    options.userIds ? inArray(bankConnections.userId, options.userIds) : undefined,
  );
}

const oldestFirst = () => [
  asc(sql`coalesce(${bankConnections.lastSyncedAt}, 'epoch'::timestamptz)`),
  asc(bankConnections.id),
];

/** Ids of connections due for a sync, oldest data first (a look only: nothing is claimed). */
export async function findDueConnections(db: Database, options: DueOptions = {}): Promise<string[]> {
  const now = options.now ?? new Date();
  const rows = await db
    .select({ id: bankConnections.id })
    .from(bankConnections)
    .where(dueWhere(options, now))
    .orderBy(...oldestFirst())
    .limit(options.batchSize ?? getEnv().SYNC_BATCH_SIZE);
  return rows.map((r) => r.id);
}

export interface ClaimedConnection {
  connectionId: string;
  holder: string;
}

/**
 * Claims up to the batch size of due connections, oldest data first, in one statement: the due
 * rows are locked `FOR UPDATE SKIP LOCKED` (rows another run is claiming at that moment are
 * passed over, not waited for; rows it has claimed are no longer due) and each gets a lease with
 * a holder of its own. Two runs at once therefore split the due connections, none twice.
 */
export async function claimDueConnections(
  db: Pick<Database, "execute">,
  options: DueOptions = {},
): Promise<ClaimedConnection[]> {
  const now = options.now ?? new Date();
  const run = newLeaseHolder();
  const until = new Date(now.getTime() + syncLeaseMs());
  const c = bankConnections;
  const result = await db.execute(sql`
    with due as materialized (
      select ${c.id} as id, coalesce(${c.lastSyncedAt}, 'epoch'::timestamptz) as since
      from ${c}
      where ${dueWhere(options, now)}
      order by 2, 1
      limit ${options.batchSize ?? getEnv().SYNC_BATCH_SIZE}
      for update skip locked
    ), claimed as (
      update ${c}
      set sync_lease_until = ${until.toISOString()}::timestamptz,
          sync_lease_holder = ${run} || ':' || ${c.id},
          last_sync_attempt_at = ${now.toISOString()}::timestamptz
      from due
      where ${c.id} = due.id
      returning ${c.id} as id, ${c.syncLeaseHolder} as holder
    )
    select claimed.id, claimed.holder from claimed join due on due.id = claimed.id
    order by due.since, due.id`);
  const rows = (result as unknown as { rows: Array<{ id: string; holder: string }> }).rows;
  return rows.map((r) => ({ connectionId: r.id, holder: r.holder }));
}
