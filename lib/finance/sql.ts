/**
 * Raw SQL for the few queries the query builder cannot express (lateral look-ups, window
 * functions over CTEs). Every driver (PGlite, node-postgres, Neon) answers `execute` with an
 * object holding `rows`; values come back as the driver reads them, so callers cast numbers and
 * dates to text in SQL and convert them at the edge (lib/finance/money.ts).
 */
import type { SQL } from "drizzle-orm";
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
