/**
 * The sync engine: provider → database. The ONLY writer of bank data (accounts, transactions,
 * securities, holdings, investment transactions, liabilities, recurring streams, balance
 * snapshots) and of a connection's sync state.
 *
 * One sync = read everything from the provider first (all /transactions/sync pages, holdings,
 * investment transactions, liabilities, recurring streams, balance history), then write it in ONE
 * database transaction together with the new cursor, so a failure leaves nothing half-written
 * and the next sync starts from the old cursor (Plaid's recommended pattern:
 * https://plaid.com/docs/transactions/sync-migration/). One sync per connection runs at a time:
 * a sync first takes the connection's lease (sync-lease.ts), and one that cannot says a sync is
 * already running (`skipped: "already_running"`) without calling the provider. The write locks
 * the connection row and writes nothing (`skipped: "superseded"`) when its starting cursor was
 * already consumed or its lease was taken over by another sync.
 *
 * Idempotent: rows are upserted on their natural keys ((account, provider transaction id),
 * (connection, provider account id) …), so running a sync twice changes nothing.
 * A posted transaction replaces its pending one (deleted by `pendingTransactionId` even if the
 * provider forgot to list it as removed), so a purchase is counted once.
 *
 * Derived rows are written in the same transaction: triggers keep the monthly rollup and its
 * totals, the first-seen date of each merchant and each stream's latest price change (migrations
 * 0005, 0007, 0008, 0010), and the write ends by storing the typical amounts of
 * find_unusual_activity for the sync day (db/schema.ts `categoryTypicals`).
 *
 * Products the bank does not serve (investments, liabilities, recurring streams: ProviderError
 * `product_not_supported`) are not failures: the sync goes on without them and records one
 * warning per product in `SyncSummary.warnings` and on the connection (`bank_connections.warnings`,
 * replaced by every successful sync), where the Banks page and get_connection_status show it.
 *
 * Errors: a ProviderError `reauth_required` marks the connection `reauth_required`; any other
 * failure marks it `error`. Either way the last error is recorded and ALL existing data is kept
 * (tools serve it "as of the last successful sync").
 *
 * Balance snapshots (net-worth history): one row per account per day, upserted on
 * (account, date). Each sync writes the sync day (UTC) from the current balances and fills the
 * days since the account's last snapshot — on the first sync, the whole history window (24
 * months, or back to the oldest transaction received when that is older). The missing days come
 * from the provider's `getBalanceHistory` when it has one (the sandbox: exact for every account
 * type); otherwise they are derived backwards from the current balance and the posted
 * transactions (balance on day d = current − Σ amounts posted after d; for credit accounts the
 * owed amount moves the other way), which covers depository and credit accounts. Loan and
 * investment accounts of a provider without history (Plaid) start their history at their
 * first sync: a balance that cannot be derived is left missing rather than invented.
 */
import { and, eq, max, notInArray, sql } from "drizzle-orm";
import { type Database, isPooled, syncDatabaseFor } from "@/db";
import {
  balanceSnapshots,
  bankAccounts,
  bankConnections,
  type ConnectionStatus,
  type ConnectionWarning,
  holdings,
  investmentTransactions,
  liabilities,
  recurringStreams,
  securities,
  transactions,
} from "@/db/schema";
import { decryptSecret } from "@/lib/crypto";
import { AppError, failureFields } from "@/lib/errors";
import { log } from "@/lib/log";
import {
  type BankProvider,
  isProviderError,
  type ProviderAccount,
  type ProviderBalancePoint,
  type ProviderContext,
  type ProviderHolding,
  type ProviderInvestmentTransaction,
  type ProviderLiability,
  type ProviderRecurringStream,
  type ProviderSecurity,
  type ProviderTransaction,
  type RemovedTransaction,
} from "./provider";
import { getProvider } from "./registry";
import {
  leaseClock,
  newLeaseHolder,
  releaseSyncLease,
  renewSyncLease,
  syncLeaseMs,
  takeSyncLease,
} from "./sync-lease";

export { renewSyncLease } from "./sync-lease";

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
  /** The lease is already held under this holder id (the cron's claimed batch, sync-lease.ts). */
  lease?: { holder: string };
}

/** Associated data binding a stored access token to its connection (lib/crypto.ts). */
export function accessTokenAad(provider: string, providerItemId: string): string {
  return `bank-access-token:${provider}:${providerItemId}`;
}

const HISTORY_DAYS = 730;
const CHUNK = 1_000;
const MAX_PAGES = 10_000;

type Tx = Parameters<Parameters<Database["transaction"]>[0]>[0];

const isoDay = (date: Date) => date.toISOString().slice(0, 10);
const addDays = (iso: string, days: number) =>
  isoDay(new Date(Date.parse(`${iso}T00:00:00Z`) + days * 86_400_000));

function chunks<T>(items: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** `SET col = excluded.col` for an upsert (drizzle maps camelCase keys to snake_case columns). */
function excludedSet(keys: readonly string[]) {
  return Object.fromEntries(
    keys.map((key) => [key, sql.raw(`excluded.${key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`)]),
  );
}

type OptionalProduct = ConnectionWarning["product"];

const PRODUCT_TEXT: Record<OptionalProduct, string> = {
  investments: "Investments (holdings and trades)",
  liabilities: "Debt details (APRs, minimum payments, due dates)",
  recurring: "Recurring payments (subscriptions, bills, income streams)",
};

/** The warning recorded when the provider does not serve `product` for this item. */
function productWarning(product: OptionalProduct, providerCode: string | undefined): ConnectionWarning {
  // PRODUCT_NOT_READY (Plaid is still preparing the data) clears by itself on a later sync.
  const why =
    providerCode === "PRODUCT_NOT_READY"
      ? "are not ready yet at this bank; the next sync tries again"
      : "are not available from this bank";
  return {
    code: "PRODUCT_NOT_SUPPORTED",
    product,
    message: `${PRODUCT_TEXT[product]} ${why}.`,
    ...(providerCode ? { providerCode } : {}),
  };
}

/**
 * Calls a provider product, turning `product_not_supported` into null plus a warning in
 * `warnings` (one per product).
 */
async function optionalProduct<T>(
  product: OptionalProduct,
  warnings: ConnectionWarning[],
  call: () => Promise<T>,
): Promise<T | null> {
  try {
    return await call();
  } catch (error) {
    if (isProviderError(error) && error.code === "product_not_supported") {
      if (!warnings.some((w) => w.product === product)) {
        warnings.push(productWarning(product, error.providerCode));
      }
      return null;
    }
    throw error;
  }
}

interface Fetched {
  accounts: ProviderAccount[];
  added: ProviderTransaction[];
  modified: ProviderTransaction[];
  removed: RemovedTransaction[];
  cursor: string;
  investments: { holdings: ProviderHolding[]; securities: ProviderSecurity[] } | null;
  investmentTransactions: {
    investmentTransactions: ProviderInvestmentTransaction[];
    securities: ProviderSecurity[];
  } | null;
  liabilities: ProviderLiability[] | null;
  streams: ProviderRecurringStream[] | null;
  warnings: ConnectionWarning[];
}

async function fetchFromProvider(
  provider: BankProvider,
  accessToken: string,
  startCursor: string | null,
  ctx: ProviderContext,
): Promise<Fetched> {
  const accounts = await provider.getAccounts(accessToken, ctx);
  const added: ProviderTransaction[] = [];
  const modified: ProviderTransaction[] = [];
  const removed: RemovedTransaction[] = [];
  let cursor = startCursor;
  for (let page = 0; ; page++) {
    if (page >= MAX_PAGES)
      throw new AppError("internal", "The provider kept returning more transaction pages.");
    const result = await provider.syncTransactions(accessToken, cursor, ctx);
    added.push(...result.added);
    modified.push(...result.modified);
    removed.push(...result.removed);
    cursor = result.nextCursor;
    if (!result.hasMore) break;
  }
  const today = isoDay(ctx.now);
  const warnings: ConnectionWarning[] = [];
  const investments = await optionalProduct("investments", warnings, () =>
    provider.getHoldings(accessToken, ctx),
  );
  const investmentTxns = investments
    ? await optionalProduct("investments", warnings, () =>
        provider.getInvestmentTransactions(
          accessToken,
          { startDate: addDays(today, -HISTORY_DAYS), endDate: today },
          ctx,
        ),
      )
    : null;
  const liabilityRows = await optionalProduct("liabilities", warnings, () =>
    provider.getLiabilities(accessToken, ctx),
  );
  const streams = await optionalProduct("recurring", warnings, () =>
    provider.getRecurringStreams(accessToken, ctx),
  );
  return {
    accounts,
    added,
    modified,
    removed,
    cursor: cursor ?? "",
    investments,
    investmentTransactions: investmentTxns,
    liabilities: liabilityRows,
    streams,
    warnings,
  };
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
  const emptySummary = (status: ConnectionStatus): SyncSummary => ({
    connectionId,
    status,
    added: 0,
    modified: 0,
    removed: 0,
    accounts: 0,
    snapshots: 0,
  });
  // The lease first: a sync that cannot hold it reads nothing from the provider.
  const holder = options.lease?.holder ?? newLeaseHolder();
  const connection = options.lease
    ? (await db.select().from(bankConnections).where(eq(bankConnections.id, connectionId)).limit(1))[0]
    : await takeSyncLease(db, connectionId, holder, now);
  if (!connection || connection.syncLeaseHolder !== holder || connection.status === "disconnected") {
    const [row] = connection
      ? [connection]
      : await db.select().from(bankConnections).where(eq(bankConnections.id, connectionId)).limit(1);
    if (!row) throw new AppError("not_found", "No such bank connection.");
    if (options.lease) await releaseSyncLease(db, connectionId, holder);
    if (row.status === "disconnected") return emptySummary(row.status);
    log.info("sync.already_running", { connection_id: connectionId });
    return { ...emptySummary(row.status), skipped: "already_running" };
  }
  const summary = emptySummary(connection.status);
  // Renewed while the sync runs, released when it ends (only by its holder).
  const renew = setInterval(() => {
    renewSyncLease(db, connectionId, holder, new Date(clock().getTime() + syncLeaseMs())).catch(
      (error: unknown) => log.error("sync.lease_renew_failed", failureFields(error)),
    );
  }, syncLeaseMs() / 3);
  renew.unref();

  // The heavy reads and the one write transaction go through the sync pool (longer statement bound).
  const writer = syncDatabaseFor(db);
  try {
    const provider = options.provider ?? getProvider(connection.provider, db);
    const accessToken = decryptSecret(
      connection.accessTokenCiphertext,
      connection.accessTokenKeyVersion,
      accessTokenAad(connection.provider, connection.providerItemId),
    );
    const ctx: ProviderContext = { now };
    const fetched = await fetchFromProvider(provider, accessToken, connection.syncCursor, ctx);

    // Which days each account still lacks in its snapshot history.
    const today = isoDay(now);
    const lastSnapshots = await writer
      .select({ providerAccountId: bankAccounts.providerAccountId, last: max(balanceSnapshots.date) })
      .from(bankAccounts)
      .leftJoin(balanceSnapshots, eq(balanceSnapshots.accountId, bankAccounts.id))
      .where(and(eq(bankAccounts.connectionId, connectionId), eq(bankAccounts.userId, connection.userId)))
      .groupBy(bankAccounts.providerAccountId);
    const lastByAccount = new Map(lastSnapshots.map((r) => [r.providerAccountId, r.last]));
    let initialStart = addDays(today, -HISTORY_DAYS);
    for (const t of fetched.added) if (t.date < initialStart) initialStart = t.date;
    const fillFrom = new Map<string, string>();
    for (const account of fetched.accounts) {
      const last = lastByAccount.get(account.providerAccountId);
      const from = last ? addDays(last, 1) : initialStart;
      if (from < today) fillFrom.set(account.providerAccountId, from);
    }
    let history: ProviderBalancePoint[] | null = null;
    if (fillFrom.size > 0 && provider.getBalanceHistory) {
      const earliest = [...fillFrom.values()].sort()[0]!;
      history = await provider.getBalanceHistory(
        accessToken,
        { startDate: earliest, endDate: addDays(today, -1) },
        ctx,
      );
    }

    const written = await writer.transaction(async (tx) => {
      const [locked] = await tx
        .select({ syncCursor: bankConnections.syncCursor, holder: bankConnections.syncLeaseHolder })
        .from(bankConnections)
        .where(eq(bankConnections.id, connectionId))
        .for("update");
      if (!locked || locked.syncCursor !== connection.syncCursor || locked.holder !== holder) return null;
      return writeSync(tx, connection.userId, connectionId, fetched, { now, today, fillFrom, history });
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
  } finally {
    clearInterval(renew);
    await releaseSyncLease(db, connectionId, holder).catch((error: unknown) =>
      log.error("sync.lease_release_failed", failureFields(error)),
    );
  }
}

/** Rows syncs must write before the embedded database is vacuumed and its statistics gathered again. */
const MAINTAIN_AFTER_ROWS = 1000;

/** Rows written into each embedded database by syncs since its last vacuum. */
const rowsSinceVacuum = new WeakMap<object, number>();

/**
 * Embedded PGlite has no autovacuum. Without it nothing would gather the planner's statistics, and
 * a long history would be read with plans made for empty tables (on the heavy user that doubles
 * the cost of the debts and bills). Nothing would reclaim the old versions of rows either, and
 * the rollups' triggers rewrite their rows on every sync (a first history left 15 dead versions
 * for each live row of `net_worth_days`, read on every daily net-worth question). Once syncs have
 * written enough rows (a bank's first history, or many days of a few), the database is vacuumed
 * and analyzed, as autovacuum does on a server. A failure is logged, never the sync's.
 */
async function maintainEmbedded(db: Database, rows: number): Promise<void> {
  if (isPooled(db)) return;
  const written = (rowsSinceVacuum.get(db) ?? 0) + rows;
  if (written < MAINTAIN_AFTER_ROWS) {
    rowsSinceVacuum.set(db, written);
    return;
  }
  rowsSinceVacuum.set(db, 0);
  await db
    .execute(sql`vacuum (analyze)`)
    .catch((error: unknown) => log.error("sync.vacuum_failed", failureFields(error)));
}

async function writeSync(
  tx: Tx,
  userId: string,
  connectionId: string,
  fetched: Fetched,
  options: {
    now: Date;
    today: string;
    fillFrom: Map<string, string>;
    history: ProviderBalancePoint[] | null;
  },
): Promise<{ snapshots: number }> {
  const { now, today } = options;

  // Accounts.
  const accountRows = fetched.accounts.length
    ? await tx
        .insert(bankAccounts)
        .values(
          fetched.accounts.map((a) => ({
            userId,
            connectionId,
            providerAccountId: a.providerAccountId,
            name: a.name,
            officialName: a.officialName,
            mask: a.mask,
            type: a.type,
            subtype: a.subtype,
            currency: a.currency,
            currentBalanceMinor: a.currentBalanceMinor,
            availableBalanceMinor: a.availableBalanceMinor,
            limitMinor: a.limitMinor,
            isClosed: false,
            balanceAsOf: now,
          })),
        )
        .onConflictDoUpdate({
          target: [bankAccounts.connectionId, bankAccounts.providerAccountId],
          set: excludedSet([
            "name",
            "officialName",
            "mask",
            "type",
            "subtype",
            "currency",
            "currentBalanceMinor",
            "availableBalanceMinor",
            "limitMinor",
            "isClosed",
            "balanceAsOf",
          ]),
        })
        .returning({
          id: bankAccounts.id,
          providerAccountId: bankAccounts.providerAccountId,
          type: bankAccounts.type,
        })
    : [];
  const accountIdOf = new Map(accountRows.map((r) => [r.providerAccountId, r.id]));

  // Transactions: upsert added and modified, then drop removed ones and pendings replaced by their posted one.
  const upserts = [...fetched.added, ...fetched.modified].filter((t) => accountIdOf.has(t.providerAccountId));
  for (const part of chunks(upserts)) {
    await tx
      .insert(transactions)
      .values(
        part.map((t) => ({
          userId,
          accountId: accountIdOf.get(t.providerAccountId)!,
          providerTransactionId: t.providerTransactionId,
          pendingTransactionId: t.pendingTransactionId,
          date: t.date,
          authorizedDate: t.authorizedDate,
          name: t.name,
          merchantName: t.merchantName,
          amountMinor: t.amountMinor,
          currency: t.currency,
          category: t.category,
          pending: t.pending,
          isTransfer: t.isTransfer,
          paymentChannel: t.paymentChannel,
          updatedAt: now,
        })),
      )
      .onConflictDoUpdate({
        target: [transactions.accountId, transactions.providerTransactionId],
        set: excludedSet([
          "pendingTransactionId",
          "date",
          "authorizedDate",
          "name",
          "merchantName",
          "amountMinor",
          "currency",
          "category",
          "pending",
          "isTransfer",
          "paymentChannel",
          "updatedAt",
        ]),
      });
  }
  // Every account's rows in one statement: each statement's triggers revise the rollups once
  // (one statement per account cost a one-day sync of the heavy user eight of them).
  const toDelete: Array<[accountId: string, providerTransactionId: string]> = [];
  const markDeleted = (providerAccountId: string, providerTransactionId: string) => {
    const accountId = accountIdOf.get(providerAccountId);
    if (accountId) toDelete.push([accountId, providerTransactionId]);
  };
  for (const r of fetched.removed) markDeleted(r.providerAccountId, r.providerTransactionId);
  for (const t of fetched.added) {
    if (!t.pending && t.pendingTransactionId) markDeleted(t.providerAccountId, t.pendingTransactionId);
  }
  const key = sql`(${transactions.accountId}, ${transactions.providerTransactionId})`;
  for (const part of chunks(toDelete)) {
    const accountIds = sql.param(part.map(([accountId]) => accountId));
    const ids = sql.param(part.map(([, id]) => id));
    await tx
      .delete(transactions)
      .where(
        and(
          eq(transactions.userId, userId),
          sql`${key} in (select * from unnest(${accountIds}::text[], ${ids}::text[]))`,
        ),
      );
  }

  // Securities, holdings and investment transactions.
  const allSecurities = new Map<string, ProviderSecurity>();
  for (const s of fetched.investments?.securities ?? []) allSecurities.set(s.providerSecurityId, s);
  for (const s of fetched.investmentTransactions?.securities ?? []) {
    if (!allSecurities.has(s.providerSecurityId)) allSecurities.set(s.providerSecurityId, s);
  }
  const securityIdOf = new Map<string, string>();
  for (const part of chunks([...allSecurities.values()])) {
    const rows = await tx
      .insert(securities)
      .values(
        part.map((s) => ({
          connectionId,
          providerSecurityId: s.providerSecurityId,
          name: s.name,
          tickerSymbol: s.tickerSymbol,
          type: s.type,
          closePrice: s.closePrice,
          closePriceAsOf: s.closePriceAsOf,
          currency: s.currency,
        })),
      )
      .onConflictDoUpdate({
        target: [securities.connectionId, securities.providerSecurityId],
        set: excludedSet(["name", "tickerSymbol", "type", "closePrice", "closePriceAsOf", "currency"]),
      })
      .returning({ id: securities.id, providerSecurityId: securities.providerSecurityId });
    for (const r of rows) securityIdOf.set(r.providerSecurityId, r.id);
  }
  if (fetched.investments) {
    const rows = fetched.investments.holdings.filter(
      (h) => accountIdOf.has(h.providerAccountId) && securityIdOf.has(h.providerSecurityId),
    );
    for (const part of chunks(rows)) {
      await tx
        .insert(holdings)
        .values(
          part.map((h) => ({
            userId,
            accountId: accountIdOf.get(h.providerAccountId)!,
            securityId: securityIdOf.get(h.providerSecurityId)!,
            quantity: h.quantity,
            price: h.price,
            valueMinor: h.valueMinor,
            costBasisMinor: h.costBasisMinor,
            currency: h.currency,
            asOf: now,
          })),
        )
        .onConflictDoUpdate({
          target: [holdings.accountId, holdings.securityId],
          set: excludedSet(["quantity", "price", "valueMinor", "costBasisMinor", "currency", "asOf"]),
        });
    }
    // Positions the provider no longer reports were sold or moved: drop them.
    for (const row of accountRows) {
      if (row.type !== "investment") continue;
      const kept = rows
        .filter((h) => h.providerAccountId === row.providerAccountId)
        .map((h) => securityIdOf.get(h.providerSecurityId)!);
      await tx
        .delete(holdings)
        .where(
          and(
            eq(holdings.userId, userId),
            eq(holdings.accountId, row.id),
            ...(kept.length ? [notInArray(holdings.securityId, kept)] : []),
          ),
        );
    }
  }
  if (fetched.investmentTransactions) {
    const rows = fetched.investmentTransactions.investmentTransactions.filter((t) =>
      accountIdOf.has(t.providerAccountId),
    );
    for (const part of chunks(rows)) {
      await tx
        .insert(investmentTransactions)
        .values(
          part.map((t) => ({
            userId,
            accountId: accountIdOf.get(t.providerAccountId)!,
            securityId: t.providerSecurityId ? (securityIdOf.get(t.providerSecurityId) ?? null) : null,
            providerInvestmentTransactionId: t.providerInvestmentTransactionId,
            date: t.date,
            name: t.name,
            type: t.type,
            subtype: t.subtype,
            quantity: t.quantity,
            price: t.price,
            amountMinor: t.amountMinor,
            feesMinor: t.feesMinor,
            currency: t.currency,
          })),
        )
        .onConflictDoUpdate({
          target: [investmentTransactions.accountId, investmentTransactions.providerInvestmentTransactionId],
          set: excludedSet([
            "securityId",
            "date",
            "name",
            "type",
            "subtype",
            "quantity",
            "price",
            "amountMinor",
            "feesMinor",
            "currency",
          ]),
        });
    }
  }

  // Liabilities.
  const liabilityRows = (fetched.liabilities ?? []).filter((l) => accountIdOf.has(l.providerAccountId));
  if (liabilityRows.length) {
    await tx
      .insert(liabilities)
      .values(
        liabilityRows.map((l) => ({
          accountId: accountIdOf.get(l.providerAccountId)!,
          userId,
          kind: l.kind,
          aprPercentage: l.aprPercentage,
          minimumPaymentMinor: l.minimumPaymentMinor,
          nextPaymentDueDate: l.nextPaymentDueDate,
          lastPaymentDate: l.lastPaymentDate,
          lastPaymentAmountMinor: l.lastPaymentAmountMinor,
          lastStatementBalanceMinor: l.lastStatementBalanceMinor,
          isOverdue: l.isOverdue,
          originationPrincipalMinor: l.originationPrincipalMinor,
          maturityDate: l.maturityDate,
          details: l.details,
        })),
      )
      .onConflictDoUpdate({
        target: liabilities.accountId,
        set: excludedSet([
          "kind",
          "aprPercentage",
          "minimumPaymentMinor",
          "nextPaymentDueDate",
          "lastPaymentDate",
          "lastPaymentAmountMinor",
          "lastStatementBalanceMinor",
          "isOverdue",
          "originationPrincipalMinor",
          "maturityDate",
          "details",
        ]),
      });
  }

  // Recurring streams: the provider's list is the whole truth for this connection.
  if (fetched.streams) {
    const rows = fetched.streams.filter((s) => accountIdOf.has(s.providerAccountId));
    for (const part of chunks(rows)) {
      await tx
        .insert(recurringStreams)
        .values(
          part.map((s) => ({
            userId,
            connectionId,
            accountId: accountIdOf.get(s.providerAccountId)!,
            providerStreamId: s.providerStreamId,
            direction: s.direction,
            merchantName: s.merchantName,
            description: s.description,
            category: s.category,
            frequency: s.frequency,
            averageAmountMinor: s.averageAmountMinor,
            lastAmountMinor: s.lastAmountMinor,
            firstDate: s.firstDate,
            lastDate: s.lastDate,
            predictedNextDate: s.predictedNextDate,
            isActive: s.isActive,
            transactionIds: s.transactionIds,
          })),
        )
        .onConflictDoUpdate({
          target: [recurringStreams.connectionId, recurringStreams.providerStreamId],
          set: excludedSet([
            "accountId",
            "direction",
            "merchantName",
            "description",
            "category",
            "frequency",
            "averageAmountMinor",
            "lastAmountMinor",
            "firstDate",
            "lastDate",
            "predictedNextDate",
            "isActive",
            "transactionIds",
          ]),
        });
    }
    await tx.delete(recurringStreams).where(
      and(
        eq(recurringStreams.userId, userId),
        eq(recurringStreams.connectionId, connectionId),
        ...(rows.length
          ? [
              notInArray(
                recurringStreams.providerStreamId,
                rows.map((s) => s.providerStreamId),
              ),
            ]
          : []),
      ),
    );
  }

  // Balance snapshots: today from the current balances, missing past days from history.
  const snapshots: Array<typeof balanceSnapshots.$inferInsert> = [];
  for (const account of fetched.accounts) {
    const accountId = accountIdOf.get(account.providerAccountId);
    if (!accountId || account.currentBalanceMinor === null) continue;
    snapshots.push({
      accountId,
      userId,
      date: today,
      currentBalanceMinor: account.currentBalanceMinor,
      availableBalanceMinor: account.availableBalanceMinor,
    });
  }
  if (options.history) {
    for (const point of options.history) {
      const accountId = accountIdOf.get(point.providerAccountId);
      const from = options.fillFrom.get(point.providerAccountId);
      if (!accountId || !from || point.date < from || point.date >= today) continue;
      snapshots.push({
        accountId,
        userId,
        date: point.date,
        currentBalanceMinor: point.currentBalanceMinor,
        availableBalanceMinor: point.availableBalanceMinor,
      });
    }
  } else {
    snapshots.push(
      ...(await deriveHistory(tx, userId, fetched.accounts, accountIdOf, options.fillFrom, today)),
    );
  }
  for (const part of chunks(snapshots)) {
    await tx
      .insert(balanceSnapshots)
      .values(part)
      .onConflictDoUpdate({
        target: [balanceSnapshots.accountId, balanceSnapshots.date],
        set: excludedSet(["currentBalanceMinor", "availableBalanceMinor"]),
      });
  }

  // Typical amounts for find_unusual_activity, anchored at this sync's day (migration 0007).
  await tx.execute(sql`select ledgerlink_store_typicals(${userId}, ${today}::date)`);

  await tx
    .update(bankConnections)
    .set({
      syncCursor: fetched.cursor,
      status: "healthy",
      lastSyncedAt: now,
      lastErrorCode: null,
      lastErrorMessage: null,
      warnings: fetched.warnings.length ? fetched.warnings : null,
    })
    .where(and(eq(bankConnections.id, connectionId), eq(bankConnections.userId, userId)));
  return { snapshots: snapshots.length };
}

/**
 * Past daily balances derived from the current balance and the posted transactions stored
 * (depository and credit accounts only; see the header comment).
 */
async function deriveHistory(
  tx: Tx,
  userId: string,
  accounts: ProviderAccount[],
  accountIdOf: Map<string, string>,
  fillFrom: Map<string, string>,
  today: string,
): Promise<Array<typeof balanceSnapshots.$inferInsert>> {
  const out: Array<typeof balanceSnapshots.$inferInsert> = [];
  for (const account of accounts) {
    const accountId = accountIdOf.get(account.providerAccountId);
    const from = fillFrom.get(account.providerAccountId);
    if (!accountId || !from || account.currentBalanceMinor === null) continue;
    if (account.type !== "depository" && account.type !== "credit") continue;
    const daily = await tx
      .select({ date: transactions.date, total: sql<string>`sum(${transactions.amountMinor})` })
      .from(transactions)
      .where(
        and(
          eq(transactions.userId, userId),
          eq(transactions.accountId, accountId),
          eq(transactions.pending, false),
          sql`${transactions.date} > ${from}`,
        ),
      )
      .groupBy(transactions.date);
    const byDate = new Map(daily.map((r) => [r.date, Number(r.total)]));
    // Walk back from today: the balance at the end of day d excludes what posted after d.
    const sign = account.type === "credit" ? -1 : 1;
    let balance = account.currentBalanceMinor;
    for (let date = today; date > from; ) {
      balance -= sign * (byDate.get(date) ?? 0);
      date = addDays(date, -1);
      out.push({ accountId, userId, date, currentBalanceMinor: balance, availableBalanceMinor: null });
    }
  }
  return out;
}
