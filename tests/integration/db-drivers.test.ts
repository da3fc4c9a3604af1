import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";
import { eq, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/pglite";
import { afterAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { type Database, openDatabase, PLANNED_EACH_RUN, syncDatabaseFor } from "@/db";
import { fixedStatement, runFixed } from "@/db/fixed-statement";
import { prepareStatements } from "@/db/pglite-prepared.mjs";
import type { Reply } from "@/db/pglite-thread";
import { users } from "@/db/schema";
import { resetEnvCache } from "@/lib/env";
import { isDatabaseUnavailable } from "@/lib/errors";
import { getBalanceTotals, listAccounts } from "@/lib/finance/accounts";
import { listDebts } from "@/lib/finance/liabilities";
import { getPeriodComparison, getSpendingBreakdown } from "@/lib/finance/spending";
import { executeRows } from "@/lib/finance/sql";
import { testDatabaseKind } from "../helpers/db";
import { startWsProxy } from "../helpers/ws-proxy";

// The server-backed cases run in the `postgres` project only (its global setup owns the schema).
const pgUrl = testDatabaseKind() === "postgres" ? process.env.TEST_DATABASE_URL : undefined;

async function tableNames(db: Awaited<ReturnType<typeof openDatabase>>["db"]) {
  const result = await db.execute(
    sql`select table_name from information_schema.tables where table_schema = 'public' order by 1`,
  );
  // Every driver answers { rows }, but the shared Database type cannot say so.
  return z
    .object({ rows: z.array(z.object({ table_name: z.string() })) })
    .parse(result)
    .rows.map((r) => r.table_name);
}

describe("database drivers", () => {
  const closers: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
  });

  it("migrates embedded PGlite on open and round-trips a row", async () => {
    const handle = await openDatabase({ pgliteDir: "memory://" });
    closers.push(handle.close);
    expect(handle.kind).toBe("pglite");
    const tables = await tableNames(handle.db);
    for (const t of ["users", "api_keys", "transactions", "bank_connections", "oauth_tokens", "tool_calls"]) {
      expect(tables).toContain(t);
    }
    const [row] = await handle.db.insert(users).values({ email: "pglite@test.local" }).returning();
    expect(row?.timezone).toBe("UTC");
  });

  it("opens PGlite in a folder whose parents do not exist yet (a fresh clone has no .data/)", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "ledgerlink-pglite-"));
    const handle = await openDatabase({ pgliteDir: path.join(root, "nested", "pglite") });
    closers.push(async () => {
      await handle.close();
      await rm(root, { recursive: true, force: true });
    });
    expect(await tableNames(handle.db)).toContain("users");
  });

  it("keeps PGlite's statements prepared on its thread: answers equal to PGlite's own, one statement per text", async () => {
    const handle = await openDatabase({ pgliteDir: "memory://" });
    closers.push(handle.close);
    await expectPreparedOnce(handle.db);
    // Every kind of value the tools read, through the prepared path with PostgreSQL's choice of
    // plan and with a custom plan forced (a statement marked PLANNED_EACH_RUN), in both row modes.
    const [user] = await handle.db.insert(users).values({ email: "types@test.local" }).returning();
    const typed = (marker: string) =>
      sql.raw(`select 12345678901234::bigint as big, 1.10::numeric(12,2) as num, date '2026-02-28' as day,
        timestamptz '2026-11-25 21:30:00+00' as at, '{"a":[1,null]}'::json as doc, array[1,2]::int[] as list,
        null::text as nothing, true as yes, 'é ü'::text as word ${marker}`);
    // And equal to PGlite's in this thread: the values cross from the database's thread intact.
    const inThisThread = new PGlite();
    closers.push(() => inThisThread.close());
    const reference = await drizzle({ client: inThisThread }).execute(typed(""));
    for (let run = 0; run < 2; run++) {
      const prepared = await handle.db.execute(typed(""));
      const customPlanned = await handle.db.execute(typed(PLANNED_EACH_RUN));
      expect(JSON.stringify(prepared)).toBe(JSON.stringify(customPlanned).replace(PLANNED_EACH_RUN, ""));
      expect(prepared).toEqual(reference);
    }
    // A caller's own parsers apply on this side of the thread, in both row modes, as PGlite's do.
    const day = "select date '2026-02-28' as day, 7 as n";
    const parsers = { 1082: (value: string) => `day ${value}` };
    const thread = (handle.db as unknown as { $client: PGlite }).$client;
    for (const rowMode of ["array", "object"] as const) {
      const own = await inThisThread.query(day, [], { rowMode, parsers });
      expect((await thread.query(day, [], { rowMode, parsers })).rows).toEqual(own.rows);
      expect(own.rows).toEqual(
        rowMode === "array" ? [["day 2026-02-28", 7]] : [{ day: "day 2026-02-28", n: 7 }],
      );
    }
    const [viaBuilder] = await handle.db
      .select()
      .from(users)
      .where(eq(users.id, user?.id ?? ""));
    expect(viaBuilder).toEqual(user);
    const kept = await preparedHolding(handle.db, "as big");
    expect(kept.map((k) => k.statement.includes(PLANNED_EACH_RUN)).sort()).toEqual([false, true]);
    // A failing run reports PostgreSQL's error (unique violation) and leaves the session usable.
    await expect(handle.db.insert(users).values({ email: "types@test.local" })).rejects.toMatchObject({
      cause: { code: "23505" },
    });
    await expect(handle.db.execute(sql`select nope from nowhere`)).rejects.toThrow();
    // Inside a transaction PGlite's own path runs, and a rollback leaves nothing behind.
    await handle.db
      .transaction(async (tx) => {
        await tx.insert(users).values({ email: "rolled-back@test.local" });
        throw new Error("roll back");
      })
      .catch(() => undefined);
    expect(await handle.db.select().from(users).where(eq(users.email, "rolled-back@test.local"))).toEqual([]);
    await expectPreparedOnce(handle.db);
  });

  it("reaches a Neon host with node-postgres unless DATABASE_DRIVER says otherwise (the bench's choice)", async () => {
    // Pools connect on first use: nothing here reaches the (unreachable) host.
    const url =
      "postgres://app@ep-quiet-river-123456-pooler.us-east-2.aws.neon.tech/ledgerlink?sslmode=require";
    for (const [driver, kind] of [
      [undefined, "pg"],
      ["neon", "neon"],
      ["neon-http", "neon-http"],
    ] as const) {
      const handle = await openDatabase({ url, ...(driver ? { driver } : {}) });
      closers.push(handle.close);
      expect(handle.kind).toBe(kind);
      expect(syncDatabaseFor(handle.db)).not.toBe(handle.db);
    }
  });

  it.runIf(pgUrl)("applies the same migrations on the real PostgreSQL server", async () => {
    const handle = await openDatabase({ url: pgUrl, driver: "pg", migrate: true });
    closers.push(handle.close);
    expect(handle.kind).toBe("pg");
    const tables = await tableNames(handle.db);
    expect(tables).toContain("transactions");
    expect(tables).toContain("balance_snapshots");
  });

  it.runIf(pgUrl)("runs queries through the Neon serverless driver via a WebSocket proxy", async () => {
    const { neonConfig } = await import("@neondatabase/serverless");
    const ws = (await import("ws")).default;
    const proxy = await startWsProxy();
    closers.push(proxy.close);
    neonConfig.webSocketConstructor = ws;
    neonConfig.wsProxy = (host, port) => `127.0.0.1:${proxy.port}/v2?address=${host}:${port}`;
    neonConfig.useSecureWebSocket = false;
    neonConfig.pipelineConnect = false;
    neonConfig.pipelineTLS = false;

    const handle = await openDatabase({ url: pgUrl, driver: "neon" });
    closers.push(handle.close);
    expect(handle.kind).toBe("neon");
    const email = `neon-${crypto.randomUUID()}@test.local`;
    const id = await handle.db.transaction(async (tx) => {
      const [row] = await tx.insert(users).values({ email }).returning({ id: users.id });
      return row?.id;
    });
    const [found] = await handle.db.select().from(users).where(eq(users.email, email));
    expect(found?.id).toBe(id);
    await expectPreparedOnce(handle.db);
    await handle.db.delete(users).where(eq(users.email, email));
  });

  it.runIf(pgUrl)("keeps request statements prepared per connection (node-postgres)", async () => {
    const handle = await openDatabase({ url: pgUrl, driver: "pg" });
    closers.push(handle.close);
    await expectPreparedOnce(handle.db);
  });

  /**
   * A PGlite database, and a PostgreSQL one in the `postgres` project whose requests share one
   * connection (a session sees only its own prepared statements).
   */
  async function bothDatabases() {
    const handles = [await openDatabase({ pgliteDir: "memory://" })];
    if (pgUrl) {
      const saved = process.env.PG_POOL_MAX;
      process.env.PG_POOL_MAX = "1";
      resetEnvCache();
      try {
        handles.push(await openDatabase({ url: pgUrl, driver: "pg" }));
      } finally {
        if (saved === undefined) delete process.env.PG_POOL_MAX;
        else process.env.PG_POOL_MAX = saved;
        resetEnvCache();
      }
    }
    for (const handle of handles) closers.push(handle.close);
    return handles;
  }

  it("answers a prepared statement with the caller's parsers without copying PGlite's table of them", async () => {
    // PGlite's own answer parser copies its whole table (a parser per type, some 300) into a new
    // object whenever a caller gives parsers of its own, as drizzle does for every statement.
    const client = new PGlite();
    closers.push(() => client.close());
    await client.waitReady;
    let copies = 0;
    client.parsers = new Proxy(client.parsers, {
      ownKeys(target) {
        copies += 1;
        return Reflect.ownKeys(target);
      },
    });
    prepareStatements(client, {
      maxText: 1_000,
      maxParams: 10,
      maxStatements: 10,
      plannedEachRun: PLANNED_EACH_RUN,
    });
    const parsers = { 1082: (value: string) => `day ${value}` };
    for (const marker of ["", PLANNED_EACH_RUN]) {
      const text = `select date '2026-02-28' as day, $1::int + 1 as n ${marker}`;
      for (let run = 0; run < 3; run++)
        expect((await client.query(text, [run], { parsers })).rows).toEqual([
          { day: "day 2026-02-28", n: run + 1 },
        ]);
    }
    expect(copies).toBe(0);
    // PGlite's own path (not prepared: too long) copies it: the count sees a copy.
    await client.query(`select date '2026-02-28' as day ${" ".repeat(1_000)}`, [], { parsers });
    expect(copies).toBe(1);
  });

  it("reads a prepared statement's answer from PostgreSQL's bytes exactly as PGlite parses them", async () => {
    // The prepared path reads the bytes the backend wrote (db/pglite-wire.mjs), not PGlite's parsed
    // messages: every kind of value, array, name and count must come out as PGlite's own gives them.
    const prepared = new PGlite();
    const plain = new PGlite();
    closers.push(
      () => prepared.close(),
      () => plain.close(),
    );
    prepareStatements(prepared, {
      maxText: 10_000,
      maxParams: 10,
      maxStatements: 100,
      plannedEachRun: PLANNED_EACH_RUN,
    });
    const setup = "create table t (id int primary key, name text)";
    await prepared.exec(setup);
    await plain.exec(setup);
    const values = `select 12345678901234::bigint as big, 9007199254740993::bigint as huge, (-32768)::int2 as small,
      1.10::numeric(12,2) as num, 0.1::float8 as f8, 1.5::float4 as f4, true as yes, false as no,
      date '2026-02-28' as day, timestamp '2026-11-25 21:30:00' as ts, timestamptz '2026-11-25 21:30:00+00' as at,
      interval '1 day 02:00' as span, '{"a":[1,null],"b":"é"}'::json as doc, '{"k": true}'::jsonb as docb,
      '5f0c1a2e-8b7d-4c1e-9f3a-2b6d7e8f9a0b'::uuid as id, '\\xdeadbeef'::bytea as raw,
      '' as empty, null::text as nothing, 'é ü'::text as word, 'Café · 北京 · 🧾 a longer name than 24 bytes' as long,
      array['a', 'b,c', 'd"e', null, 'NULL', '']::text[] as texts, array[[1,2],[3,4]]::int[] as grid,
      array[1.25, null]::numeric[] as nums, array[true, false]::bool[] as flags, array[date '2026-01-31']::date[] as days,
      array['{"x":1}'::jsonb] as docs, '{}'::text[] as none, 1 as "dup", 2 as "dup", 3 as "__proto__"`;
    // drizzle's parsers (it keeps dates, times and numeric arrays as text), and a caller's own.
    const drizzleLike = {
      1082: (v: string) => v,
      1114: (v: string) => v,
      1184: (v: string) => v,
      1231: (v: string) => v,
    };
    const own = {
      1082: (v: string) => `day ${v}`,
      1009: (v: string) => `texts ${v}`,
      23: (v: string) => Number(v) * 10,
    };
    const statements: Array<[string, unknown[]]> = [
      [values, []],
      [`${values} ${PLANNED_EACH_RUN}`, []],
      ["select $1::int + 1 as n, $2::text as s from generate_series(1, 3)", [41, "x"]],
      ["select id, name from t where id > $1 order by id", [0]],
      ["insert into t values ($1, $2), ($3, $4)", [1, "one", 2, "two"]],
      ["update t set name = upper(name) where id <= $1 returning id, name", [2]],
      [`delete from t where id = $1 ${PLANNED_EACH_RUN}`, [2]],
      ["select * from t where false", []],
    ];
    for (const [text, params] of statements)
      for (const rowMode of ["object", "array"] as const)
        for (const parsers of [undefined, drizzleLike, own]) {
          const options = { rowMode, ...(parsers ? { parsers } : {}) };
          // Writes run once per database; a read's answer is compared as PGlite's own.
          const write = /^(insert|update|delete)/.test(text);
          if (write && (rowMode === "array" || parsers)) continue;
          const mine = await prepared.query(text, params, options);
          const theirs = await plain.query(text, params, options);
          expect(mine, `${text.slice(0, 40)} ${rowMode}`).toEqual(theirs);
          expect(Object.keys(mine).sort()).toEqual(Object.keys(theirs).sort());
        }
    // A failure is PGlite's error, thrown as PGlite throws it, and the session goes on.
    const failing = "select 1 / $1::int as n";
    const mine = await prepared.query(failing, [0]).catch((e: unknown) => e);
    const theirs = await plain.query(failing, [0]).catch((e: unknown) => e);
    expect(mine).toBeInstanceOf(Error);
    expect(mine).toMatchObject({ code: "22012", message: (theirs as Error).message });
    expect((await prepared.query(failing, [2])).rows).toEqual([{ n: 0 }]);
  });

  it("sends a prepared statement's answer across from PGlite's thread as PostgreSQL's bytes, not as rows", async () => {
    const handle = await openDatabase({ pgliteDir: "memory://" });
    closers.push(handle.close);
    const received = vi.spyOn(Worker.prototype, "emit");
    try {
      const text = sql`select n, 'row ' || n as label from generate_series(1, 3) as n`;
      for (let run = 0; run < 2; run++)
        expect(await executeRows(handle.db, text)).toEqual([1, 2, 3].map((n) => ({ n, label: `row ${n}` })));
      const replies = received.mock.calls
        .filter(([event]) => event === "message")
        .flatMap(([, batch]) => batch as Reply[]);
      expect(replies).toHaveLength(2);
      for (const reply of replies) {
        expect(reply.result).toBeUndefined();
        expect(reply.wire?.wire).toBeInstanceOf(Uint8Array);
      }
    } finally {
      received.mockRestore();
    }
  });

  it("answers a statement on a closed PGlite at once, as the database being unavailable", async () => {
    const handle = await openDatabase({ pgliteDir: "memory://" });
    await handle.close();
    const error = await handle.db.execute(sql`select 1`).catch((e: unknown) => e);
    expect(isDatabaseUnavailable(error)).toBe(true);
    await handle.close(); // closing twice is harmless
  });

  it("sends PGlite's thread the statements made together in one message, and a BEGIN that waits holds back no other answer", async () => {
    const handle = await openDatabase({ pgliteDir: "memory://" });
    closers.push(handle.close);
    const sent = vi.spyOn(Worker.prototype, "postMessage");
    try {
      // Five statements made in one turn (a tool's queries under Promise.all): one message.
      const answers = await Promise.all(
        [0, 1, 2, 3, 4].map((i) => executeRows(handle.db, sql`select ${i}::int + 1 as n`)),
      );
      expect(answers.map((rows) => rows[0]?.n)).toEqual([1, 2, 3, 4, 5]);
      expect(sent.mock.calls.map(([batch]) => (batch as unknown[]).length)).toEqual([5]);
      // In one message: the BEGIN of a second transaction, which waits for the first to end, and
      // a statement of the first. The statement's answer must come back (the first commits on
      // it); held for the BEGIN's, neither transaction would ever end.
      sent.mockClear();
      let second: Promise<unknown> = Promise.resolve();
      const first = handle.db.transaction(async (tx) => {
        second = handle.db.transaction((tx2) => executeRows(tx2 as unknown as Database, sql`select 2 as n`));
        return executeRows(tx as unknown as Database, sql`select 1 as n`);
      });
      expect(await first).toEqual([{ n: 1 }]);
      expect(await second).toEqual([{ n: 2 }]);
      expect(sent.mock.calls.some(([batch]) => (batch as unknown[]).length === 2)).toBe(true);
    } finally {
      sent.mockRestore();
    }
  });

  it("never runs a request's statement inside another's open transaction", async () => {
    // PGlite has one session: a statement let in between a transaction's statements (a sync's)
    // would read its uncommitted rows, and its failure would abort the transaction.
    for (const handle of await bothDatabases()) {
      const email = `isolated-${crypto.randomUUID()}@test.local`;
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let begun = () => {};
      const inside = new Promise<void>((resolve) => {
        begun = resolve;
      });
      const transaction = handle.db.transaction(async (tx) => {
        await tx.insert(users).values({ email });
        begun();
        await held;
        await tx.update(users).set({ name: "committed" }).where(eq(users.email, email));
      });
      await inside;
      const read = handle.db.select({ name: users.name }).from(users).where(eq(users.email, email));
      const failing = handle.db.execute(sql`select 1 / (select count(*) - count(*) from users)`);
      failing.catch(() => undefined);
      const early = await Promise.race([
        read.then((rows) => rows),
        new Promise((resolve) => setTimeout(() => resolve("waiting"), 300)),
      ]);
      release();
      await transaction;
      // Both wait for the commit: PGlite's one session, and here PostgreSQL's one connection.
      expect(early, handle.kind).toBe("waiting");
      await expect(failing, handle.kind).rejects.toThrow();
      expect(await handle.db.select({ name: users.name }).from(users).where(eq(users.email, email))).toEqual([
        { name: "committed" },
      ]);
      await handle.db.delete(users).where(eq(users.email, email));
    }
  });

  it("runs the debts statement with the plan made once for it, not planned anew on every run", async () => {
    // Bound, the count of cycles left the plan made once worse than one made for the values, and
    // the server planned the statement again on every run (about 2 ms of the overview's 5 statements).
    for (const handle of await bothDatabases()) {
      for (let run = 0; run < 8; run++) await listDebts(handle.db, "no-such-user");
      const plans = await preparedHolding(handle.db, "generate_series(1, ");
      expect(plans, handle.kind).toHaveLength(1);
      // A few plans for the values first, then the one plan made once (PostgreSQL's own rule).
      expect(plans[0]?.generic, handle.kind).toBeGreaterThanOrEqual(3);
      expect(plans[0]?.custom, handle.kind).toBeLessThanOrEqual(5);
    }
  });

  it.each([
    {
      // Marked PLANNED_EACH_RUN, it was parsed and planned on every run: 0.67 ms of PostgreSQL time
      // on the heavy user instead of 0.37 (which plan PostgreSQL then keeps depends on the data).
      statement: "the overview's comparison (category months and days)",
      run: (db: Database) =>
        getPeriodComparison(
          db,
          "no-such-user",
          { start: "2026-11-01", end: "2026-11-26" },
          { start: "2026-10-01", end: "2026-10-26" },
        ),
      holds: 'from "transaction_category_months"',
    },
    {
      // The merchant rollups read piece by piece (rollups.ts `rollupPieces`): one text whatever
      // the ranges, so one statement kept for a rolling year against the year before on any day.
      statement: "a year by merchant against the year before (merchant pieces)",
      run: (db: Database) =>
        getSpendingBreakdown(db, "no-such-user", {
          range: { start: "2025-11-27", end: "2026-11-26" },
          previous: { start: "2024-11-27", end: "2025-11-26" },
          groupBy: "merchant",
          topN: 15,
          today: "2026-11-26",
        }),
      holds: "jsonb_to_recordset",
    },
  ])("keeps $statement prepared", async ({ run, holds }) => {
    for (const handle of await bothDatabases()) {
      for (let n = 0; n < 8; n++) await run(handle.db);
      const plans = await preparedHolding(handle.db, holds);
      expect(plans, handle.kind).toHaveLength(1);
      expect((plans[0]?.generic ?? 0) + (plans[0]?.custom ?? 0), handle.kind).toBe(8);
    }
  });

  it("on PGlite, keeps a statement marked PLANNED_EACH_RUN prepared and plans it for its values on every run", async () => {
    const handle = await openDatabase({ pgliteDir: "memory://" });
    closers.push(handle.close);
    const marked = (n: number) => sql`select ${n}::int * 3 as tripled ${sql.raw(PLANNED_EACH_RUN)}`;
    for (let n = 1; n <= 8; n++) expect((await executeRows(handle.db, marked(n)))[0]?.tripled).toBe(n * 3);
    // A failing run ends the same way: the forced plans are for the marked statement alone.
    await expect(
      handle.db.execute(sql`select 1 / (${0}::int) as tripled ${sql.raw(PLANNED_EACH_RUN)}`),
    ).rejects.toThrow();
    const kept = await preparedHolding(handle.db, "as tripled");
    expect(kept.find((k) => k.statement.includes("* 3"))).toMatchObject({ generic: 0, custom: 8 });
    expect(kept.find((k) => k.statement.includes("1 /"))).toMatchObject({ generic: 0 });
    expect(await executeRows(handle.db, sql`show plan_cache_mode`)).toEqual([{ plan_cache_mode: "auto" }]);
    // An unmarked statement still gets PostgreSQL's choice: a generic plan after five custom ones.
    for (let n = 1; n <= 8; n++) await executeRows(handle.db, sql`select ${n}::int * 4 as quadrupled`);
    expect(await preparedHolding(handle.db, "as quadrupled")).toEqual([
      expect.objectContaining({ generic: 3, custom: 5 }),
    ]);
  });

  it.runIf(pgUrl)(
    "plans the request pool's statements without parallel workers; the sync pool's as the server does",
    async () => {
      const handle = await openDatabase({ url: pgUrl, driver: "pg" });
      closers.push(handle.close);
      const workers = async (db: Database) =>
        (await executeRows(db, sql`show max_parallel_workers_per_gather`))[0]
          ?.max_parallel_workers_per_gather;
      // Every connection of the request pool, not only the first.
      const settings = await Promise.all([1, 2, 3].map(() => workers(handle.db)));
      expect(settings).toEqual(["0", "0", "0"]);
      expect(await workers(syncDatabaseFor(handle.db))).not.toBe("0");
    },
  );

  it.runIf(pgUrl)("plans a statement marked PLANNED_EACH_RUN for its values, never keeping it", async () => {
    const handle = await openDatabase({ url: pgUrl, driver: "pg" });
    closers.push(handle.close);
    for (const n of [1, 2, 3]) {
      const rows = z
        .object({ rows: z.array(z.object({ tripled: z.number() })) })
        .parse(
          await handle.db.execute(sql`select ${n}::int * 3 as tripled ${sql.raw(PLANNED_EACH_RUN)}`),
        ).rows;
      expect(rows[0]?.tripled).toBe(n * 3);
    }
    expect(await preparedHolding(handle.db, "as tripled")).toEqual([]);
  });

  it.runIf(pgUrl)(
    "prepares nothing with DB_PREPARED_STATEMENTS=0 (a pooler without prepared statements)",
    async () => {
      process.env.DB_PREPARED_STATEMENTS = "0";
      resetEnvCache();
      try {
        const handle = await openDatabase({ url: pgUrl, driver: "pg" });
        closers.push(handle.close);
        await handle.db.execute(sql`select 1 as unprepared_probe`);
        // Neither the statements built once (drizzle's unnamed prepared queries, fixed texts).
        await listAccounts(handle.db, "no-such-user");
        await getBalanceTotals(handle.db, "no-such-user");
        await runFixed(handle.db, fixedStatement(sql`select ${sql.placeholder("n")}::int as fixed_probe`), {
          n: 1,
        });
        const prepared = z
          .object({ rows: z.array(z.object({ n: z.unknown() })) })
          .parse(await handle.db.execute(sql`select count(*) as n from pg_prepared_statements`)).rows;
        expect(Number(prepared[0]?.n)).toBe(0);
      } finally {
        delete process.env.DB_PREPARED_STATEMENTS;
        resetEnvCache();
      }
    },
  );
});

/**
 * The same statement text, run again with other values, answers for those values, and the
 * connection holds it as a prepared statement named after its text (parsed and planned once).
 */
async function expectPreparedOnce(db: Awaited<ReturnType<typeof openDatabase>>["db"]) {
  const echo = (n: number) =>
    db
      .execute(sql`select ${n}::int * 2 as doubled, pg_backend_pid() as pid`)
      .then(
        (r) =>
          z.object({ rows: z.array(z.object({ doubled: z.number(), pid: z.number() })) }).parse(r).rows[0],
      );
  const first = await echo(3);
  const second = await echo(21);
  expect([first?.doubled, second?.doubled]).toEqual([6, 42]);
  // Sequential statements reuse the pool's one idle connection.
  expect(second?.pid).toBe(first?.pid);
  expect(await preparedHolding(db, "as doubled")).toHaveLength(1);
  // A fixed statement (its text rendered once, run through the driver with its values) too.
  const fixed = fixedStatement(sql`select ${sql.placeholder("n")}::int * 5 as quintupled`);
  for (const n of [2, 4]) expect((await runFixed(db, fixed, { n }))[0]?.quintupled).toBe(n * 5);
  expect(await preparedHolding(db, "as quintupled")).toHaveLength(1);
}

/** The texts of the session's statements we keep prepared (named `ll_…`) that hold `text`. */
/**
 * The kept (prepared) statements of this session whose text holds `text`, with the plans made of
 * each: for the values (custom) and once (generic).
 */
async function preparedHolding(db: Database, text: string) {
  return z
    .object({
      rows: z.array(
        z.object({ statement: z.string(), generic: z.coerce.number(), custom: z.coerce.number() }),
      ),
    })
    .parse(
      await db.execute(
        sql`select statement, generic_plans as generic, custom_plans as custom from pg_prepared_statements
            where name like 'll\_%' and statement like ${`%${text}%`} and statement not like '%pg_prepared%'`,
      ),
    ).rows;
}
