/**
 * The sync engine: provider → database. The ONLY writer of bank data (accounts, transactions,
 * securities, holdings, investment transactions, liabilities, recurring streams, balance
 * snapshots) and of a connection's sync state. `syncConnection` runs one sync through its stages:
 *
 * 1. lease.ts — one sync per connection at a time: the sync takes the connection's lease (a
 *    conditional update, with a holder id of its own), or says a sync is already running
 *    (`skipped: "already_running"`) without calling the provider, and records the request
 *    (`sync_requested_at`). The cron claims its batch with the lease already taken
 *    (`claimDueConnections`). A holder whose pass succeeded runs one more pass at once when a
 *    request arrived after its pass started (`endSyncPass`, the statement that releases the lease).
 * 2. fetch.ts — read everything from the provider first (all /transactions/sync pages, holdings,
 *    investment transactions, liabilities, recurring streams, and the balance history
 *    derived.ts finds missing); products the bank does not serve become warnings.
 * 3. map.ts and write.ts — write it in ONE database transaction together with the new cursor,
 *    so a failure leaves nothing half-written and the next sync starts from the old cursor
 *    (Plaid's recommended pattern: https://plaid.com/docs/transactions/sync-migration/). The
 *    transaction locks the connection row and writes nothing (`skipped: "superseded"`) when its
 *    starting cursor was already consumed or its lease was taken over by another sync.
 * 4. derived.ts — balance snapshots and typical amounts, in the same transaction.
 *
 * Errors: a ProviderError `reauth_required` marks the connection `reauth_required`; any other
 * failure marks it `error`. Either way the last error is recorded and ALL existing data is kept
 * (tools serve it "as of the last successful sync"). The lease is released when the sync ends;
 * a killed sync's lease runs out and the next cron run syncs the connection again.
 */
import { and, eq, getTableColumns } from "drizzle-orm";
import { type Database, syncDatabaseFor } from "@/db";
import { bankConnections, type ConnectionStatus, type ConnectionWarning } from "@/db/schema";
import { decryptSecret } from "@/lib/crypto";
import { AppError, failureFields } from "@/lib/errors";
import { log } from "@/lib/log";
import { type BankProvider, isProviderError, type ProviderContext } from "../provider";
import { getProvider } from "../registry";
import { snapshotGaps } from "./derived";
import { fetchBalanceHistory, fetchFromProvider } from "./fetch";
import {
  endSyncPass,
  leaseClock,
  newLeaseHolder,
  type PassRow,
  passStartColumn,
  recordSyncRequest,
  releaseSyncLease,
  renewSyncLease,
  syncLeaseMs,
  takeSyncLease,
} from "./lease";
import { isoDay } from "./util";
import { maintainEmbedded, writeSync } from "./write";

export interface SyncSummary {
  connectionId: string;
  status: ConnectionStatus;
  /** Transactions added, modified and removed by this sync (as the provider reported them). */
  added: number;
  modified: number;
  removed: number;
  accounts: number;
  snapshots: number;
  /**
   * Set when this sync wrote nothing: `already_running` when another sync held the connection's
   * lease (nothing was fetched from the provider), `superseded` when another sync got there
   * first while this one was fetching (its data is already written).
   */
  skipped?: "already_running" | "superseded";
  error?: { code: string; message: string; requestId?: string };
  /** Products the bank does not serve for this connection (the sync succeeded without them). */
  warnings?: ConnectionWarning[];
}

export interface SyncOptions {
  /** The sync clock (default: now). The sandbox anchors its history to it. */
  now?: Date;
  /** Use this provider instead of the registry's (tests). */
  provider?: BankProvider;
  /** The lease is already held under this holder id (the cron's claimed batch, lease.ts). */
  lease?: { holder: string };
}

/** Associated data binding a stored access token to its connection (lib/crypto.ts). */
export function accessTokenAad(provider: string, providerItemId: string): string {
  return `bank-access-token:${provider}:${providerItemId}`;
}

/**
 * Syncs one connection from its provider into the database. Never throws for provider
 * failures: they are recorded on the connection and returned in the summary. Throws
 * `not_found` for an unknown connection and rethrows unexpected (database) errors after
 * recording them.
 */
export async function syncConnection(
  db: Database,
  connectionId: string,
  options: SyncOptions = {},
): Promise<SyncSummary> {
  const now = options.now ?? new Date();
  const clock = leaseClock(now);
  // The lease first: a sync that cannot hold it reads nothing from the provider.
  const holder = options.lease?.holder ?? newLeaseHolder();
  const connection = options.lease
    ? ((
        await db
          .select({ ...getTableColumns(bankConnections), passStartedAt: passStartColumn() })
          .from(bankConnections)
          .where(eq(bankConnections.id, connectionId))
          .limit(1)
      )[0] ?? null)
    : await takeSyncLease(db, connectionId, holder, now);
  if (!connection || connection.syncLeaseHolder !== holder || connection.status === "disconnected") {
    if (options.lease) await releaseSyncLease(db, connectionId, holder);
    // Refused while another sync holds the lease: the request is recorded for its holder (or the cron).
    const requested = !options.lease && !connection ? await requestSync(db, connectionId) : null;
    if (requested) {
      log.info("sync.already_running", { connection_id: connectionId, requested: true });
      return { ...emptySummary(connectionId, requested), skipped: "already_running" };
    }
    const [row] = connection
      ? [connection]
      : await db.select().from(bankConnections).where(eq(bankConnections.id, connectionId)).limit(1);
    if (!row) throw new AppError("not_found", "No such bank connection.");
    if (row.status === "disconnected") return emptySummary(connectionId, row.status);
    log.info("sync.already_running", { connection_id: connectionId });
    return { ...emptySummary(connectionId, row.status), skipped: "already_running" };
  }
  // Renewed while the sync runs, released when it ends (only by its holder).
  const renew = setInterval(() => {
    renewSyncLease(db, connectionId, holder, new Date(clock().getTime() + syncLeaseMs())).catch(
      (error: unknown) => log.error("sync.lease_renew_failed", failureFields(error)),
    );
  }, syncLeaseMs() / 3);
  renew.unref();
  let pass: PassRow = connection;
  let ended = false;
  try {
    const provider = options.provider ?? getProvider(connection.provider, db);
    const first = await syncPass(db, pass, provider, now);
    if (first.skipped || first.error) return first;
    // A sync asked for while this pass ran (a webhook after its pages were read): one more pass at
    // once, in the statement that would otherwise release the lease. One only, so a storm of
    // webhooks cannot hold the sync forever; a request newer than that pass is left for the cron.
    const next = await endSyncPass(db, connectionId, holder, pass.passStartedAt, {
      until: new Date(clock().getTime() + syncLeaseMs()),
      now: clock(),
    });
    ended = !next;
    if (!next) return first;
    log.info("sync.requested_pass", { connection_id: connectionId });
    pass = next;
    const second = await syncPass(db, pass, provider, clock());
    if (second.skipped) return first;
    return {
      ...second,
      added: first.added + second.added,
      modified: first.modified + second.modified,
      removed: first.removed + second.removed,
    };
  } finally {
    clearInterval(renew);
    if (!ended) {
      await endSyncPass(db, connectionId, holder, pass.passStartedAt).catch((error: unknown) =>
        log.error("sync.lease_release_failed", failureFields(error)),
      );
    }
  }
}

function emptySummary(connectionId: string, status: ConnectionStatus): SyncSummary {
  return { connectionId, status, added: 0, modified: 0, removed: 0, accounts: 0, snapshots: 0 };
}

/**
 * Records a refused sync's request; the connection's status, or null when it is gone or
 * disconnected (or the request could not be recorded).
 */
async function requestSync(db: Database, connectionId: string): Promise<ConnectionStatus | null> {
  try {
    return await recordSyncRequest(db, connectionId);
  } catch (error) {
    // The holder's write kept the row locked past the lock bound: its data lands without this request.
    log.warn("sync.request_not_recorded", { connection_id: connectionId, ...failureFields(error) });
    return null;
  }
}

/**
 * One pass of a sync whose lease `holder` holds: fetch, then write in one transaction. Records a
 * provider failure on the connection and returns it in the summary; rethrows unexpected errors.
 */
async function syncPass(
  db: Database,
  connection: PassRow,
  provider: BankProvider,
  now: Date,
): Promise<SyncSummary> {
  const connectionId = connection.id;
  const holder = connection.syncLeaseHolder!;
  const summary = emptySummary(connectionId, connection.status);
  // The heavy reads and the one write transaction go through the sync pool (longer statement bound).
  const writer = syncDatabaseFor(db);
  try {
    const accessToken = decryptSecret(
      connection.accessTokenCiphertext,
      connection.accessTokenKeyVersion,
      accessTokenAad(connection.provider, connection.providerItemId),
    );
    const ctx: ProviderContext = { now };
    const fetched = await fetchFromProvider(provider, accessToken, connection.syncCursor, ctx);

    // The days the balance history lacks, and the provider's balances for them when it has some.
    const today = isoDay(now);
    const gaps = await snapshotGaps(writer, connectionId, connection.userId, fetched, today);
    const history = await fetchBalanceHistory(provider, accessToken, gaps.earliest, ctx);

    const written = await writer.transaction(async (tx) => {
      const [locked] = await tx
        .select({ syncCursor: bankConnections.syncCursor, holder: bankConnections.syncLeaseHolder })
        .from(bankConnections)
        .where(eq(bankConnections.id, connectionId))
        .for("update");
      if (!locked || locked.syncCursor !== connection.syncCursor || locked.holder !== holder) return null;
      return writeSync(tx, connection.userId, connectionId, fetched, {
        now,
        today,
        fillFrom: gaps.fillFrom,
        history,
      });
    });
    if (!written) return { ...summary, skipped: "superseded" };
    await maintainEmbedded(
      db,
      fetched.added.length + fetched.modified.length + fetched.removed.length + written.snapshots,
    );
    return {
      ...summary,
      status: "healthy",
      added: fetched.added.length,
      modified: fetched.modified.length,
      removed: fetched.removed.length,
      accounts: fetched.accounts.length,
      snapshots: written.snapshots,
      ...(fetched.warnings.length ? { warnings: fetched.warnings } : {}),
    };
  } catch (error) {
    const providerError = isProviderError(error) ? error : null;
    const code = providerError?.code ?? (error instanceof AppError ? error.code : "internal");
    const message =
      providerError?.message ?? (error instanceof AppError ? error.message : "The sync failed unexpectedly.");
    const status: ConnectionStatus = code === "reauth_required" ? "reauth_required" : "error";
    // Recorded only while this sync holds the lease: a sync that took over may have succeeded.
    await db
      .update(bankConnections)
      .set({ status, lastErrorCode: code, lastErrorMessage: message })
      .where(and(eq(bankConnections.id, connectionId), eq(bankConnections.syncLeaseHolder, holder)));
    if (!providerError && !(error instanceof AppError)) throw error;
    return {
      ...summary,
      status,
      error: { code, message, ...(providerError?.requestId ? { requestId: providerError.requestId } : {}) },
    };
  }
}
