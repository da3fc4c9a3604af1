/**
 * Scheduled sync: claiming the connections that are due and syncing them. Used by the cron route
 * (/api/cron/sync); the dashboard's "Sync now" (connections.ts `syncNow`) and webhooks go
 * through the same `syncConnection` of the sync engine, and the same lease (sync/lease.ts).
 *
 * A run claims its batch in one statement (`claimDueConnections`: oldest data first, at most
 * SYNC_BATCH_SIZE, `FOR UPDATE SKIP LOCKED`), so runs on several servers at once split the due
 * connections and each is fetched once. While the batch waits for its turn (CONCURRENCY at a
 * time) the run renews the leases of those not yet started; each sync renews its own.
 *
 * The report counts what happened: `synced` (written), `failed` (the provider or the database
 * failed; recorded on the connection), `skipped` (nothing written: the lease was lost to another
 * sync, another sync got there first, or the connection was disconnected meanwhile), and
 * `due` = synced + failed + skipped, the number claimed.
 */
import type { Database } from "@/db";
import { failureFields } from "@/lib/errors";
import { log } from "@/lib/log";
import { type SyncSummary, syncConnection } from "./sync";
import {
  type ClaimedConnection,
  claimDueConnections,
  type DueOptions,
  leaseClock,
  renewSyncLeases,
  syncLeaseMs,
} from "./sync/lease";

/** Syncs running at once (Plaid rate limits per item and per client; 2-core functions). */
export const CONCURRENCY = 3;

export interface SyncDueOptions extends DueOptions {
  /** Tests: runs once the batch is claimed, before any of it is synced. */
  afterClaim?: (claimed: readonly ClaimedConnection[]) => Promise<void>;
}

export type SyncOutcome = "synced" | "failed" | "skipped";

export interface DueSyncReport {
  /** Connections this run claimed: synced + failed + skipped. */
  due: number;
  synced: number;
  failed: number;
  skipped: number;
  /** Per connection: id, outcome, resulting status and our error code (never tokens or messages with data). */
  results: Array<{ connectionId: string; outcome: SyncOutcome; status: string; error?: string }>;
}

function outcomeOf(summary: SyncSummary): SyncOutcome {
  if (summary.error) return "failed";
  if (summary.skipped || summary.status === "disconnected") return "skipped";
  return "synced";
}

/** Claims the connections that are due (at most the batch size) and syncs them, a few at a time. */
export async function syncDueConnections(db: Database, options: SyncDueOptions = {}): Promise<DueSyncReport> {
  const now = options.now ?? new Date();
  const clock = leaseClock(now);
  const claimed = await claimDueConnections(db, { ...options, now });
  const waiting = new Map(claimed.map((c) => [c.connectionId, c]));
  const renew = setInterval(() => {
    renewSyncLeases(db, [...waiting.values()], new Date(clock().getTime() + syncLeaseMs())).catch(
      (error: unknown) => log.error("cron.lease_renew_failed", failureFields(error)),
    );
  }, syncLeaseMs() / 3);
  renew.unref();
  const results: DueSyncReport["results"] = [];
  let next = 0;
  const worker = async () => {
    while (next < claimed.length) {
      const { connectionId, holder } = claimed[next++]!;
      waiting.delete(connectionId);
      try {
        const summary = await syncConnection(db, connectionId, { now, lease: { holder } });
        results.push({
          connectionId,
          outcome: outcomeOf(summary),
          status: summary.status,
          ...(summary.error ? { error: summary.error.code } : {}),
        });
      } catch (error) {
        // Unexpected (database) failure of one connection: report it, keep going with the rest.
        log.error("cron.connection_failed", { connection_id: connectionId, ...failureFields(error) });
        results.push({ connectionId, outcome: "failed", status: "error", error: "internal" });
      }
    }
  };
  try {
    await options.afterClaim?.(claimed);
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, claimed.length) }, worker));
  } finally {
    clearInterval(renew);
  }
  const count = (outcome: SyncOutcome) => results.filter((r) => r.outcome === outcome).length;
  return {
    due: claimed.length,
    synced: count("synced"),
    failed: count("failed"),
    skipped: count("skipped"),
    results,
  };
}
