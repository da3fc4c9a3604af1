/**
 * Plaid end to end below the browser: the real `plaid` SDK against the fake Plaid API, through
 * the connection service and the sync engine into the database, and out through an MCP tool.
 * Every money figure is checked against an independent computation over the Plaid fixtures.
 */
import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import {
  bankAccounts,
  bankConnections,
  holdings,
  investmentTransactions,
  liabilities,
  recurringStreams,
  transactions,
} from "@/db/schema";
import { getAccess } from "@/lib/access";
import { createApiKey } from "@/lib/api-keys";
import {
  createLinkTokenFor,
  reconnectConnection,
  removeConnection,
  syncNow,
} from "@/lib/banking/connections";
import { getIncomeAndSpending } from "@/lib/finance/spending";
import { useTestDatabase } from "@/tests/helpers/db";
import { createTestUser, linkPlaidItem, usePlaidFake } from "@/tests/helpers/fixtures";
import { connectSdkClient } from "@/tests/helpers/mcp-client";
import {
  ACCOUNT_IDS,
  expectedTotalsCents,
  plaidItemData,
  plaidTxn,
  postedCoffee,
} from "../fixtures/plaid-data";
import type { ItemOptions } from "../fixtures/plaid-fake";

const getDb = useTestDatabase();
const OCTOBER = { start: "2026-10-01", end: "2026-10-31" };
const now = new Date("2026-11-01T12:00:00Z");

const plaid = usePlaidFake({ routes: { "/api/mcp": () => import("@/app/api/mcp/route") } });

const createUser = async () => (await createTestUser(getDb(), "plaid", { subscription: "active" })).id;

/** Links a Plaid item made from `data` for `userId`; returns the connection id and the fake item. */
const linkPlaid = (userId: string, data = plaidItemData(), options?: ItemOptions) =>
  linkPlaidItem(getDb(), plaid.fake, userId, { data, options, now });

async function transactionsOf(userId: string) {
  return getDb()
    .select({
      id: transactions.providerTransactionId,
      amountMinor: transactions.amountMinor,
      pending: transactions.pending,
      isTransfer: transactions.isTransfer,
    })
    .from(transactions)
    .where(eq(transactions.userId, userId));
}

async function connectionOf(id: string) {
  const [row] = await getDb().select().from(bankConnections).where(eq(bankConnections.id, id));
  return row!;
}

describe("Plaid through the sync engine", () => {
  it("first sync of a fresh item stores accounts, transactions, holdings, liabilities and recurring streams", async () => {
    const userId = await createUser();
    const data = plaidItemData();
    const { connectionId, item, result } = await linkPlaid(userId, data);
    expect(result.sync.error).toBeUndefined();
    const connection = await connectionOf(connectionId);
    expect(connection).toMatchObject({
      provider: "plaid",
      providerItemId: item.itemId,
      institutionName: "First Platypus Bank",
      status: "healthy",
    });
    expect(connection.syncCursor).toBeTruthy();
    // The access token is stored encrypted, never in the clear.
    expect(connection.accessTokenCiphertext).not.toContain(item.accessToken);

    const rows = await transactionsOf(userId);
    expect(rows.map((r) => r.id).sort()).toEqual(data.transactions.map((t) => t.transaction_id).sort());
    for (const t of data.transactions) {
      const row = rows.find((r) => r.id === t.transaction_id)!;
      expect(row.amountMinor, t.transaction_id).toBe(-Math.round(t.amount * 100));
    }

    const accounts = await getDb().select().from(bankAccounts).where(eq(bankAccounts.userId, userId));
    expect(accounts).toHaveLength(data.accounts.length);
    for (const a of data.accounts) {
      const row = accounts.find((r) => r.providerAccountId === a.account_id)!;
      // Plaid's credit/loan balances are positive owed; ours too: no sign flip on balances.
      expect(row.currentBalanceMinor).toBe(Math.round((a.balances.current ?? 0) * 100));
    }
    const count = async (
      table: typeof holdings | typeof investmentTransactions | typeof liabilities | typeof recurringStreams,
    ) =>
      (await getDb().select({ n: sql<number>`count(*)::int` }).from(table).where(eq(table.userId, userId)))[0]
        ?.n;
    expect(await count(holdings)).toBe(2);
    expect(await count(investmentTransactions)).toBe(3);
    expect(await count(liabilities)).toBe(3);
    expect(await count(recurringStreams)).toBe(3); // the UNKNOWN-frequency stream is skipped
  });

  it("counts income and spending like the independent reading of Plaid's data (transfers, refunds, pending)", async () => {
    const userId = await createUser();
    const data = plaidItemData();
    await linkPlaid(userId, data);
    const expected = expectedTotalsCents(data.transactions, OCTOBER.start, OCTOBER.end);
    const totals = await getIncomeAndSpending(getDb(), userId, OCTOBER);
    expect(totals).toEqual([
      { currency: "USD", incomeCents: expected.income, spendingCents: expected.spending },
    ]);
    // The transfer and card-payment legs are flagged, both sides.
    const flagged = (await transactionsOf(userId))
      .filter((r) => r.isTransfer)
      .map((r) => r.id)
      .sort();
    expect(flagged).toEqual(["tx-cardpay-in", "tx-cardpay-out", "tx-xfer-in", "tx-xfer-out"]);

    // Net worth from stored balances = assets − liabilities, computed from Plaid's balances.
    const assets = data.accounts
      .filter((a) => a.type === "depository" || a.type === "investment")
      .reduce((s, a) => s + Math.round((a.balances.current ?? 0) * 100), 0);
    const owed = data.accounts
      .filter((a) => a.type === "credit" || a.type === "loan")
      .reduce((s, a) => s + Math.round((a.balances.current ?? 0) * 100), 0);
    const [row] = await getDb()
      .select({
        netWorth: sql<string>`sum(case when ${bankAccounts.type} in ('credit','loan') then -${bankAccounts.currentBalanceMinor} else ${bankAccounts.currentBalanceMinor} end)`,
      })
      .from(bankAccounts)
      .where(eq(bankAccounts.userId, userId));
    expect(Number(row?.netWorth)).toBe(assets - owed);
  });

  it("second sync applies added, modified and removed; the posted transaction replaces its pending one", async () => {
    const userId = await createUser();
    const { connectionId, item } = await linkPlaid(userId);
    const firstCursor = (await connectionOf(connectionId)).syncCursor;
    const newGroceries = plaidTxn({
      transaction_id: "tx-groc-3",
      account_id: ACCOUNT_IDS.card,
      amount: 54.32,
      date: "2026-10-26",
      name: "SAFEWAY",
      primary: "FOOD_AND_DRINK",
      detailed: "FOOD_AND_DRINK_GROCERIES",
    });
    const rent = item.data.transactions.find((t) => t.transaction_id === "tx-rent")!;
    plaid.fake.addTransactions(item.itemId, [newGroceries]);
    plaid.fake.modifyTransactions(item.itemId, [{ ...rent, amount: 1875.5 }]);
    plaid.fake.removeTransactions(item.itemId, ["tx-netflix", "tx-coffee-pending"]);
    plaid.fake.addTransactions(item.itemId, [postedCoffee]);

    const summary = await syncNow(getDb(), userId, connectionId, { now });
    expect(summary).toMatchObject({ status: "healthy", added: 2, modified: 1, removed: 2 });
    expect((await connectionOf(connectionId)).syncCursor).not.toBe(firstCursor);
    const sync = plaid.fake.requests.filter(
      (r) => r.path === "/transactions/sync" && r.body.access_token === item.accessToken,
    );
    expect(sync.at(-1)?.body.cursor).toBe(firstCursor);

    const rows = await transactionsOf(userId);
    const ids = rows.map((r) => r.id);
    expect(ids).toContain("tx-groc-3");
    expect(ids).toContain("tx-coffee-posted");
    expect(ids).not.toContain("tx-coffee-pending");
    expect(ids).not.toContain("tx-netflix");
    expect(rows.find((r) => r.id === "tx-rent")?.amountMinor).toBe(-187550);
    expect(rows.filter((r) => r.pending)).toHaveLength(0);

    // The fake's current data is Plaid's truth: our totals must agree with it to the cent.
    const expected = expectedTotalsCents(item.data.transactions, OCTOBER.start, OCTOBER.end);
    expect(await getIncomeAndSpending(getDb(), userId, OCTOBER)).toEqual([
      { currency: "USD", incomeCents: expected.income, spendingCents: expected.spending },
    ]);

    // Nothing new: a third sync changes nothing.
    const again = await syncNow(getDb(), userId, connectionId, { now });
    expect(again).toMatchObject({ added: 0, modified: 0, removed: 0 });
    expect((await transactionsOf(userId)).length).toBe(rows.length);
  });

  it("a posted transaction without Plaid's `removed` entry still replaces its pending one (counted once)", async () => {
    const userId = await createUser();
    const { connectionId, item } = await linkPlaid(userId);
    plaid.fake.addTransactions(item.itemId, [postedCoffee]);
    await syncNow(getDb(), userId, connectionId, { now });
    const rows = await transactionsOf(userId);
    expect(rows.map((r) => r.id)).not.toContain("tx-coffee-pending");
    const expected = expectedTotalsCents(
      [...plaidItemData().transactions, postedCoffee],
      OCTOBER.start,
      OCTOBER.end,
    );
    expect((await getIncomeAndSpending(getDb(), userId, OCTOBER))[0]?.spendingCents).toBe(expected.spending);
  });

  it("survives a mutation during pagination: restarts from the old cursor, no duplicates, nothing lost", async () => {
    const userId = await createUser();
    const { connectionId, item } = await linkPlaid(userId);
    item.pageSize = 2;
    const extra = Array.from({ length: 5 }, (_, i) =>
      plaidTxn({
        transaction_id: `tx-extra-${i}`,
        account_id: ACCOUNT_IDS.checking,
        amount: 10 + i,
        date: "2026-10-27",
        name: `SHOP ${i}`,
        primary: "GENERAL_MERCHANDISE",
        detailed: "GENERAL_MERCHANDISE_OTHER_GENERAL_MERCHANDISE",
      }),
    );
    plaid.fake.addTransactions(item.itemId, extra);
    const late = plaidTxn({
      transaction_id: "tx-late",
      account_id: ACCOUNT_IDS.checking,
      amount: 99.99,
      date: "2026-10-28",
      name: "LATE",
      primary: "GENERAL_MERCHANDISE",
      detailed: "GENERAL_MERCHANDISE_OTHER_GENERAL_MERCHANDISE",
    });
    plaid.fake.failOnce("/transactions/sync", "TRANSACTIONS_SYNC_MUTATION_DURING_PAGINATION", {
      onCall: 2,
      before: () => plaid.fake.addTransactions(item.itemId, [late]),
    });
    const summary = await syncNow(getDb(), userId, connectionId, { now });
    expect(summary.status).toBe("healthy");
    expect(summary.added).toBe(6);
    const rows = await transactionsOf(userId);
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
    expect(rows.length).toBe(plaidItemData().transactions.length + 6);
    const expected = expectedTotalsCents(item.data.transactions, OCTOBER.start, OCTOBER.end);
    expect((await getIncomeAndSpending(getDb(), userId, OCTOBER))[0]?.spendingCents).toBe(expected.spending);
  });

  it("a product the institution does not support is skipped with a warning the user sees, not a failure", async () => {
    const db = getDb();
    const userId = await createUser();
    const data = plaidItemData();
    const { connectionId, item, result } = await linkPlaid(userId, data, {
      productErrors: {
        investments: "PRODUCTS_NOT_SUPPORTED",
        liabilities: "NO_LIABILITY_ACCOUNTS",
        recurring: "PRODUCT_NOT_READY",
      },
    });
    expect(result.sync.status).toBe("healthy");
    const summary = await syncNow(db, userId, connectionId, { now });
    expect(summary.status).toBe("healthy");
    expect(summary.error).toBeUndefined();
    expect((await transactionsOf(userId)).length).toBe(data.transactions.length);
    for (const table of [liabilities, holdings, recurringStreams]) {
      const [row] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(table)
        .where(eq(table.userId, userId));
      expect(row?.n).toBe(0);
    }

    // One warning per product, a sentence for people with Plaid's code beside it, in the summary and on the connection.
    const expected = [
      { product: "investments", providerCode: "PRODUCTS_NOT_SUPPORTED" },
      { product: "liabilities", providerCode: "NO_LIABILITY_ACCOUNTS" },
      { product: "recurring", providerCode: "PRODUCT_NOT_READY" },
    ];
    expect(summary.warnings?.map((w) => w.product).sort()).toEqual(expected.map((e) => e.product));
    const stored = (await connectionOf(connectionId)).warnings;
    expect(stored).toEqual(summary.warnings);
    for (const e of expected) {
      const warning = stored?.find((w) => w.product === e.product);
      expect(warning?.code).toBe("PRODUCT_NOT_SUPPORTED");
      expect(warning?.providerCode).toBe(e.providerCode);
      expect(warning?.message).not.toContain(e.providerCode);
    }

    // get_connection_status shows them on this bank.
    const { key } = await createApiKey(db, userId, "plaid warnings");
    const mcp = await connectSdkClient(plaid.server.url("/api/mcp"), key);
    try {
      const answer = await mcp.client.callTool({ name: "get_connection_status", arguments: {} });
      expect(answer.isError).toBeFalsy();
      const envelope = answer.structuredContent as {
        status: string;
        data: {
          connections: Array<{
            id: string;
            status: string;
            warnings: Array<{ code: string; product: string; message: string }>;
          }>;
        };
      };
      expect(envelope.status).toBe("ok");
      const connection = envelope.data.connections.find((c) => c.id === connectionId);
      expect(connection?.status).toBe("healthy");
      // The assistant reads the sentences; the provider's code stays with support.
      expect(connection?.warnings).toEqual(stored?.map(({ providerCode: _, ...w }) => w));
    } finally {
      await mcp.close();
    }

    // The bank starts serving them: the next successful sync clears the warnings.
    item.productErrors = {};
    const fixed = await syncNow(db, userId, connectionId, { now });
    expect(fixed.warnings).toBeUndefined();
    expect((await connectionOf(connectionId)).warnings).toBeNull();
    const [held] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(holdings)
      .where(eq(holdings.userId, userId));
    expect(held?.n).toBe(data.holdings?.length);
  });

  it("a healthy item with every product records no warnings", async () => {
    const userId = await createUser();
    const { connectionId, result } = await linkPlaid(userId);
    expect(result.sync.warnings).toBeUndefined();
    expect((await connectionOf(connectionId)).warnings).toBeNull();
  });

  it("rate limits and institution outages mark the connection erroring and keep its data", async () => {
    const userId = await createUser();
    const { connectionId } = await linkPlaid(userId);
    const before = (await transactionsOf(userId)).length;
    for (const code of ["RATE_LIMIT_EXCEEDED", "INSTITUTION_DOWN"]) {
      plaid.fake.failOnce("/accounts/get", code);
      const summary = await syncNow(getDb(), userId, connectionId, { now });
      expect(summary.status).toBe("error");
      expect(summary.error?.requestId).toMatch(/^req-/);
      expect((await connectionOf(connectionId)).status).toBe("error");
      expect((await transactionsOf(userId)).length).toBe(before);
    }
    expect((await syncNow(getDb(), userId, connectionId, { now })).status).toBe("healthy");
  });

  it("ITEM_LOGIN_REQUIRED → REAUTH_REQUIRED in a tool answer with the old data; update mode brings it back", async () => {
    const db = getDb();
    const userId = await createUser();
    const { connectionId, item } = await linkPlaid(userId);
    const { key } = await createApiKey(db, userId, "plaid test");
    const before = await transactionsOf(userId);

    plaid.fake.setItemError(item.itemId, "ITEM_LOGIN_REQUIRED");
    const failed = await syncNow(db, userId, connectionId, { now });
    expect(failed.status).toBe("reauth_required");
    const connection = await connectionOf(connectionId);
    expect(connection.status).toBe("reauth_required");
    expect(connection.lastSyncedAt?.toISOString()).toBe(now.toISOString());
    expect((await transactionsOf(userId)).length).toBe(before.length);
    expect((await getAccess(db, userId)).needsReauth.map((c) => c.id)).toEqual([connectionId]);

    const mcp = await connectSdkClient(plaid.server.url("/api/mcp"), key);
    try {
      const answer = await mcp.client.callTool({
        name: "search_transactions",
        arguments: { start_date: "2026-10-01", end_date: "2026-10-31", limit: 250 },
      });
      const envelope = answer.structuredContent as {
        status: string;
        warnings: Array<{ code: string; connection_id?: string; action_url?: string }>;
        page?: { total_count: number };
      };
      expect(envelope.status).toBe("ok");
      const warning = envelope.warnings.find((w) => w.code === "REAUTH_REQUIRED");
      expect(warning?.connection_id).toBe(connectionId);
      expect(warning?.action_url).toContain(`reconnect=${connectionId}`);
      // The old data is still served.
      expect(envelope.page?.total_count).toBe(before.length);
    } finally {
      await mcp.close();
    }

    // Reconnect: Link in update mode gets the item's access token, never products.
    plaid.fake.requests.length = 0;
    await createLinkTokenFor(db, userId, { provider: "plaid", connectionId, now });
    const linkRequest = plaid.fake.requests.find((r) => r.path === "/link/token/create");
    expect(linkRequest?.body.access_token).toBe(item.accessToken);
    expect(linkRequest?.body.products).toBeUndefined();

    // The user has not finished logging in yet: Reconnect is refused, state unchanged.
    await expect(reconnectConnection(db, userId, connectionId, { now })).rejects.toMatchObject({
      code: "reauth_required",
    });
    expect((await connectionOf(connectionId)).status).toBe("reauth_required");

    // Link's update mode succeeded (the login is fixed at Plaid), new data waits.
    plaid.fake.setItemError(item.itemId, null);
    plaid.fake.addTransactions(item.itemId, [postedCoffee]);
    const later = new Date(now.getTime() + 3600_000);
    const repaired = await reconnectConnection(db, userId, connectionId, { now: later });
    expect(repaired.status).toBe("healthy");
    expect(await connectionOf(connectionId)).toMatchObject({ status: "healthy", lastErrorCode: null });
    expect((await transactionsOf(userId)).map((r) => r.id)).toContain("tx-coffee-posted");
    expect((await getAccess(db, userId)).needsReauth).toEqual([]);
  });

  it("removing a Plaid bank calls /item/remove and deletes its data", async () => {
    const userId = await createUser();
    const { connectionId, item } = await linkPlaid(userId);
    await removeConnection(getDb(), userId, connectionId, { now });
    expect(plaid.fake.items.get(item.itemId)?.removed).toBe(true);
    expect(await transactionsOf(userId)).toEqual([]);
    const rows = await getDb()
      .select()
      .from(bankConnections)
      .where(and(eq(bankConnections.userId, userId), eq(bankConnections.id, connectionId)));
    expect(rows).toEqual([]);
  });
});
