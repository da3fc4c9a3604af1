/**
 * Scheduled sync: which connections are due, and syncing a batch of them. Used by the cron
 * route (/api/cron/sync); the dashboard's "Sync now" (connections.ts `syncNow`) and webhooks go
 * through the same `syncConnection` of the sync engine.
 *
 * Due = status `healthy` or `error` (a connection that needs the user — `reauth_required` — or
 * was `disconnected` cannot sync without them), last successful sync older than
 * SYNC_STALE_AFTER_MINUTES (or never), no sync holding its lease (sync.ts: a running sync renews
 * it, a killed one lets it run out within a minute and is retried at the next run), and, after
 * a failed attempt (`error`), none in the last RETRY_AFTER_MINUTES (so a bank that is down or
 * rate-limiting us is not hammered every run). Oldest data first, at most SYNC_BATCH_SIZE per run.
 */
import { and, asc, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { bankConnections } from "@/db/schema";
import { getEnv } from "@/lib/env";
import { failureFields } from "@/lib/errors";
import { log } from "@/lib/log";
import { type SyncSummary, syncConnection } from "./sync";

/** Minimum wait after a failed attempt on one connection. */
export const RETRY_AFTER_MINUTES = 10;
/** Syncs running at once (Plaid rate limits per item and per client; 2-core functions). */
const CONCURRENCY = 3;

export interface DueOptions {
  now?: Date;
  staleAfterMinutes?: number;
  batchSize?: number;
  /** Only these users' connections (tests on a shared database; re-syncing one customer). */
  userIds?: string[];
}

/** Ids of connections due for a sync, oldest data first. */
export async function findDueConnections(db: Database, options: DueOptions = {}): Promise<string[]> {
  const env = getEnv();
  const now = options.now ?? new Date();
  const staleBefore = new Date(
    now.getTime() - (options.staleAfterMinutes ?? env.SYNC_STALE_AFTER_MINUTES) * 60_000,
  );
  const retryBefore = new Date(now.getTime() - RETRY_AFTER_MINUTES * 60_000);
  const rows = await db
    .select({ id: bankConnections.id })
    .from(bankConnections)
    .where(
      and(
        inArray(bankConnections.status, ["healthy", "error"]),
        or(isNull(bankConnections.lastSyncedAt), lt(bankConnections.lastSyncedAt, staleBefore)),
        or(isNull(bankConnections.syncLeaseUntil), lt(bankConnections.syncLeaseUntil, now)),
        or(
          eq(bankConnections.status, "healthy"),
          isNull(bankConnections.lastSyncAttemptAt),
          lt(bankConnections.lastSyncAttemptAt, retryBefore),
        ),
        options.userIds ? inArray(bankConnections.userId, options.userIds) : undefined,
      ),
    )
    .orderBy(
      asc(sql`coalesce(${bankConnections.lastSyncedAt}, 'epoch'::timestamptz)`),
      asc(bankConnections.id),
    )
    .limit(options.batchSize ?? env.SYNC_BATCH_SIZE);
  return rows.map((r) => r.id);
}

export interface DueSyncReport {
  due: number;
  synced: number;
  failed: number;
  /** Per connection: id, resulting status and our error code (never tokens or messages with data). */
  results: Array<{ connectionId: string; status: string; error?: string }>;
}

/** Syncs the connections that are due (at most the batch size), a few at a time. */
export async function syncDueConnections(db: Database, options: DueOptions = {}): Promise<DueSyncReport> {
  const now = options.now ?? new Date();
  const ids = await findDueConnections(db, { ...options, now });
  const results: DueSyncReport["results"] = [];
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const connectionId = ids[next++]!;
      let summary: SyncSummary | undefined;
      try {
        summary = await syncConnection(db, connectionId, { now });
        results.push({
          connectionId,
          status: summary.status,
          ...(summary.error ? { error: summary.error.code } : {}),
        });
      } catch (error) {
        // Unexpected (database) failure of one connection: report it, keep going with the rest.
        log.error("cron.connection_failed", { connection_id: connectionId, ...failureFields(error) });
        results.push({ connectionId, status: "error", error: "internal" });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, ids.length) }, worker));
  const failed = results.filter((r) => r.error).length;
  return { due: ids.length, synced: results.length - failed, failed, results };
}
