/**
 * The request path's database budget (issue: every tool call at the MCP library's own cost),
 * counted at the driver (db/index.ts `observe`), never timed: statements per request, and
 * sequential round trips ("waves": a wave starts when a statement is sent while none is in
 * flight; statements sent together form one). Counted separately before the answer and after it
 * (lib/deferred.ts: the activity row goes after). In both protocol eras (a 2025 client after
 * `initialize`, and a 2026-07-28 client with its per-request `_meta`), on PGlite and on PostgreSQL.
 */
import { eq, sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Handle, openDatabase, PLANNED_EACH_RUN, setDbForTesting } from "@/db";
import { apiKeys, bankAccounts, rateLimits, users } from "@/db/schema";
import { seedDemo } from "@/db/seed";
import { createApiKey } from "@/lib/api-keys";
import { settleDeferred } from "@/lib/deferred";
import { resetEnvCache } from "@/lib/env";
import { addRule } from "@/lib/finance/category-rules";
import { createMcpEndpoint } from "@/lib/mcp/server";
import { sweepRateLimits } from "@/lib/rate-limit";
import { createScratchDatabase, testDatabaseKind } from "../helpers/db";
import { modernRequest, TOOL_NAMES } from "../helpers/mcp-client";
import { isRateLimitSweep, type StatementCount, StatementCounter } from "../support/statement-counter";

const APP_URL = "http://localhost:3000";

/** The protocol eras one endpoint serves (lib/mcp/request.ts). */
const ERAS = ["2025", "2026-07-28"] as const;
type Era = (typeof ERAS)[number];

/** Every tool with its defaults, and the questions with a text, a period or a daily history. */
const QUESTIONS: Array<[string, Record<string, unknown>]> = [
  ...TOOL_NAMES.map((name): [string, Record<string, unknown>] => [name, {}]),
  ["search_transactions", { query: "coffee", period: "last_12_months" }],
  ["search_transactions", { query: "trader", period: "last_12_months" }],
  ["search_transactions", { query: "zzz no such words" }],
  ["get_financial_overview", { period: "last_month" }],
  ["get_net_worth", { interval: "day", months: 12 }],
  ["find_unusual_activity", { period: "last_12_months" }],
];

/** The scratch database of the PostgreSQL run. */
let scratchUrl = "";

describe("statements and round trips per MCP request", () => {
  const counter = new StatementCounter();
  let handle: Handle;
  let apiKey = "";
  /** The active user's key for two of their accounts, with 50 category rules of theirs in place. */
  let scopedKey = "";
  let dropScratch: (() => Promise<void>) | undefined;
  let endpoint: (req: Request) => Promise<Response>;
  const table: string[] = [];
  const savedAppUrl = process.env.APP_URL;

  beforeAll(async () => {
    process.env.APP_URL = APP_URL;
    // Hundreds of calls with one key within a minute (the plan test alone makes 136): none may
    // be answered by the rate limit instead of the tool.
    process.env.RATE_LIMIT_PER_MINUTE = "100000";
    resetEnvCache();
    if (testDatabaseKind() === "postgres") {
      // Its own database: the demo users' addresses are fixed, and other files seed them too.
      const scratch = await createScratchDatabase("ledgerlink_budget");
      scratchUrl = scratch.url;
      dropScratch = scratch.drop;
      handle = await openDatabase({ url: scratchUrl, migrate: true, observe: counter });
    } else handle = await openDatabase({ pgliteDir: "memory://", observe: counter });
    setDbForTesting(handle);
    const demo = await seedDemo(handle.db);
    apiKey = demo.find((a) => a.state === "active")?.apiKey ?? "";
    scopedKey = await scopedKeyWithRules(handle.db, demo.find((a) => a.state === "active")?.email ?? "");
    endpoint = createMcpEndpoint({ getDb: async () => handle.db });
  });

  afterAll(async () => {
    console.log(`[budget] ${testDatabaseKind()}: before answer / after it\n${table.join("\n")}`);
    setDbForTesting(undefined);
    await handle?.close();
    await dropScratch?.();
    delete process.env.RATE_LIMIT_PER_MINUTE;
    if (savedAppUrl === undefined) delete process.env.APP_URL;
    else process.env.APP_URL = savedAppUrl;
    resetEnvCache();
  });

  /** One request; what it cost before its answer was complete, and after. */
  async function measure(
    label: string,
    body: unknown,
    era: Era = "2025",
    key = apiKey,
  ): Promise<{ before: StatementCount; after: StatementCount; status: number; texts: string[] }> {
    await settleDeferred();
    counter.take();
    const status = await send(body, era, key);
    const texts = [...counter.texts];
    const before = counter.take();
    await settleDeferred();
    const after = counter.takeWithoutSweeps();
    table.push(
      `${era.padEnd(10)} ${label.padEnd(28)} ${before.statements} statements in ${before.waves} round trips / ${after.statements} after`,
    );
    return { before, after, status, texts };
  }

  /**
   * POSTs one message as a client of `era` with the active user's key (a 2026-07-28 request
   * carries its `_meta` and the headers that mirror it); the answer's status, body read.
   */
  async function send(body: unknown, era: Era = "2025", key = apiKey): Promise<number> {
    const message = body as { method: string; id?: number; params?: Record<string, unknown> };
    const modern =
      era === "2026-07-28" ? modernRequest(message.method, message.params, message.id) : undefined;
    const response = await endpoint(
      new Request(`${APP_URL}/api/mcp`, {
        method: "POST",
        headers: {
          host: "localhost:3000",
          authorization: `Bearer ${key}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(modern?.headers ?? { "mcp-protocol-version": "2025-06-18" }),
        },
        body: JSON.stringify(modern?.body ?? body),
      }),
    );
    await response.text();
    return response.status;
  }

  const rpc = (method: string, params?: unknown, id: number | null = 1) => ({
    jsonrpc: "2.0",
    ...(id === null ? {} : { id }),
    method,
    ...(params ? { params } : {}),
  });

  it("leaves out of `after` only the rate-limit sweep some new windows run (at random)", async () => {
    await settleDeferred();
    counter.take();
    await sweepRateLimits(handle.db);
    await handle.db.select().from(rateLimits).limit(1);
    expect(counter.texts.filter(isRateLimitSweep)).toHaveLength(1);
    expect(counter.takeWithoutSweeps().statements).toBe(1);
  });

  it("2025: initialize, tools/list, ping and a notification: one statement each, nothing after", async () => {
    const calls: Array<[string, unknown]> = [
      [
        "initialize",
        rpc("initialize", {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "budget", version: "1" },
        }),
      ],
      ["tools/list", rpc("tools/list")],
      ["prompts/list", rpc("prompts/list")],
      ["ping", rpc("ping")],
      ["notifications/initialized", rpc("notifications/initialized", undefined, null)],
    ];
    for (const [label, body] of calls) {
      const { before, after, status } = await measure(label, body);
      expect(status, label).toBeLessThan(300);
      expect(before, label).toEqual({ statements: 1, waves: 1 });
      expect(after.statements, label).toBe(0);
    }
  });

  it("2026-07-28: server/discover, tools/list, prompts/list and a removed method: one statement each, nothing after", async () => {
    const calls: Array<[string, unknown, number]> = [
      ["server/discover", rpc("server/discover"), 200],
      ["tools/list", rpc("tools/list"), 200],
      ["prompts/list", rpc("prompts/list"), 200],
      ["prompts/get", rpc("prompts/get", { name: "subscription_audit", arguments: {} }), 200],
      // Removed in this era (the SDK's 404): the caller is still identified and counted.
      ["ping", rpc("ping"), 404],
    ];
    for (const [label, body, expected] of calls) {
      const { before, after, status } = await measure(label, body, "2026-07-28");
      expect(status, label).toBe(expected);
      expect(before, label).toEqual({ statements: 1, waves: 1 });
      expect(after.statements, label).toBe(0);
    }
  });

  for (const era of ERAS)
    it(`${era}: every tool: the caller in one round trip, the tool's own statements in one more, the activity row after the answer`, async () => {
      for (const [name, args] of QUESTIONS) {
        const { before, after, status, texts } = await measure(
          name,
          rpc("tools/call", { name, arguments: args }),
          era,
        );
        expect(status, name).toBe(200);
        expect(before.waves, name).toBeLessThanOrEqual(2);
        expect(after.statements, name).toBe(1);
        // A recurring stream's list of its charges (a few KB per stream on a long history) is the
        // sync's: no answer reads it.
        expect(
          texts.filter((t) => t.includes("transaction_ids")),
          name,
        ).toEqual([]);
      }
    });

  for (const era of ERAS)
    it(`${era}: a key scoped to two accounts, with 50 category rules: every tool still in two round trips`, async () => {
      for (const [name, args] of QUESTIONS) {
        const label = `scoped ${name}`;
        const { before, after, status } = await measure(
          label,
          rpc("tools/call", { name, arguments: args }),
          era,
          scopedKey,
        );
        expect(status, label).toBe(200);
        expect(before.waves, label).toBeLessThanOrEqual(2);
        expect(after.statements, label).toBe(1);
      }
    });

  it.runIf(testDatabaseKind() === "pglite")(
    "every statement kept prepared runs with the plan made once for it, none planned anew on every run",
    async () => {
      // PGlite is one session, so it holds every statement of every call. PostgreSQL's rule: five
      // plans for the values, then the plan made once unless it looks costlier (then every run
      // is planned again: a bound constant the plan depends on did that to the debts statement).
      const plans = async () =>
        new Map(
          (
            (await handle.db.execute(
              sql`select statement, custom_plans::int as custom from pg_prepared_statements where name like 'll\_%'`,
            )) as unknown as { rows: Array<{ statement: string; custom: number }> }
          ).rows.map((r) => [r.statement, r.custom]),
        );
      const before = await plans();
      const calls: Array<[string, Record<string, unknown>]> = [
        ...TOOL_NAMES.map((name): [string, Record<string, unknown>] => [name, {}]),
        ["search_transactions", { query: "coffee" }],
        ["search_transactions", { limit: 5, sort: "amount_desc" }],
        ["get_cash_flow", { months: 24 }],
        ["get_spending_breakdown", { group_by: "merchant", period: "last_12_months" }],
        ["get_net_worth", { interval: "day", months: 12 }],
      ];
      for (let run = 0; run < 8; run++)
        for (const [name, args] of calls) await send(rpc("tools/call", { name, arguments: args }));
      // Marked PLANNED_EACH_RUN, a statement is planned for its values on purpose (db/index.ts).
      const replanned = [...(await plans())].filter(
        ([statement, custom]) =>
          custom - (before.get(statement) ?? 0) > 5 && !statement.includes(PLANNED_EACH_RUN),
      );
      expect(replanned).toEqual([]);
    },
  );

  for (const era of ERAS)
    it(`${era}: list_accounts: three statements in all, the activity row included`, async () => {
      const { before, after, status } = await measure(
        "list_accounts (again)",
        rpc("tools/call", { name: "list_accounts" }),
        era,
      );
      expect(status).toBe(200);
      expect(after.statements).toBe(1);
      expect(before.statements + after.statements).toBeLessThanOrEqual(3);
    });

  it.runIf(testDatabaseKind() === "postgres")(
    "calls answered while an activity insert is under way share the next insert, and no row is lost",
    async () => {
      await settleDeferred();
      const rowsBefore = await toolCallRows();
      // Hold inserts into tool_calls: the first call's activity insert waits on this lock.
      const locker = new pg.Client({ connectionString: scratchUrl });
      await locker.connect();
      await locker.query("begin");
      await locker.query("lock table tool_calls in share mode");
      counter.take();
      const activityInserts = () =>
        counter.texts.filter((t) => /^insert into "?tool_calls"? /.test(t)).length;
      await send(rpc("tools/call", { name: "list_accounts" }));
      while (activityInserts() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      // Three more calls, each answered and its deferred task run while that insert waits.
      for (let i = 0; i < 3; i++) {
        await send(rpc("tools/call", { name: "list_accounts" }));
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await locker.query("commit");
      await locker.end();
      await settleDeferred();
      expect(activityInserts()).toBe(2);
      expect(await toolCallRows()).toBe(rowsBefore + 4);
    },
  );
});

async function toolCallRows(): Promise<number> {
  const client = new pg.Client({ connectionString: scratchUrl });
  await client.connect();
  try {
    return Number((await client.query("select count(*) as n from tool_calls")).rows[0].n);
  } finally {
    await client.end();
  }
}

/** A new key of the demo user `email` for two of their accounts, and 50 category rules of theirs. */
async function scopedKeyWithRules(db: Handle["db"], email: string): Promise<string> {
  const [user] = await db.select({ id: users.id }).from(users).where(eq(users.email, email));
  if (!user) throw new Error(`no demo user ${email}`);
  const accounts = await db
    .select({ id: bankAccounts.id })
    .from(bankAccounts)
    .where(eq(bankAccounts.userId, user.id))
    .orderBy(bankAccounts.name)
    .limit(2);
  expect(accounts).toHaveLength(2);
  const key = await createApiKey(db, user.id, "scoped");
  await db
    .update(apiKeys)
    .set({ accountIds: accounts.map((a) => a.id) })
    .where(eq(apiKeys.id, key.id));
  // Applied to the rows as the dashboard applies them; the first few match the sandbox's merchants.
  const merchants = ["Blue Bottle Coffee", "Trader Jon's", "Shake Shack", "Lyft", "REI"];
  for (let i = 0; i < 50; i++)
    await addRule(db, user.id, {
      field: i % 2 === 0 ? "merchant" : "description",
      pattern: i % 2 === 0 ? (merchants[i / 2] ?? `budget merchant ${i}`) : `budget words ${i}`,
      category: i % 4 === 0 ? "shopping" : "other",
    });
  return key.key;
}
