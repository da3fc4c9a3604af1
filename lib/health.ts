/**
 * Readiness (`GET /api/health?ready=1`): the database answers one statement, and every migration
 * this build ships (db/migrations/meta/_journal.json, bundled with the build) has been applied.
 * drizzle's migrator records each applied migration in `drizzle.__drizzle_migrations` with its
 * journal entry's `when` as `created_at`, and applies those newer than the newest recorded, so
 * the schema is current when the newest recorded is at least the journal's last. A database
 * ahead of this build (the next deployment migrated first, expand then contract) is current too.
 */
import { sql } from "drizzle-orm";
import type { Database } from "@/db";
import journal from "@/db/migrations/meta/_journal.json";
import { executeRows } from "@/lib/finance/sql";

/** The `when` of the last migration this build ships. */
export const NEWEST_MIGRATION = Math.max(...journal.entries.map((entry) => entry.when));

/** True when the database answers and its migrations are current; throws when it does not answer. */
export async function migrationsCurrent(db: Database): Promise<boolean> {
  const [row] = await executeRows(
    db,
    sql`select max(created_at)::text as newest from drizzle.__drizzle_migrations`,
  );
  const newest = Number(row?.newest ?? Number.NaN);
  return Number.isFinite(newest) && newest >= NEWEST_MIGRATION;
}
