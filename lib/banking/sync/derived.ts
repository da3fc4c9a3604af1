/**
 * Stage 4, derived data: what the sync computes from the bank's data rather than copies, written
 * in the sync's one transaction after the bank data (write.ts calls `writeDerived`).
 *
 * Balance snapshots (net-worth history): one row per account per day, upserted on
 * (account, date). Each sync writes the sync day (UTC) from the current balances and fills the
 * days since the account's last snapshot — on the first sync, the whole history window (24
 * months, or back to the oldest transaction received when that is older): `snapshotGaps` finds
 * them before the write, so the fetch can ask the provider for them. The missing days come from
 * the provider's `getBalanceHistory` when it has one (the sandbox: exact for every account
 * type); otherwise they are derived backwards from the current balance and the posted
 * transactions (balance on day d = current − Σ amounts posted after d; for credit accounts the
 * owed amount moves the other way), which covers depository and credit accounts. Loan and
 * investment accounts of a provider without history (Plaid) start their history at their
 * first sync: a balance that cannot be derived is left missing rather than invented.
 *
 * The typical amounts of find_unusual_activity are stored for the sync day
 * (`ledgerlink_store_typicals`, db/schema.ts `categoryTypicals`). The other derived rows are kept
 * by triggers as the bank data is written: the monthly rollup and its totals, the first-seen date
 * of each merchant and each stream's latest price change (migrations 0005, 0007, 0008, 0010).
 */
import { and, eq, max, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { balanceSnapshots, bankAccounts, transactions } from "@/db/schema";
import type { ProviderAccount, ProviderBalancePoint, ProviderTransaction } from "../provider";
import { addDays, chunks, excludedSet, HISTORY_DAYS, type Tx } from "./util";

export interface SnapshotGaps {
  /** Per provider account id: the first day its history lacks (before `today`). */
  fillFrom: Map<string, string>;
  /** The earliest of them, or null when no account lacks a past day. */
  earliest: string | null;
}

/** Which past days each account still lacks in its snapshot history (read before the write). */
export async function snapshotGaps(
  db: Database,
  connectionId: string,
  userId: string,
  fetched: { accounts: readonly ProviderAccount[]; added: readonly ProviderTransaction[] },
  today: string,
): Promise<SnapshotGaps> {
  const lastSnapshots = await db
    .select({ providerAccountId: bankAccounts.providerAccountId, last: max(balanceSnapshots.date) })
    .from(bankAccounts)
    .leftJoin(balanceSnapshots, eq(balanceSnapshots.accountId, bankAccounts.id))
    .where(and(eq(bankAccounts.connectionId, connectionId), eq(bankAccounts.userId, userId)))
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
  return { fillFrom, earliest: fillFrom.size > 0 ? [...fillFrom.values()].sort()[0]! : null };
}

/**
 * Writes the balance snapshots (today's, and the missing past days from `history` or derived)
 * and the day's typical amounts. Returns how many snapshots it wrote.
 */
export async function writeDerived(
  tx: Tx,
  userId: string,
  accounts: readonly ProviderAccount[],
  accountIdOf: Map<string, string>,
  options: { today: string; fillFrom: Map<string, string>; history: ProviderBalancePoint[] | null },
): Promise<number> {
  const { today } = options;
  // Balance snapshots: today from the current balances, missing past days from history.
  const snapshots: Array<typeof balanceSnapshots.$inferInsert> = [];
  for (const account of accounts) {
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
    snapshots.push(...(await deriveHistory(tx, userId, accounts, accountIdOf, options.fillFrom, today)));
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
  return snapshots.length;
}

/**
 * Past daily balances derived from the current balance and the posted transactions stored
 * (depository and credit accounts only; see the header comment).
 */
async function deriveHistory(
  tx: Tx,
  userId: string,
  accounts: readonly ProviderAccount[],
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
