/**
 * A credential limited to some accounts, and a person who hides accounts, get the answers of a
 * person who never linked the others (issue 35): for each of the twelve tools, over real HTTP
 * through the MCP route, byte for byte.
 *
 * The person without the other accounts is the same person after those accounts are deleted:
 * the same rows, with every rollup, precomputed value and stream kept by the database as it keeps
 * them for anyone (the deletes run the same triggers a sync does). The scoped answers come before
 * the delete, through the scoped statements; the answers after it through the unscoped ones (the
 * rollups summed over all accounts), so the two sides share no query path.
 */
import { randomUUID } from "node:crypto";
import { and, eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { apiKeys, bankAccounts, bankConnections } from "@/db/schema";
import { createApiKey } from "@/lib/api-keys";
import { executeRows } from "@/lib/finance/sql";
import { useTestDatabase } from "../helpers/db";
import { createTestUser, linkSandboxBank } from "../helpers/fixtures";
import { rpc } from "../helpers/mcp-client";
import { type ServedRoutes, serveRoutes } from "../helpers/serve";

const getDb = useTestDatabase();

let server: ServedRoutes;
let mcpUrl: string;

beforeAll(async () => {
  server = await serveRoutes({ "/api/mcp": () => import("@/app/api/mcp/route") });
  mcpUrl = server.url("/api/mcp");
});

afterAll(async () => {
  await server?.close();
});

/** Questions to every tool, as assistants ask them: defaults, periods, filters and views. */
const QUESTIONS: Array<[string, Record<string, unknown>]> = [
  ["get_financial_overview", {}],
  ["get_financial_overview", { period: "last_month" }],
  ["list_accounts", {}],
  ["list_accounts", { include_closed: true, types: ["depository", "credit", "investment"] }],
  ["search_transactions", {}],
  ["search_transactions", { query: "coffee", period: "last_12_months" }],
  ["search_transactions", { period: "last_12_months", categories: ["groceries", "restaurants", "income"] }],
  ["search_transactions", { period: "last_12_months", direction: "outflow", min_amount: 50, limit: 100 }],
  ["get_spending_breakdown", {}],
  ["get_spending_breakdown", { period: "last_12_months", group_by: "merchant", compare_to_previous: true }],
  ["get_spending_breakdown", { period: "year_to_date", group_by: "category" }],
  ["get_cash_flow", {}],
  ["get_cash_flow", { interval: "week", months: 2 }],
  ["list_recurring", {}],
  ["list_recurring", { status: "all", direction: "all" }],
  ["get_upcoming_bills", {}],
  ["get_upcoming_bills", { days_ahead: 60 }],
  ["get_investments", {}],
  ["get_investments", { view: "allocation" }],
  ["get_investments", { view: "transactions", period: "last_12_months" }],
  ["get_liabilities", {}],
  ["get_net_worth", {}],
  ["get_net_worth", { interval: "day", months: 3 }],
  ["find_unusual_activity", {}],
  ["find_unusual_activity", { period: "last_12_months", limit: 100 }],
  ["get_connection_status", {}],
];

const answerSchema = z.object({
  result: z.object({ content: z.array(z.object({ type: z.literal("text"), text: z.string() })) }),
});

/** The answer's text, byte for byte what an assistant reads; a failed call fails the test. */
async function ask(apiKey: string, tool: string, args: Record<string, unknown>): Promise<string> {
  const answer = await rpc(
    mcpUrl,
    { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: tool, arguments: args } },
    { apiKey },
  );
  expect(answer.status, `${tool} ${JSON.stringify(args)}: ${answer.text}`).toBe(200);
  const parsed = answerSchema.parse(answer.body);
  const text = parsed.result.content[0]?.text ?? "";
  expect(text.startsWith("{"), `${tool} ${JSON.stringify(args)}: ${text}`).toBe(true);
  expect(JSON.parse(text).status, `${tool}: ${text}`).toBe("ok");
  return text;
}

/**
 * The answer without its page's cursor: a cursor names the question it continues, and the scoped
 * question is another one (it names the credential's accounts). Whether there is one stays.
 */
function withoutCursor(text: string): string {
  const envelope = JSON.parse(text) as { page?: { next_cursor?: string } };
  if (envelope.page?.next_cursor) envelope.page.next_cursor = "…";
  return JSON.stringify(envelope);
}

/** The answer without the HIDDEN_ACCOUNTS warning, which only the person who hides accounts gets. */
function withoutHiddenWarning(text: string, hidden: number): string {
  const envelope = JSON.parse(text) as { warnings: Array<{ code: string; count?: number }> };
  const warning = envelope.warnings.find((w) => w.code === "HIDDEN_ACCOUNTS");
  expect(warning?.count).toBe(hidden);
  envelope.warnings = envelope.warnings.filter((w) => w.code !== "HIDDEN_ACCOUNTS");
  return JSON.stringify(envelope);
}

interface Person {
  userId: string;
  accounts: Array<{ id: string; name: string; connectionId: string }>;
}

/** A person with two sandbox banks: seven accounts (checking, savings, card, mortgage; three investment). */
async function personWithTwoBanks(): Promise<Person> {
  const db = getDb();
  const user = await createTestUser(db, `scope-${randomUUID().slice(0, 8)}`, { subscription: "active" });
  const now = new Date();
  await linkSandboxBank(db, user.id, "ins_platypus", now);
  await linkSandboxBank(db, user.id, "ins_houndstooth", now);
  const accounts = await db
    .select({ id: bankAccounts.id, name: bankAccounts.name, connectionId: bankAccounts.connectionId })
    .from(bankAccounts)
    .where(eq(bankAccounts.userId, user.id))
    .orderBy(bankAccounts.name);
  return { userId: user.id, accounts };
}

/** A new key of `userId` reading `accountIds` (null: all accounts). */
async function keyFor(userId: string, accountIds: string[] | null): Promise<string> {
  const db = getDb();
  const key = await createApiKey(db, userId, "scope test");
  if (accountIds) await db.update(apiKeys).set({ accountIds }).where(eq(apiKeys.id, key.id));
  return key.key;
}

/** Deletes every account of the person but `keep`, and the banks left without one. */
async function keepOnly(person: Person, keep: string[]): Promise<void> {
  const db = getDb();
  const gone = person.accounts.map((a) => a.id).filter((id) => !keep.includes(id));
  await db
    .delete(bankAccounts)
    .where(and(eq(bankAccounts.userId, person.userId), inArray(bankAccounts.id, gone)));
  await executeRows(
    db,
    sql`delete from ${bankConnections} c where c.user_id = ${person.userId}
        and not exists (select 1 from ${bankAccounts} a where a.connection_id = c.id)`,
  );
}

function idsOf(person: Person, names: string[]): string[] {
  return names.map((name) => {
    const account = person.accounts.find((a) => a.name === name);
    if (!account)
      throw new Error(`no account named ${name}: ${person.accounts.map((a) => a.name).join(", ")}`);
    return account.id;
  });
}

describe.each([
  // Everyday spending and its card: transfers to the other accounts, bills, recurring, a liability.
  { pair: ["Everyday Checking", "Platypus Rewards Visa"] },
  // Savings and a brokerage account, at two banks: balances, interest, holdings, investment activity.
  { pair: ["High-Yield Savings", "Individual Brokerage"] },
])("two of seven accounts: $pair", ({ pair }) => {
  it("a key scoped to them, and the person hiding the others, answer as a person with only them", async () => {
    const db = getDb();
    const person = await personWithTwoBanks();
    expect(person.accounts).toHaveLength(7);
    const keep = idsOf(person, pair);
    const others = person.accounts.map((a) => a.id).filter((id) => !keep.includes(id));
    const scopedKey = await keyFor(person.userId, keep);
    const outside = others[0] ?? "";
    const questions: Array<[string, Record<string, unknown>]> = [
      ...QUESTIONS,
      // An account outside the scope finds nothing, like another person's.
      ["search_transactions", { account_ids: [outside], period: "last_12_months" }],
      ["get_spending_breakdown", { account_ids: [outside, keep[0]], period: "last_12_months" }],
      ["get_investments", { account_ids: [outside] }],
    ];

    const scoped: string[] = [];
    for (const [tool, args] of questions) scoped.push(await ask(scopedKey, tool, args));
    // Not vacuous: the pair has rows, the person has more, and the outside account finds none.
    const data = (i: number) => JSON.parse(scoped[i] ?? "{}").data;
    expect(
      data(2)
        .accounts.map((a: { id: string }) => a.id)
        .sort(),
    ).toEqual([...keep].sort());
    expect(data(4).transactions.length).toBeGreaterThan(0);
    const everything = JSON.parse(await ask(await keyFor(person.userId, null), "list_accounts", {}));
    expect(everything.data.accounts).toHaveLength(7);
    expect(data(QUESTIONS.length).transactions).toEqual([]);

    await db.update(bankAccounts).set({ hidden: true }).where(inArray(bankAccounts.id, others));
    const allKey = await keyFor(person.userId, null);
    const hidden: string[] = [];
    for (const [tool, args] of questions)
      hidden.push(withoutHiddenWarning(await ask(allKey, tool, args), others.length));
    // The scoped key still sees the pair while the others are hidden.
    expect(withoutHiddenWarning(await ask(scopedKey, "list_accounts", {}), others.length)).toBe(scoped[2]);

    await keepOnly(person, keep);
    for (const [i, [tool, args]] of questions.entries()) {
      const only = await ask(allKey, tool, args);
      const label = `${tool} ${JSON.stringify(args)}`;
      expect(withoutCursor(scoped[i] ?? ""), `scoped key: ${label}`).toBe(withoutCursor(only));
      expect(withoutCursor(hidden[i] ?? ""), `hidden accounts: ${label}`).toBe(withoutCursor(only));
    }
  });
});
