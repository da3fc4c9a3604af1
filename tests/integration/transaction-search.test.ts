/**
 * `query` in search_transactions: case- and accent-insensitive, `%` and `_` match themselves, and
 * on a user with many rows the text search and the filtered searches are served by indexes (the
 * plan of the very conditions the tools use must not scan `transactions` sequentially).
 */
import { and, type SQL, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { PLANNED_EACH_RUN, syncDatabaseFor } from "@/db";
import { fixedStatement } from "@/db/fixed-statement";
import { EXPONENTS, MAX_EXPONENT, minorUnits } from "@/lib/finance/currency";
import { summaryStatement } from "@/lib/finance/rollups";
import {
  recentRowsWhere,
  searchPage,
  type TransactionFilter,
  transactionConditions,
} from "@/lib/finance/transactions";
import { searchTransactionsTool } from "@/lib/mcp/tools/search-transactions";
import { StatementCounter } from "@/tests/support/statement-counter";
import { useTestDatabase } from "../helpers/db";
import {
  addAccount,
  addConnection,
  addTransactions,
  callTool,
  contextFor,
  createUser,
} from "./tools-helpers";

const statements = new StatementCounter();
const getDb = useTestDatabase(statements);
const NOW = new Date("2025-11-10T12:00:00Z");

describe("text search", () => {
  let userId = "";
  beforeAll(async () => {
    const db = getDb();
    userId = await createUser(db);
    const conn = await addConnection(db, userId);
    const accountId = await addAccount(db, userId, conn, {
      name: "Checking",
      type: "depository",
      balance: 0,
    });
    const rows: Array<[string | null, string]> = [
      ["Café Olé", "CAFE OLE 123"],
      [null, "CAFÉ DU MONDE NEW ORLEANS"],
      ["Crème Brûlée Bakery", "POS CREME"],
      ["Mañana Tacos", "MANANA TACOS"],
      ["100% Juice_Bar", "JUICE"],
      ["1000 Juices", "JUICE 2"],
      ["Hardware Store", "HARDWARE"],
    ];
    await addTransactions(
      db,
      userId,
      rows.map(([merchantName, name], i) => ({
        accountId,
        date: `2025-10-${String(10 + i).padStart(2, "0")}`,
        amountMinor: -1000 - i,
        category: "shopping",
        name,
        merchantName,
      })),
    );
  });

  const find = async (query: string) => {
    const out = await callTool(searchTransactionsTool, { query }, await contextFor(getDb(), userId, NOW));
    // The summary (from the text rollup) counts the same matches as the rows (a page holds them all).
    expect(out.data.summary.count, query).toBe(out.data.transactions.length);
    return out.data.transactions.map((t) => t.merchant ?? t.name).sort();
  };

  it("ignores case and accents, in the merchant and in the description", async () => {
    expect(await find("cafe")).toEqual(["CAFÉ DU MONDE NEW ORLEANS", "Café Olé"]);
    expect(await find("CAFÉ OLÉ")).toEqual(["Café Olé"]);
    expect(await find("creme brulee")).toEqual(["Crème Brûlée Bakery"]);
    expect(await find("mañana")).toEqual(["Mañana Tacos"]);
  });

  it("matches % and _ as themselves", async () => {
    expect(await find("100%")).toEqual(["100% Juice_Bar"]);
    expect(await find("e_b")).toEqual(["100% Juice_Bar"]);
    expect(await find("zzz")).toEqual([]);
  });
});

describe("plans on a user with many rows", () => {
  let userId = "";
  let accountId = "";
  beforeAll(async () => {
    const db = getDb();
    userId = await createUser(db);
    const conn = await addConnection(db, userId);
    accountId = await addAccount(db, userId, conn, { name: "Checking", type: "depository", balance: 0 });
    const other = await addAccount(db, userId, conn, { name: "Card", type: "credit", balance: 0 });
    // 20,000 rows over ten years on two accounts, 40 of them at a rare merchant.
    // A bulk load, like a bank's first sync: through the sync pool and its longer statement bound.
    await syncDatabaseFor(db).execute(sql`
      insert into transactions (id, user_id, account_id, provider_transaction_id, date, name, merchant_name, amount_minor, category)
      select md5(${userId} || g::text), ${userId}, case when g % 10 = 0 then ${accountId} else ${other} end, 'p' || g,
             date '2025-11-01' - (g % 3650), 'POS PURCHASE ' || (g % 997),
             case when g % 500 = 0 then 'Zanzibar Spice Traders' else 'Merchant ' || (g % 211) end,
             -(100 + g % 5000), case when g % 50 = 0 then 'travel' else 'groceries' end
      from generate_series(1, 20000) as g`);
    await db.execute(sql`analyze transactions`);
  }, 60_000);

  /** The text of an EXPLAIN's answer, as either driver gives it. */
  function planText(result: unknown): string {
    const answer = result as { rows: Array<Record<string, string>> } | Array<Record<string, string>>;
    return (Array.isArray(answer) ? answer : answer.rows).map((r) => Object.values(r)[0]).join("\n");
  }

  async function plan(filter: TransactionFilter): Promise<string> {
    const where = and(...transactionConditions(userId, filter)) as SQL;
    return planText(await getDb().execute(sql`explain select id from transactions where ${where}`));
  }

  const base: TransactionFilter = {
    range: null,
    includePending: true,
    excludeTransfers: false,
    direction: "all",
  };

  it("serves a text query from the trigram index", async () => {
    const text = await plan({ ...base, query: "zanzibar" });
    expect(text).toContain("transactions_search_trgm_idx");
    expect(text).not.toMatch(/Seq Scan on transactions/);
  });

  /** The plan of a statement kept prepared: the one plan made for any values (generic). */
  async function genericPlan(text: string, params: unknown[]): Promise<string> {
    const literal = (v: unknown) => (typeof v === "string" ? `'${v.replace(/'/g, "''")}'` : String(v));
    const name = `plan_${Math.random().toString(36).slice(2)}`;
    return getDb().transaction(async (tx) => {
      await tx.execute(sql`set local plan_cache_mode = force_generic_plan`);
      await tx.execute(sql.raw(`prepare ${name} as ${text}`));
      const explained = planText(
        await tx.execute(sql.raw(`explain execute ${name}(${params.map(literal).join(", ")})`)),
      );
      await tx.execute(sql.raw(`deallocate ${name}`));
      return explained;
    });
  }

  it("sums a text query's matches from the text rollup by its trigram index, in the plan made once", async () => {
    await getDb().execute(sql`analyze transaction_text_months`);
    const summaryPlan = (query: string) => {
      const filter = { ...base, query };
      const { text, params } = fixedStatement(summaryStatement(userId, filter));
      return genericPlan(text, params);
    };
    expect(await summaryPlan("zanzibar")).toContain("transaction_text_months_search_trgm_idx");
    // Two letters give the index no trigram: it would read all of itself (every user's texts).
    const short = await summaryPlan("za");
    expect(short).toContain("transaction_text_months");
    expect(short).not.toContain("transaction_text_months_search_trgm_idx");
  });

  it("reads a text search's recent page newest first from the date index, in the plan made once", async () => {
    const filter = { ...base, query: "purchase" };
    const page = searchPage(getDb(), recentRowsWhere(userId, filter, "2025-10-01"), {
      sort: "date_desc",
      limit: 25,
      after: null,
    }).toSQL();
    const text = await genericPlan(page.sql, page.params);
    expect(text).toMatch(/Index Scan Backward using transactions_user_id_date_index/);
    expect(text).not.toContain("transactions_search_trgm_idx");
    expect(text).not.toMatch(/Seq Scan on transactions/);
  });

  it("reads a text search's first page in one statement beside its summary, from the recent months or by the trigram index, as every match in order", async () => {
    const db = getDb();
    const all = (
      (await db.execute(
        sql`select id, date::text as date, name, merchant_name, amount_minor::text as amount from transactions where user_id = ${userId}`,
      )) as unknown as {
        rows: Array<{ id: string; date: string; name: string; merchant_name: string | null; amount: string }>;
      }
    ).rows;
    const ctx = await contextFor(db, userId, NOW);
    // Newest first, id last, among the rows whose merchant or description holds the text (ASCII here).
    const expected = (query: string, keep: (r: (typeof all)[number]) => boolean = () => true) =>
      all
        .filter((r) => `${r.merchant_name ?? ""}\u001f${r.name}`.toLowerCase().includes(query) && keep(r))
        .sort((a, b) => (a.date === b.date ? (a.id < b.id ? 1 : -1) : a.date < b.date ? 1 : -1));
    const search = async (args: Record<string, unknown>) => {
      statements.take();
      const out = await callTool(searchTransactionsTool, { limit: 25, ...args }, ctx);
      const page = statements.texts.filter((t) => t.includes('"page"'));
      return { out, ids: out.data.transactions.map((t) => t.id), page };
    };
    // One statement for the page: the recent months' rows (the pattern tested on each) and, read
    // only when they do not fill the page, every match (by the trigram index, planned for it).
    const onePage = (page: string[]) =>
      page.length === 1 &&
      page[0]!.includes(`"search_text" || '') like`) &&
      page[0]!.includes(PLANNED_EACH_RUN);

    // Every row holds "purchase": the page is in this month and the last, read newest first.
    const common = await search({ query: "PURCHASE" });
    expect(onePage(common.page)).toBe(true);
    expect(common.ids).toEqual(
      expected("purchase")
        .slice(0, 25)
        .map((r) => r.id),
    );
    expect(common.out.data.summary.count).toBe(all.length);

    // 40 rows over ten years: by the trigram index.
    const rare = await search({ query: "zanzibar" });
    expect(onePage(rare.page)).toBe(true);
    expect(rare.ids).toEqual(
      expected("zanzibar")
        .slice(0, 25)
        .map((r) => r.id),
    );

    // A range in the past: its last months are the recent ones. "merchant 1" is about half the rows
    // (merchants 1, 10-19 and 100-199 of 211), every one money out.
    const past = await search({
      query: "merchant 1",
      start_date: "2020-01-01",
      end_date: "2020-06-30",
      direction: "outflow",
    });
    expect(onePage(past.page)).toBe(true);
    const inPast = expected("merchant 1", (r) => r.date >= "2020-01-01" && r.date <= "2020-06-30");
    expect(past.ids).toEqual(inPast.slice(0, 25).map((r) => r.id));
    expect(past.out.data.summary.count).toBe(inPast.length);

    // Fewer matches than a page, all of them recent (this month and the last): the whole page
    // read from those months. A three-digit description number matches its own rows only.
    const since = (r: (typeof all)[number]) => r.date >= "2025-10-01";
    const fewQuery = Array.from({ length: 97 }, (_, i) => `purchase ${900 + i}`).find((q) => {
      const n = expected(q, since).length;
      return n > 0 && n < 25;
    });
    if (!fewQuery) throw new Error("the rows hold no description with a few recent matches");
    const few = await search({ query: fewQuery, start_date: "2025-10-01" });
    expect(onePage(few.page)).toBe(true);
    expect(few.ids).toEqual(expected(fewQuery, since).map((r) => r.id));
    expect(few.out.page?.next_cursor ?? null).toBeNull();

    // Nothing matches: an empty page, and a summary of none.
    const none = await search({ query: "qwertyuiop" });
    expect(none.ids).toEqual([]);
    expect(none.out.data.summary.count).toBe(0);
  });

  it("serves account, category and date filters from their indexes", async () => {
    const filters: TransactionFilter[] = [
      { ...base, accountIds: [accountId], range: { start: "2025-10-01", end: "2025-10-31" } },
      { ...base, categories: ["travel"] },
      { ...base, range: { start: "2025-10-01", end: "2025-10-31" } },
    ];
    for (const filter of filters) expect(await plan(filter)).not.toMatch(/Seq Scan on transactions/);
  });

  it("serves amount bounds from the per-user amount index", async () => {
    // Amounts here run from $1.00 to $50.99; 1/10^4 of a dollar is the scale of the bounds.
    for (const filter of [
      { ...base, minAbs: 50_00_00 },
      { ...base, minAbs: 20_00_00, maxAbs: 20_10_00 },
    ]) {
      const text = await plan(filter);
      expect(text).toContain("transactions_user_abs_amount_idx");
      expect(text).not.toMatch(/Seq Scan on transactions/);
    }
  });
});

describe("the amount scale in SQL", () => {
  it("is 10^(4 − decimals) of each currency, as lib/finance/currency.ts says", async () => {
    const codes = [...Object.keys(EXPONENTS), "USD", "EUR", "BTC", "ZZZ"];
    const result = (await getDb().execute(
      sql`select code, ledgerlink_abs_scaled(-1, code)::text as factor
        from unnest(${sql.raw(`array[${codes.map((c) => `'${c}'`).join(", ")}]`)}::text[]) as code`,
    )) as unknown as { rows: Array<{ code: string; factor: string }> };
    const factors = Object.fromEntries(result.rows.map((r) => [r.code, Number(r.factor)]));
    expect(factors).toEqual(Object.fromEntries(codes.map((c) => [c, 10 ** (MAX_EXPONENT - minorUnits(c))])));
  });
});
