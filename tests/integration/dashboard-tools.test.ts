/**
 * /dashboard/tools runs a tool as the signed-in person through the pipeline of /api/mcp: the
 * answer must be byte for byte what a real MCP client receives for the same arguments, argument
 * errors included; an unpaid person gets `setup_required`; runs are rate-limited and recorded in
 * activity as the dashboard, without counting as the assistant's first answer.
 */
import { and, eq, isNotNull } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bankAccounts, toolCalls, transactions } from "@/db/schema";
import { hasAnsweredCall, listRecentToolCalls } from "@/lib/activity";
import { createApiKey } from "@/lib/api-keys";
import { settleDeferred } from "@/lib/deferred";
import { isAppError } from "@/lib/errors";
import { type DashboardRun, runToolFromForm } from "@/lib/mcp/dashboard-run";
import { useTestDatabase } from "../helpers/db";
import { withEnv } from "../helpers/env";
import { createTestUser, linkSandboxBank } from "../helpers/fixtures";
import { connectSdkClient } from "../helpers/mcp-client";
import { type ServedRoutes, serveRoutes } from "../helpers/serve";

const getDb = useTestDatabase();

let server: ServedRoutes;
let active: { id: string; apiKey: string };
let unpaid: { id: string };

beforeAll(async () => {
  const db = getDb();
  server = await serveRoutes({ "/api/mcp": () => import("@/app/api/mcp/route") });
  const now = new Date();
  const user = await createTestUser(db, "dash-tools", { subscription: "active" });
  await linkSandboxBank(db, user.id, "ins_platypus", now);
  active = { id: user.id, apiKey: (await createApiKey(db, user.id, "compare")).key };
  unpaid = await createTestUser(db, "dash-tools-unpaid");
  await linkSandboxBank(db, unpaid.id, "ins_platypus", now);
});

afterAll(async () => {
  await server?.close();
});

/** What a real MCP client (SDK 1.x over HTTP, with an API key) reads for the same call. */
async function overMcp(name: string, args: Record<string, unknown>) {
  const { client, close } = await connectSdkClient(server.url("/api/mcp"), active.apiKey);
  try {
    const result = await client.callTool({ name, arguments: args });
    const [block] = result.content as Array<{ type: string; text: string }>;
    return { isError: result.isError === true, text: block?.text ?? "" };
  } finally {
    await close();
  }
}

interface Answer {
  status: string;
  setup_url?: string;
  data?: {
    accounts: Array<{ name: string; type: string }>;
    transactions: Array<{ merchant?: string; name?: string }>;
  };
}
const body = (run: DashboardRun) => JSON.parse(run.text) as Answer;

describe("runs as the person, through the MCP pipeline", () => {
  it("answers list_accounts exactly as /api/mcp does, with the person's accounts", async () => {
    const run = await runToolFromForm(getDb(), active.id, "list_accounts", { include_closed: "" });
    expect(run.isError).toBe(false);
    expect(run.args).toEqual({ include_closed: false });
    expect(run).toMatchObject(await overMcp("list_accounts", run.args));
    expect(run.bytes).toBe(Buffer.byteLength(run.text));
    const names = (
      await getDb()
        .select({ name: bankAccounts.name })
        .from(bankAccounts)
        .where(eq(bankAccounts.userId, active.id))
    ).map((a) => a.name);
    expect(names.length).toBeGreaterThan(0);
    expect((body(run).data?.accounts ?? []).map((a) => a.name).sort()).toEqual(names.sort());
  });

  it("turns checked choices into a list argument (types: credit only)", async () => {
    const run = await runToolFromForm(getDb(), active.id, "list_accounts", { "types.credit": "on" });
    expect(run.args).toEqual({ types: ["credit"], include_closed: false });
    const accounts = body(run).data?.accounts ?? [];
    const credit = await getDb()
      .select({ id: bankAccounts.id })
      .from(bankAccounts)
      .where(and(eq(bankAccounts.userId, active.id), eq(bankAccounts.type, "credit")));
    expect(accounts.length).toBe(credit.length);
    expect(accounts.every((a) => a.type === "credit")).toBe(true);
  });

  it("finds rows with a search_transactions query typed into the form", async () => {
    const [sample] = await getDb()
      .select({ merchant: transactions.merchantName })
      .from(transactions)
      .where(
        and(
          eq(transactions.userId, active.id),
          eq(transactions.pending, false),
          isNotNull(transactions.merchantName),
        ),
      )
      .orderBy(transactions.date, transactions.id)
      .limit(1);
    const query = sample?.merchant?.toLowerCase();
    if (!query) throw new Error("the sandbox bank has no merchant");
    const run = await runToolFromForm(getDb(), active.id, "search_transactions", {
      query: ` ${query} `,
      limit: "250",
      include_pending: "on",
      exclude_transfers: "",
      direction: "all",
      sort: "date_desc",
    });
    expect(run.args).toMatchObject({ query, limit: 250, include_pending: true, exclude_transfers: false });
    expect(run).toMatchObject(await overMcp("search_transactions", run.args));
    const rows = body(run).data?.transactions ?? [];
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(`${row.merchant ?? ""} ${row.name ?? ""}`.toLowerCase()).toContain(query);
  });

  it("gives the argument error an assistant would read, naming the argument", async () => {
    const run = await runToolFromForm(getDb(), active.id, "search_transactions", { limit: "lots" });
    expect(run.isError).toBe(true);
    expect(run.text).toContain("limit");
    expect(run).toMatchObject(await overMcp("search_transactions", { limit: "lots" }));
  });

  it("refuses a tool that does not exist, naming it", async () => {
    await expect(runToolFromForm(getDb(), active.id, "move_money", {})).rejects.toThrow(/move_money/);
  });

  it("answers an unpaid person with setup_required and the billing link", async () => {
    const run = await runToolFromForm(getDb(), unpaid.id, "list_accounts", {});
    expect(run.isError).toBe(false);
    expect(body(run)).toMatchObject({
      status: "setup_required",
      setup_url: expect.stringMatching(/\/dashboard\/billing$/),
    });
    expect(body(run).data).toBeUndefined();
  });
});

describe("activity and limits", () => {
  it("records runs as the dashboard, which do not end the assistant's setup", async () => {
    const db = getDb();
    const person = await createTestUser(db, "dash-tools-activity", { subscription: "active" });
    await runToolFromForm(db, person.id, "get_connection_status", {});
    await settleDeferred();
    const [row] = await db
      .select({ kind: toolCalls.credentialKind, status: toolCalls.status, tool: toolCalls.tool })
      .from(toolCalls)
      .where(eq(toolCalls.userId, person.id));
    expect(row).toEqual({ kind: "dashboard", status: "ok", tool: "get_connection_status" });
    expect((await listRecentToolCalls(db, person.id))[0]?.credentialLabel).toBe("Dashboard (you)");
    expect(await hasAnsweredCall(db, person.id)).toBe(false);
  });

  it("limits runs per minute like any credential", async () => {
    const db = getDb();
    const person = await createTestUser(db, "dash-tools-limit", { subscription: "active" });
    // Three runs in one one-minute window: wait out the last seconds of a window first.
    const second = new Date().getSeconds();
    if (second >= 55) await new Promise((resolve) => setTimeout(resolve, (61 - second) * 1000));
    await withEnv({ RATE_LIMIT_PER_MINUTE: "2" }, async () => {
      await runToolFromForm(db, person.id, "get_connection_status", {});
      await runToolFromForm(db, person.id, "get_connection_status", {});
      const third = await runToolFromForm(db, person.id, "get_connection_status", {}).catch(
        (e: unknown) => e,
      );
      expect(isAppError(third) && third.code).toBe("rate_limited");
      expect((third as Error).message).toMatch(/2 times this minute.*Try again in \d+ s/);
    });
  });
});
