/**
 * Statements of the request path whose text never changes (the caller's statement, the activity
 * insert): written with drizzle's `sql` and placeholders, rendered to text ONCE per process, and
 * run with their values straight through the driver. Building a statement with drizzle costs
 * more Node CPU than the driver's own work for it; these run on every call. The driver's
 * `query(text, values)` is the same on node-postgres, Neon's Pool and PGlite, and answers rows as
 * objects with the driver's own type parsing (numbers for int4, parsed json, text as text).
 */
import { fillPlaceholders, is, Placeholder, type SQL, sql } from "drizzle-orm";
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

/**
 * How a statement takes a value: `shapedStatement` binds it as a placeholder of a statement kept
 * by its shape; elsewhere it is a parameter of its own (`asParam`). Typed as the value itself, as
 * drizzle's operators take either.
 */
export type Bind = <T>(value: T) => T;

/** A value as a parameter of its own (one parameter, an array included). */
export const asParam: Bind = <T>(value: T) => sql.param(value) as unknown as T;

/** Shapes rendered at most (a shape is a set of filters and a page size: a few dozen in use). */
const SHAPES_MAX = 500;
const shapes = new Map<string, FixedStatement>();

/**
 * A statement whose text depends only on `shape` (which filters a question has, not their
 * values): `build` writes it on every call with each value through `bind` (a placeholder,
 * recorded), and the text is rendered once per shape, since rendering a statement costs more
 * than writing it (the heavy user's text search: 0.4 ms of drizzle per call). Outside production
 * every call is rendered as well, and a shape that renders two statements throws: the tests prove
 * each shape names everything its text depends on.
 */
export function shapedStatement(
  shape: string,
  build: (bind: Bind) => SQL,
): { statement: FixedStatement; values: Record<string, unknown> } {
  const values: Record<string, unknown> = {};
  let count = 0;
  const bind = <T>(value: T): T => {
    const name = `v${count++}`;
    values[name] = value;
    return sql.placeholder(name) as unknown as T;
  };
  const query = build(bind);
  let statement = shapes.get(shape);
  if (statement === undefined || process.env.NODE_ENV !== "production") {
    const rendered = fixedStatement(query);
    // A value not bound would be kept with the text and given to the next call of the shape (one
    // person's id to another's question): only constants (booleans, numbers) may be.
    for (const param of rendered.params) {
      if (!is(param, Placeholder) && typeof param !== "boolean" && typeof param !== "number") {
        throw new Error(`the statement shape ${shape} holds a value not bound`);
      }
    }
    if (
      statement !== undefined &&
      (statement.text !== rendered.text ||
        JSON.stringify(statement.params) !== JSON.stringify(rendered.params))
    ) {
      throw new Error(`the statement shape ${shape} renders two statements`);
    }
    if (shapes.size >= SHAPES_MAX) shapes.clear();
    statement = rendered;
    shapes.set(shape, statement);
  }
  return { statement, values };
}
