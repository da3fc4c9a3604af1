/**
 * Raw SQL for the few queries the query builder cannot express (lateral look-ups, window
 * functions over CTEs). Every driver (PGlite, node-postgres, Neon) answers `execute` with an
 * object holding `rows`; values come back as the driver reads them, so callers cast numbers and
 * dates to text in SQL and convert them at the edge (lib/finance/money.ts).
 */
import { type Placeholder, type SQL, sql } from "drizzle-orm";
import type { Database } from "@/db";

/** The rows of a raw query, as records of unknown values. */
export async function executeRows(db: Database, query: SQL): Promise<Array<Record<string, unknown>>> {
  const result: unknown = await db.execute(query);
  const rows =
    typeof result === "object" && result !== null && "rows" in result
      ? (result as { rows: unknown }).rows
      : result;
  if (!Array.isArray(rows)) throw new Error("unexpected result of a raw query");
  return rows as Array<Record<string, unknown>>;
}

/** A text column of a raw row (null stays null). */
export function text(row: Record<string, unknown>, key: string): string {
  const v = row[key];
  return v === null || v === undefined ? "" : String(v);
}

/**
 * A LIMIT written into the statement instead of bound (a count from 1 to a few hundred): the plan
 * PostgreSQL makes once for a kept statement then knows it. Bound, a plan made once cannot tell a
 * page of 26 rows from half the table, looks costlier than one made for the values, and the server
 * plans the statement anew on every run (tests/integration/statement-budget.test.ts).
 */
export function writtenLimit(count: number): Placeholder {
  if (!Number.isSafeInteger(count) || count < 0) throw new Error(`not a row count: ${count}`);
  // The query builder takes a placeholder or a number; any SQL object is written as it is.
  return sql.raw(String(count)) as unknown as Placeholder;
}
