/**
 * Statements of the request path whose text never changes (the caller's statement, the activity
 * insert): written with drizzle's `sql` and placeholders, rendered to text ONCE per process, and
 * run with their values straight through the driver. Building a statement with drizzle costs
 * more Node CPU than the driver's own work for it; these run on every call. The driver's
 * `query(text, values)` is the same on node-postgres, Neon's Pool and PGlite, and answers rows as
 * objects with the driver's own type parsing (numbers for int4, parsed json, text as text).
 */
import { fillPlaceholders, type SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { Database } from "./index";

export interface FixedStatement {
  text: string;
  params: unknown[];
}

// The database's own casing (db/index.ts): a column written through the schema is named as in it.
const dialect = new PgDialect({ casing: "snake_case" });

/** Renders `query` (its variable parts as `sql.placeholder(name)`) to a statement. */
export function fixedStatement(query: SQL): FixedStatement {
  const { sql, params } = dialect.sqlToQuery(query);
  return { text: sql, params };
}

interface DriverClient {
  query(text: string, values: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
}

/** Runs `statement` with `values` for its placeholders; its rows. */
export async function runFixed(
  db: Database,
  statement: FixedStatement,
  values: Record<string, unknown>,
): Promise<Array<Record<string, unknown>>> {
  const client = (db as unknown as { $client: DriverClient }).$client;
  const result = await client.query(statement.text, fillPlaceholders(statement.params, values));
  return result.rows;
}

/**
 * `build(db)` once per database, for queries drizzle prepares (`.prepare("")`, with
 * `sql.placeholder` for their values): a prepared query belongs to one database's session, and
 * building it once spares every later call drizzle's query building. Unnamed: the request pool
 * names (prepares) every statement itself, unless a pooler forbids it (DB_PREPARED_STATEMENTS=0).
 */
export function perDatabase<T>(build: (db: Database) => T): (db: Database) => T {
  const built = new WeakMap<Database, T>();
  return (db) => {
    let value = built.get(db);
    if (value === undefined) {
      value = build(db);
      built.set(db, value);
    }
    return value;
  };
}

/** As `perDatabase`, for a query with variants: `build(db, variant)` once per database and `keyOf(variant)`. */
export function perDatabaseVariant<V, T>(
  keyOf: (variant: V) => string,
  build: (db: Database, variant: V) => T,
): (db: Database, variant: V) => T {
  const variantsOf = perDatabase(() => new Map<string, T>());
  return (db, variant) => {
    const variants = variantsOf(db);
    const key = keyOf(variant);
    let value = variants.get(key);
    if (value === undefined) {
      value = build(db, variant);
      variants.set(key, value);
    }
    return value;
  };
}
