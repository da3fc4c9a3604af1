/**
 * Stage 3, write: one sync's fetched data into the database, inside the sync's ONE transaction
 * (index.ts opens it and locks the connection row), together with the new cursor, so a failure
 * leaves nothing half-written and the next sync starts from the old cursor.
 *
 * Idempotent: rows are upserted on their natural keys ((account, provider transaction id),
 * (connection, provider account id) …), so running a sync twice changes nothing. A posted
 * transaction replaces its pending one (map.ts `transactionsToDelete`), so a purchase is counted
 * once. Holdings the provider no longer reports were sold or moved and are dropped; the
 * provider's list of recurring streams is the whole truth for the connection. The derived data
 * (derived.ts) is written last, in the same transaction.
 */
import { and, eq, notInArray, sql } from "drizzle-orm";
import { type Database, isPooled } from "@/db";
import {
  bankAccounts,
  bankConnections,
  holdings,
  investmentTransactions,
  liabilities,
  recurringStreams,
  securities,
  transactions,
} from "@/db/schema";
import { failureFields } from "@/lib/errors";
import { log } from "@/lib/log";
import type { ProviderBalancePoint } from "../provider";
import { writeDerived } from "./derived";
import type { Fetched } from "./fetch";
import {
  accountRow,
  holdingRow,
  investmentTransactionRow,
  liabilityRow,
  securitiesOf,
  securityRow,
  streamRow,
  transactionRow,
  transactionsToDelete,
} from "./map";
import { chunks, excludedSet, type Tx } from "./util";

/**
 * Writes `fetched` for the connection and records the sync on it (cursor, healthy, last synced,
 * warnings). Returns how many balance snapshots it wrote.
 */
export async function writeSync(
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

  // One writer per person at a time, from the first write on: two of their banks syncing at once
  // (two servers' cron runs) both update the person's rollup rows, and each took the other's in
  // another order, or waited on the lock below that net worth takes late in the transaction
  // (migration 0012): a deadlock, one sync failed. Taken first, the second writer waits holding
  // nothing; the net worth function takes the same lock again (held to the transaction's end).
  await tx.execute(
    sql`select pg_advisory_xact_lock(hashtextextended(${`ledgerlink_net_worth_days:${userId}`}, 0))`,
  );

  // Accounts.
  const accountRows = fetched.accounts.length
    ? await tx
        .insert(bankAccounts)
        .values(fetched.accounts.map((a) => accountRow(userId, connectionId, a, now)))
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
  // An existing row gets the provider's category and transfer flag as provider_* (never
  // `category`: `excluded.category` is already the person's, derived by the BEFORE INSERT trigger
  // without the row's own override); the BEFORE UPDATE trigger derives the person's again
  // (migration 0021), so rules survive a re-sync.
  const upserts = [...fetched.added, ...fetched.modified].filter((t) => accountIdOf.has(t.providerAccountId));
  for (const part of chunks(upserts)) {
    await tx
      .insert(transactions)
      .values(part.map((t) => transactionRow(userId, accountIdOf.get(t.providerAccountId)!, t, now)))
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
          "providerCategory",
          "pending",
          "providerIsTransfer",
          "paymentChannel",
          "updatedAt",
        ]),
      });
  }
  // Every account's rows in one statement: each statement's triggers revise the rollups once
  // (one statement per account cost a one-day sync of the heavy user eight of them).
  const toDelete: Array<[accountId: string, providerTransactionId: string]> = [];
  for (const [providerAccountId, providerTransactionId] of transactionsToDelete(
    fetched.removed,
    fetched.added,
  )) {
    const accountId = accountIdOf.get(providerAccountId);
    if (accountId) toDelete.push([accountId, providerTransactionId]);
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
  const securityIdOf = new Map<string, string>();
  const allSecurities = securitiesOf(
    fetched.investments?.securities,
    fetched.investmentTransactions?.securities,
  );
  for (const part of chunks(allSecurities)) {
    const rows = await tx
      .insert(securities)
      .values(part.map((s) => securityRow(connectionId, s)))
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
          part.map((h) =>
            holdingRow(
              userId,
              accountIdOf.get(h.providerAccountId)!,
              securityIdOf.get(h.providerSecurityId)!,
              h,
              now,
            ),
          ),
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
          part.map((t) =>
            investmentTransactionRow(
              userId,
              accountIdOf.get(t.providerAccountId)!,
              t.providerSecurityId ? (securityIdOf.get(t.providerSecurityId) ?? null) : null,
              t,
            ),
          ),
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
      .values(liabilityRows.map((l) => liabilityRow(userId, accountIdOf.get(l.providerAccountId)!, l)))
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
        .values(part.map((s) => streamRow(userId, connectionId, accountIdOf.get(s.providerAccountId)!, s)))
        .onConflictDoUpdate({
          target: [recurringStreams.connectionId, recurringStreams.providerStreamId],
          set: excludedSet([
            "accountId",
            "direction",
            "merchantName",
            "description",
            "providerCategory",
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

  // Derived data: balance snapshots and the day's typical amounts.
  const snapshots = await writeDerived(tx, userId, fetched.accounts, accountIdOf, {
    today,
    fillFrom: options.fillFrom,
    history: options.history,
  });

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
  return { snapshots };
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
export async function maintainEmbedded(db: Database, rows: number): Promise<void> {
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
