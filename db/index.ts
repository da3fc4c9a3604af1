/**
 * The database, chosen in one place:
 * - no DATABASE_URL → embedded PGlite in PGLITE_DIR (default `.data/pglite`), migrated on open;
 * - a Neon URL (host ends in `.neon.tech`) → NEON_DEFAULT_DRIVER (node-postgres, by measurement);
 * - any other postgres:// URL → node-postgres;
 * - DATABASE_DRIVER forces one: `pg`, `neon` (`@neondatabase/serverless`'s WebSocket Pool) or
 *   `neon-http` (its HTTP queries for requests, the WebSocket Pool for transactions and syncs).
 * All speak the same schema (db/schema.ts) and the same queries.
 */
import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { getEnv } from "@/lib/env";
import { log } from "@/lib/log";
import { statementTelemetry } from "@/lib/telemetry";
import { type MigrationRun, migrateUnderLock } from "./migration-lock";
import * as schema from "./schema";

export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;
/** `neon`: Neon's WebSocket Pool; `neon-http`: Neon's HTTP queries, with that Pool for transactions. */
export type DriverKind = "pglite" | "pg" | "neon" | "neon-http";

/**
 * The driver for a `*.neon.tech` URL unless DATABASE_DRIVER says otherwise, chosen by measurement
 * (`npm run bench -- --section drivers`, docs/performance.md#drivers): node-postgres over TCP to
 * Neon's pooler. Warm, which is how a Fluid compute instance serves nearly every call, it answered
 * list_accounts at 20 ms of round-trip time in 81-96 ms where Neon's WebSocket Pool took 96-105
 * and its HTTP mode 112-144 (three runs, fastest in each, on this busy machine); cold, the three
 * were within noise of each other (10-12 round trips' worth for the first call). It also keeps a session per connection,
 * which HTTP mode has not: prepared statements, and the statement and lock bounds.
 */
export const NEON_DEFAULT_DRIVER: Exclude<DriverKind, "pglite"> = "pg";

export interface Handle {
  db: Database;
  kind: DriverKind;
  close: () => Promise<void>;
  /** What `migrate: true` did on a server database (db/migration-lock.ts). */
  migration?: MigrationRun;
}

const MIGRATIONS_FOLDER = path.join(process.cwd(), "db", "migrations");

/** True for URLs that should go through Neon's serverless driver. */
export function isNeonUrl(url: string): boolean {
  try {
    return new URL(url).hostname.endsWith(".neon.tech");
  } catch {
    return false;
  }
}

/** Opens a database for `url` (or PGlite in `pgliteDir` when no URL). Callers own `close()`. */
export async function openDatabase(options: {
  url?: string;
  pgliteDir?: string;
  migrate?: boolean;
  /** Force a driver for a URL (tests reach a local server through Neon's driver). */
  driver?: Exclude<DriverKind, "pglite">;
  /** Told when each statement starts and ends, at the driver (tests count statements and round trips). */
  observe?: QueryObserver;
  /** Told when `migrate` finds another migrator holding the lock and waits for it. */
  onMigrationWait?: () => void;
}): Promise<Handle> {
  const config = { schema, casing: "snake_case" as const };
  // Every handle tells telemetry (lib/telemetry.ts: the request's statement count, a span per
  // statement when tracing); a caller's own observer hears the same statements.
  const observers = options.observe ? [statementTelemetry, options.observe] : [statementTelemetry];
  if (!options.url) {
    const { drizzle } = await import("drizzle-orm/pglite");
    // Loaded only here: a server database never loads PGlite.
    const { PgliteThread } = await import("./pglite-thread");
    const given = options.pgliteDir ?? ".data/pglite";
    const inMemory = given.startsWith("memory://");
    // The data folder is chosen at run time: no build-time tracing of what it may hold (without the
    // comment, Turbopack would trace the whole project into the server's output).
    const dir = inMemory ? given : path.resolve(/*turbopackIgnore: true*/ given);
    // PGlite creates its own folder but not the parents (a fresh clone has no .data/).
    if (!inMemory) mkdirSync(path.dirname(dir), { recursive: true });
    const client = new PgliteThread({
      dir,
      prepared: getEnv().DB_PREPARED_STATEMENTS
        ? {
            maxText: PREPARED_TEXT_MAX,
            maxParams: PREPARED_PARAMS_MAX,
            maxStatements: PREPARED_STATEMENTS_MAX,
            plannedEachRun: PLANNED_EACH_RUN,
          }
        : null,
    });
    observeCalls(client, ["query"], observers);
    const db = drizzle({ client: client as never, ...config });
    if (options.migrate !== false) {
      const { migrate } = await import("drizzle-orm/pglite/migrator");
      await migrate(db, { migrationsFolder: MIGRATIONS_FOLDER });
    }
    return { db: db as unknown as Database, kind: "pglite", close: () => client.close() };
  }
  const kind = options.driver ?? (isNeonUrl(options.url) ? NEON_DEFAULT_DRIVER : "pg");
  if (kind === "neon" || kind === "neon-http") {
    const { Pool, neon } = await neonDriver();
    const { drizzle } = await import("drizzle-orm/neon-serverless");
    const url = options.url;
    return openPools(kind, {
      pool: (purpose) => new Pool({ connectionString: url, ...poolBounds(purpose) }),
      drizzle: (client) => drizzle({ client: client as never, ...config }) as unknown as Database,
      migrate: async (db) => {
        const { migrate } = await import("drizzle-orm/neon-serverless/migrator");
        await migrate(db as never, { migrationsFolder: MIGRATIONS_FOLDER });
      },
      // HTTP mode: each request statement is one HTTPS request, with no session; what needs one
      // (an interactive transaction) runs on the WebSocket pool beside it.
      ...(kind === "neon-http"
        ? {
            front: async (pooled: Database) => {
              const { drizzle: overHttp } = await import("drizzle-orm/neon-http");
              // `fullResults`: answers as node-postgres gives them ({ rows, fields }), which
              // db/fixed-statement.ts reads; drizzle asks for its own shape on every call anyway.
              const client = neon(url, { fullResults: true });
              observeCalls(client, ["query"], observers);
              const db = overHttp({ client, ...config }) as unknown as Database;
              db.transaction = pooled.transaction.bind(pooled) as Database["transaction"];
              return db;
            },
          }
        : {}),
      options,
      observers,
    });
  }
  const { Pool } = await import("pg");
  const { drizzle } = await import("drizzle-orm/node-postgres");
  return openPools("pg", {
    pool: (purpose) => new Pool({ connectionString: options.url, ...poolBounds(purpose) }),
    drizzle: (client) => drizzle({ client: client as never, ...config }) as unknown as Database,
    migrate: async (db) => {
      const { migrate } = await import("drizzle-orm/node-postgres/migrator");
      await migrate(db as never, { migrationsFolder: MIGRATIONS_FOLDER });
    },
    options,
    observers,
  });
}

interface PoolLike {
  on(event: "error", listener: (error: Error) => void): unknown;
  end(): Promise<void>;
  connect(): Promise<PooledSession>;
}

/** One connection taken from a pool: its own session (the migration lock needs one). */
interface PooledSession {
  query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
  release(destroy?: boolean): void;
}

/**
 * Neon's driver, set up once: Node 20 has no WebSocket of its own; NEON_LOCAL_PROXY (tests and
 * the bench) sends both transports to a local stand-in for Neon's proxy (tests/support/neon-local.ts)
 * over plain WebSocket and HTTP. HTTP queries are bounded as statements are: the request is
 * aborted after DB_STATEMENT_TIMEOUT_MS and half a second.
 */
async function neonDriver() {
  const neon = await import("@neondatabase/serverless");
  const { neonConfig } = neon;
  if (typeof WebSocket === "undefined") neonConfig.webSocketConstructor = (await import("ws")).default;
  const env = getEnv();
  const local = env.NEON_LOCAL_PROXY;
  if (local) {
    neonConfig.wsProxy = (host, port) => `${local}/v2?address=${host}:${port}`;
    neonConfig.fetchEndpoint = `http://${local}/sql`;
    neonConfig.useSecureWebSocket = false;
    neonConfig.pipelineConnect = false;
  }
  const bound = env.DB_STATEMENT_TIMEOUT_MS + CLIENT_MARGIN_MS;
  neonConfig.fetchFunction = (input: string, init: RequestInit = {}) =>
    fetch(input, { ...init, signal: AbortSignal.timeout(bound) });
  return neon;
}

/** A server database: the request pool, the sync pool beside it, both bounded and observed. */
async function openPools<P extends PoolLike>(
  kind: Exclude<DriverKind, "pglite">,
  driver: {
    pool: (purpose: Purpose) => P;
    /** A database over the pool, or over one of its connections (the migrations' session). */
    drizzle: (client: P | PooledSession) => Database;
    migrate: (db: Database) => Promise<void>;
    /** The database requests use in front of the request pool's (default: the pool's own). */
    front?: (pooled: Database) => Promise<Database>;
    options: { migrate?: boolean; onMigrationWait?: () => void };
    observers: QueryObserver[];
  },
): Promise<Handle> {
  const { attachDatabasePool } = await import("@vercel/functions");
  const open = (purpose: Purpose) => {
    const pool = driver.pool(purpose);
    pool.on("error", poolErrorListener);
    // Vercel Fluid compute: the instance stays alive until idle connections have been closed,
    // instead of being suspended holding them (a no-op elsewhere).
    attachDatabasePool(pool as never);
    if (purpose === "requests" && getEnv().DB_PREPARED_STATEMENTS) prepareOncePerConnection(pool);
    observeCalls(pool, ["query"], driver.observers);
    return { pool, db: driver.drizzle(pool) };
  };
  const main = open("requests");
  const sync = open("sync");
  let migration: MigrationRun | undefined;
  if (driver.options.migrate) {
    // On one connection of the sync pool (no request bounds), under the migration lock; the
    // connection's settings were changed for the migrations, so it is discarded after.
    const session = await sync.pool.connect();
    try {
      migration = await migrateUnderLock(session, () => driver.migrate(driver.drizzle(session)), {
        onWait: driver.options.onMigrationWait,
      });
    } finally {
      session.release(true);
    }
  }
  const db = driver.front ? await driver.front(main.db) : main.db;
  syncCompanions.set(db, sync.db);
  return {
    db,
    kind,
    close: async () => void (await Promise.all([main.pool.end(), sync.pool.end()])),
    ...(migration ? { migration } : {}),
  };
}

type Purpose = "requests" | "sync";

/** Our own bound on a statement exceeds the server's by this much (a frozen server never answers). */
const CLIENT_MARGIN_MS = 500;

/** Statements longer than this, or with more parameters, are not kept prepared (bulk writes vary in shape). */
const PREPARED_TEXT_MAX = 16_000;
const PREPARED_PARAMS_MAX = 100;
/** Statements PGlite keeps prepared at most (its one session holds them all). */
const PREPARED_STATEMENTS_MAX = 2_000;

/**
 * A statement whose text holds this comment is planned for its values on every run: PostgreSQL
 * switches a prepared statement to one generic plan after five runs, and for some filters that
 * plan ignores what the values select (a text search's trigram index: the generic plan scans the
 * user's whole history instead, 10.4 ms of server CPU per search instead of 4.8 on the heavy
 * user). On a server it is never kept prepared; PGlite keeps it prepared and forces a custom plan
 * for it (db/pglite-prepared.mjs).
 */
export const PLANNED_EACH_RUN = "/* planned each run */";

/**
 * A request connection plans without parallel workers. A request's statement reads a few
 * thousand rows at most; PostgreSQL still chose two workers for a year of spending by merchant
 * on the heavy user (its plan's cost crosses the server's parallel threshold), and starting them
 * made the statement cost 15 ms instead of 4, on a server whose cores serve the other requests.
 * The sync pool keeps the server's setting. The pool runs this on each new connection before
 * handing it out (`onConnect`, in node-postgres's pool and Neon's); a failure only leaves the
 * setting as it was (the request's own statement then meets whatever broke it).
 */
async function serialPlansOnly(client: { query(text: string): Promise<unknown> }): Promise<void> {
  await client.query("set max_parallel_workers_per_gather = 0").catch(() => undefined);
}

/**
 * Every statement of the request pool runs as a named prepared statement, named after a hash of
 * its text (unless DB_PREPARED_STATEMENTS=0): PostgreSQL parses and plans it once per connection
 * instead of on every request (the caller's statement costs the server 0.16 ms instead of 0.45).
 * Same text, same name, so a name is never reused for a different statement; node-postgres (and
 * Neon's driver, built on it) send the Parse only the first time on each connection.
 */
function prepareOncePerConnection(pool: object): void {
  const target = pool as { query: (config: unknown, ...rest: unknown[]) => unknown };
  const query = target.query;
  target.query = function (this: unknown, config: unknown, ...rest: unknown[]) {
    // `query(text, values)` (db/fixed-statement.ts) is prepared the same as a config object.
    if (typeof config === "string") {
      config = { text: config, values: Array.isArray(rest[0]) ? rest[0] : [] };
      rest = rest.slice(1);
    }
    if (
      typeof config === "object" &&
      config !== null &&
      "text" in config &&
      !("name" in config && config.name)
    ) {
      const text = String(config.text);
      const values = Array.isArray(rest[0]) ? rest[0] : (config as { values?: unknown[] }).values;
      if (
        text.length <= PREPARED_TEXT_MAX &&
        (values?.length ?? 0) <= PREPARED_PARAMS_MAX &&
        !text.includes(PLANNED_EACH_RUN)
      )
        config = { ...config, name: statementName(text) };
    }
    return query.call(this, config, ...rest);
  };
}

/** A statement's name: a hash of its text, computed once per text. */
const statementNames = new Map<string, string>();
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (!name) {
    name = `ll_${createHash("sha256").update(text).digest("base64url").slice(0, 32)}`;
    if (statementNames.size < 1_000) statementNames.set(text, name);
  }
  return name;
}

/**
 * Hears each statement a driver runs: `started` when it is sent, `finished` when it is answered.
 * `started` may return a function told when that same statement is answered, with its error when
 * it failed (statements run side by side, so `finished` alone cannot say which one ended).
 */
export interface QueryObserver {
  started(text: string): undefined | ((error?: unknown) => void);
  finished(): void;
}

/** Wraps `methods` of a driver client so `observers` hear every call (statements outside transactions). */
function observeCalls(client: object, methods: string[], observers: readonly QueryObserver[]): void {
  const target = client as Record<string, unknown>;
  for (const name of methods) {
    const original = target[name];
    if (typeof original !== "function") continue;
    target[name] = function (this: unknown, ...args: unknown[]) {
      const first = args[0];
      const text = typeof first === "string" ? first : String((first as { text?: string })?.text ?? "");
      const ends = observers.map((observer) => observer.started(text));
      const settle = (error?: unknown) => {
        for (const observer of observers) observer.finished();
        for (const end of ends) end?.(error);
      };
      let result: unknown;
      try {
        result = (original as (...a: unknown[]) => unknown).apply(this, args);
      } catch (error) {
        settle(error);
        throw error;
      }
      // Neon's HTTP queries are thenables sent when first awaited: await it now, as it is counted.
      if (!(result instanceof Promise) && typeof (result as PromiseLike<unknown> | null)?.then === "function")
        result = Promise.resolve(result);
      if (!(result instanceof Promise)) {
        settle();
        return result;
      }
      return result.then(
        (value) => {
          settle();
          return value;
        },
        (error: unknown) => {
          settle(error);
          throw error;
        },
      );
    };
  }
}

/**
 * Each server database's companion for syncs (PGlite has one connection and no companion). Kept
 * on globalThis, as the handle is: `next build` puts this module into several chunks (route
 * handlers, pages, server actions), each with its own module state, and the chunk that opened the
 * handle is often not the one asking. A map per chunk sent a cron run's syncs through the request
 * pool (its lock and statement bounds) and told the MCP endpoint the database was embedded.
 */
const globalForCompanions = globalThis as unknown as {
  __ledgerlinkSyncCompanions?: WeakMap<object, Database>;
};
globalForCompanions.__ledgerlinkSyncCompanions ??= new WeakMap<object, Database>();
const syncCompanions = globalForCompanions.__ledgerlinkSyncCompanions;

/**
 * The database a sync writes through: for a server database its own small pool whose statements
 * may run for SYNC_STATEMENT_TIMEOUT_MS (a bank's whole history in one transaction), so a long
 * sync never holds a request's connection nor is cut at the request bound; otherwise `db` itself.
 */
export function syncDatabaseFor(db: Database): Database {
  return syncCompanions.get(db) ?? db;
}

/** True for a database behind a connection pool (a server), false for embedded PGlite. */
export function isPooled(db: Database): boolean {
  return syncCompanions.has(db);
}

/**
 * Every wait on the server is bounded, so a frozen or slow database fails requests fast (503)
 * instead of hanging them: `connectionTimeoutMillis` bounds both opening a connection and waiting
 * for a free one in the pool (the larger of the two settings), `statement_timeout` each statement
 * on the server, `query_timeout` the same on our side when the server stops answering at all, and
 * for requests `lock_timeout` each wait for a lock (a table an `alter table` holds: the request
 * answers 503 at once instead of holding its connection while everyone else waits for one).
 * Requests and syncs have separate pools with their own statement bounds.
 */
function poolBounds(purpose: Purpose) {
  const env = getEnv();
  const statement = purpose === "sync" ? env.SYNC_STATEMENT_TIMEOUT_MS : env.DB_STATEMENT_TIMEOUT_MS;
  return {
    max: purpose === "sync" ? env.SYNC_POOL_MAX : env.PG_POOL_MAX,
    connectionTimeoutMillis: Math.max(env.DB_CONNECT_TIMEOUT_MS, env.DB_ACQUIRE_TIMEOUT_MS),
    // node-postgres's default, stated: attachDatabasePool keeps a Vercel instance alive this long.
    idleTimeoutMillis: 10_000,
    statement_timeout: statement,
    query_timeout: statement + CLIENT_MARGIN_MS,
    // A request never waits long for a lock: one slow table must not hold the request pool.
    ...(purpose === "requests" ? { onConnect: serialPlansOnly, lock_timeout: env.DB_LOCK_TIMEOUT_MS } : {}),
  };
}

/**
 * An idle pooled connection that drops (server restart, network cut) emits `error` on the pool;
 * without a listener Node would crash the process. The pool discards that connection and the
 * next request opens a new one.
 */
function poolErrorListener(error: Error): void {
  log.error("db.pooled_connection_failed", { error: error.name });
}

// One handle per process, kept on globalThis so `next dev` reloads do not open PGlite twice.
const globalForDb = globalThis as unknown as { __ledgerlinkDb?: Promise<Handle> };

/** The process-wide database, opened (and for PGlite migrated) on first use. */
export function getDb(): Promise<Database> {
  return getHandle().then((h) => h.db);
}

export function getHandle(): Promise<Handle> {
  if (!globalForDb.__ledgerlinkDb) {
    const env = getEnv();
    const opening = openDatabase({
      url: env.DATABASE_URL,
      pgliteDir: env.PGLITE_DIR,
      driver: env.DATABASE_DRIVER,
    });
    // A failed open must not stick: the next request tries again.
    opening.catch(() => {
      if (globalForDb.__ledgerlinkDb === opening) globalForDb.__ledgerlinkDb = undefined;
    });
    globalForDb.__ledgerlinkDb = opening;
  }
  return globalForDb.__ledgerlinkDb;
}

/** Replace the process-wide database (tests). */
export function setDbForTesting(handle: Handle | undefined): void {
  globalForDb.__ledgerlinkDb = handle ? Promise.resolve(handle) : undefined;
}

export { schema };
