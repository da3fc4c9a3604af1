/**
 * `npm run db:rebuild-rollups`: rebuilds the transaction rollups (`transaction_months`, its totals,
 * category months, `transaction_days`, `transaction_text_months`, the merchants' days, months
 * and quarters `transaction_merchant_spans`), the daily changes of
 * net worth (`net_worth_days`, from the balance snapshots), the charges that repeat another
 * (`transaction_repeats`) and the values
 * precomputed for find_unusual_activity and list_recurring (first-seen merchants, streams' price
 * changes, typical amounts anchored at today, UTC) from the rows of `transactions`, in one
 * transaction (readers see the old values until it commits). Triggers and sync keep them exact on
 * every write; this is for a database restored or edited with the triggers off. Targets DATABASE_URL or, when it is unset, the PGlite folder (run it while the server is
 * stopped: PGlite opens its folder from one process at a time).
 */
import { sql } from "drizzle-orm";
import { openDatabase } from "@/db";
import { getEnv } from "@/lib/env";
import { failureFields } from "@/lib/errors";
import { log } from "@/lib/log";

async function main() {
  const env = getEnv();
  const started = performance.now();
  const handle = await openDatabase({ url: env.DATABASE_URL, pgliteDir: env.PGLITE_DIR, migrate: true });
  try {
    await handle.db.transaction(async (tx) => {
      await tx.execute(sql`select ledgerlink_rebuild_transaction_months()`);
      await tx.execute(sql`select ledgerlink_rebuild_merchant_spans()`);
      await tx.execute(sql`select ledgerlink_rebuild_net_worth()`);
      await tx.execute(sql`select ledgerlink_rebuild_repeats()`);
      await tx.execute(
        sql`select ledgerlink_rebuild_unusual(${new Date().toISOString().slice(0, 10)}::date)`,
      );
    });
  } finally {
    await handle.close();
  }
  log.info("db.rollups_rebuilt", { ms: Math.round(performance.now() - started) });
}

main().catch((error: unknown) => {
  log.error("db.rollups_rebuild_failed", failureFields(error));
  process.exit(1);
});
