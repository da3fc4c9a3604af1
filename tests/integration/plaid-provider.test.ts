/**
 * The Plaid provider on the real `plaid` SDK, pointed at the local fake (PLAID_API_BASE):
 * request shapes, pagination, the mutation-during-pagination restart and error mapping.
 */
import { beforeEach, describe, expect, it, vi } from "vitest";
import { PlaidProvider } from "@/lib/banking/plaid/provider";
import { type BankProvider, ProviderError } from "@/lib/banking/provider";
import { plaidItemData, plaidTransactions, plaidTxn, postedCoffee } from "@/tests/fixtures/plaid-data";
import { FAKE_CLIENT_ID, FAKE_SECRET } from "@/tests/fixtures/plaid-fake";
import { withEnv } from "@/tests/helpers/env";
import { usePlaidFake } from "@/tests/helpers/fixtures";

const plaid = usePlaidFake({
  env: { APP_URL: "https://ledgerlink.test", PLAID_REDIRECT_URI: "https://ledgerlink.test/dashboard/banks" },
});
const ctx = { now: new Date("2026-11-01T12:00:00Z") };

beforeEach(() => {
  plaid.fake.requests.length = 0;
});

async function expectProviderError(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

describe("PlaidProvider against the fake Plaid API", () => {
  const provider: BankProvider = new PlaidProvider();

  it("creates a link token for transactions with investments and liabilities optional; update mode sends only the access token", async () => {
    const token = await provider.createLinkToken({ userId: "user-1" }, ctx);
    expect(token.linkToken).toMatch(/^link-sandbox-/);
    expect(token.expiration.getTime()).toBeGreaterThan(Date.now());
    const create = plaid.fake.requests.find((r) => r.path === "/link/token/create");
    expect(create?.body).toMatchObject({
      client_name: "Ledgerlink",
      country_codes: ["US"],
      user: { client_user_id: "user-1" },
      products: ["transactions"],
      optional_products: ["investments", "liabilities"],
      webhook: "https://ledgerlink.test/api/webhooks/plaid",
      redirect_uri: "https://ledgerlink.test/dashboard/banks",
    });
    expect(create?.headers["plaid-client-id"]).toBe(FAKE_CLIENT_ID);
    expect(create?.headers["plaid-version"]).toBe("2020-09-14");

    const item = plaid.fake.createItem(plaidItemData());
    plaid.fake.requests.length = 0;
    await provider.createLinkToken({ userId: "user-1", accessToken: item.accessToken }, ctx);
    const update = plaid.fake.requests.find((r) => r.path === "/link/token/create");
    expect(update?.body.access_token).toBe(item.accessToken);
    expect(update?.body.products).toBeUndefined();
  });

  it("exchanges a public token once and names the institution", async () => {
    const publicToken = plaid.fake.createPublicToken(plaidItemData());
    const exchanged = await provider.exchangePublicToken(publicToken, ctx);
    expect(exchanged.accessToken).toMatch(/^access-sandbox-/);
    expect(exchanged.institution).toEqual({ id: "ins_109508", name: "First Platypus Bank" });
    const again = await expectProviderError(provider.exchangePublicToken(publicToken, ctx));
    expect(again.code).toBe("invalid_token");
    expect(again.requestId).toMatch(/^req-/);
  });

  it("reads accounts from /accounts/get, or /accounts/balance/get in real-time mode", async () => {
    const item = plaid.fake.createItem(plaidItemData());
    const accounts = await provider.getAccounts(item.accessToken, ctx);
    expect(accounts).toHaveLength(6);
    expect(plaid.fake.requests.map((r) => r.path)).toEqual(["/accounts/get"]);
    const realtime: BankProvider = new PlaidProvider({ realtimeBalances: true });
    await realtime.getAccounts(item.accessToken, ctx);
    expect(plaid.fake.requests.map((r) => r.path)).toEqual(["/accounts/get", "/accounts/balance/get"]);
  });

  it("pages /transactions/sync until has_more is false and returns the cursor at the end", async () => {
    const item = plaid.fake.createItem(plaidItemData(), { pageSize: 4 });
    const first = await provider.syncTransactions(item.accessToken, null, ctx);
    expect(first.added.map((t) => t.providerTransactionId).sort()).toEqual(
      plaidTransactions.map((t) => t.transaction_id).sort(),
    );
    expect(first.hasMore).toBe(false);
    const calls = plaid.fake.requests.filter((r) => r.path === "/transactions/sync");
    expect(calls).toHaveLength(Math.ceil(plaidTransactions.length / 4));
    expect(calls[0]?.body.cursor).toBeUndefined();

    plaid.fake.removeTransactions(item.itemId, ["tx-coffee-pending"]);
    plaid.fake.addTransactions(item.itemId, [postedCoffee]);
    plaid.fake.modifyTransactions(item.itemId, [{ ...plaidTransactions[2]!, amount: 1875 }]);
    const second = await provider.syncTransactions(item.accessToken, first.nextCursor, ctx);
    expect(second.added.map((t) => t.providerTransactionId)).toEqual(["tx-coffee-posted"]);
    expect(second.added[0]?.pendingTransactionId).toBe("tx-coffee-pending");
    expect(second.modified.map((t) => [t.providerTransactionId, t.amountMinor])).toEqual([
      ["tx-rent", -187500],
    ]);
    expect(second.removed).toEqual([
      { providerTransactionId: "tx-coffee-pending", providerAccountId: "acc-card-0003" },
    ]);

    const third = await provider.syncTransactions(item.accessToken, second.nextCursor, ctx);
    expect([third.added, third.modified, third.removed].flat()).toHaveLength(0);
  });

  it("restarts pagination from the original cursor on TRANSACTIONS_SYNC_MUTATION_DURING_PAGINATION", async () => {
    const item = plaid.fake.createItem(plaidItemData(), { pageSize: 5 });
    const late = plaidTxn({
      transaction_id: "tx-late",
      account_id: "acc-chk-0001",
      amount: 12.34,
      date: "2026-10-30",
      name: "LATE ARRIVAL",
      primary: "GENERAL_MERCHANDISE",
      detailed: "GENERAL_MERCHANDISE_OTHER_GENERAL_MERCHANDISE",
    });
    // The second page fails, and the data changes at that moment (as Plaid's would).
    plaid.fake.failOnce("/transactions/sync", "TRANSACTIONS_SYNC_MUTATION_DURING_PAGINATION", {
      onCall: 2,
      before: () => plaid.fake.addTransactions(item.itemId, [late]),
    });
    const result = await provider.syncTransactions(item.accessToken, null, ctx);
    const ids = result.added.map((t) => t.providerTransactionId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual([...plaidTransactions.map((t) => t.transaction_id), "tx-late"].sort());
    const cursors = plaid.fake.requests
      .filter((r) => r.path === "/transactions/sync")
      .map((r) => r.body.cursor);
    // call 1 (no cursor), call 2 fails, restart without cursor, then the remaining pages.
    expect(cursors[0]).toBeUndefined();
    expect(cursors[2]).toBeUndefined();
  });

  it("pages investment transactions and maps holdings, liabilities and recurring streams", async () => {
    const item = plaid.fake.createItem(plaidItemData(), { pageSize: 2 });
    const inv = await provider.getInvestmentTransactions(
      item.accessToken,
      { startDate: "2026-01-01", endDate: "2026-10-31" },
      ctx,
    );
    expect(inv.investmentTransactions.map((t) => t.providerInvestmentTransactionId).sort()).toEqual([
      "inv-buy",
      "inv-div",
      "inv-sell",
    ]);
    expect(plaid.fake.requests.filter((r) => r.path === "/investments/transactions/get")).toHaveLength(2);
    const holdings = await provider.getHoldings(item.accessToken, ctx);
    expect(holdings.holdings).toHaveLength(2);
    expect(holdings.securities.map((s) => s.tickerSymbol).sort()).toEqual(["AAPL", "VTI"]);
    expect(await provider.getLiabilities(item.accessToken, ctx)).toHaveLength(3);
    const streams = await provider.getRecurringStreams(item.accessToken, ctx);
    expect(streams.map((s) => s.providerStreamId).sort()).toEqual(["st-netflix", "st-payroll", "st-rent"]);
  });

  it("maps Plaid errors to our codes, with Plaid's request id and never the access token", async () => {
    const item = plaid.fake.createItem(plaidItemData());
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      plaid.fake.setItemError(item.itemId, "ITEM_LOGIN_REQUIRED");
      const reauth = await expectProviderError(provider.syncTransactions(item.accessToken, null, ctx));
      expect(reauth).toMatchObject({ code: "reauth_required", providerCode: "ITEM_LOGIN_REQUIRED" });
      expect(reauth.requestId).toMatch(/^req-/);
      await expect(provider.confirmReconnect(item.accessToken, ctx)).rejects.toMatchObject({
        code: "reauth_required",
      });
      plaid.fake.setItemError(item.itemId, null);
      await expect(provider.confirmReconnect(item.accessToken, ctx)).resolves.toBeUndefined();

      for (const [code, ours] of [
        ["RATE_LIMIT_EXCEEDED", "rate_limited"],
        ["INSTITUTION_DOWN", "institution_down"],
        ["INTERNAL_SERVER_ERROR", "provider_error"],
        ["PRODUCTS_NOT_SUPPORTED", "product_not_supported"],
      ] as const) {
        plaid.fake.failOnce("/accounts/get", code);
        const e = await expectProviderError(provider.getAccounts(item.accessToken, ctx));
        expect(e.code, code).toBe(ours);
        expect(e.cause).toBeUndefined();
        expect(e.message).not.toContain(item.accessToken);
      }
      for (const [product, code] of [
        ["investments", "NO_INVESTMENT_ACCOUNTS"],
        ["liabilities", "NO_LIABILITY_ACCOUNTS"],
        ["recurring", "PRODUCT_NOT_READY"],
      ] as const) {
        plaid.fake.items.get(item.itemId)!.productErrors[product] = code;
      }
      await expect(provider.getHoldings(item.accessToken, ctx)).rejects.toMatchObject({
        code: "product_not_supported",
      });
      await expect(provider.getLiabilities(item.accessToken, ctx)).rejects.toMatchObject({
        code: "product_not_supported",
      });
      await expect(provider.getRecurringStreams(item.accessToken, ctx)).rejects.toMatchObject({
        code: "product_not_supported",
      });
      const logged = log.mock.calls.map((c) => c.join(" ")).join("\n");
      expect(logged).toContain("INTERNAL_SERVER_ERROR");
      expect(logged).toMatch(/"plaid_request_id":"req-/);
      expect(logged).not.toContain(item.accessToken);
      expect(logged).not.toContain(FAKE_SECRET);
    } finally {
      log.mockRestore();
    }
  });

  it("a Plaid that does not answer fails within our bound (PLAID_TIMEOUT_MS), as a retryable provider error", async () => {
    const item = plaid.fake.createItem(plaidItemData());
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    plaid.fake.stall("/accounts/get");
    try {
      await withEnv({ PLAID_TIMEOUT_MS: "300" }, async () => {
        const started = Date.now();
        const e = await expectProviderError(provider.getAccounts(item.accessToken, ctx));
        expect(Date.now() - started).toBeLessThan(3_000);
        expect(e.code).toBe("provider_error");
        expect(e.message).toMatch(/^Plaid could not be reached/);
        expect(log.mock.calls.join(" ")).not.toContain(item.accessToken);
      });
    } finally {
      plaid.fake.unstall();
      log.mockRestore();
    }
    expect(await provider.getAccounts(item.accessToken, ctx)).not.toHaveLength(0);
  });

  it("removes the item at Plaid", async () => {
    const item = plaid.fake.createItem(plaidItemData());
    await provider.removeItem(item.accessToken, ctx);
    expect(plaid.fake.items.get(item.itemId)?.removed).toBe(true);
    await expect(provider.getAccounts(item.accessToken, ctx)).rejects.toMatchObject({
      code: "invalid_token",
    });
  });
});
