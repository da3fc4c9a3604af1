/**
 * The Plaid implementation of `BankProvider` (lib/banking/provider.ts), on the official `plaid`
 * SDK. It only maps: Plaid's shapes to ours (./map.ts) and Plaid's errors to ours (./client.ts).
 *
 * Endpoints (https://plaid.com/docs/api/):
 * /link/token/create (new item, or update mode with `access_token`), /item/public_token/exchange,
 * /item/get, /institutions/get_by_id, /accounts/get, /accounts/balance/get (when real-time
 * balances are asked for), /transactions/sync, /investments/holdings/get,
 * /investments/transactions/get, /liabilities/get, /transactions/recurring/get, /item/remove.
 */
import { CountryCode, type LinkTokenCreateRequest, type PlaidApi, Products } from "plaid";
import { getEnv } from "@/lib/env";
import {
  type BankProvider,
  type ExchangedItem,
  type LinkToken,
  type LinkTokenRequest,
  type ProviderAccount,
  ProviderError,
  type ProviderHolding,
  type ProviderInstitution,
  type ProviderInvestmentTransaction,
  type ProviderLiability,
  type ProviderRecurringStream,
  type ProviderSecurity,
  type ProviderTransaction,
  type RemovedTransaction,
  type TransactionsSyncPage,
} from "../provider";
import { callPlaid, getPlaidApi, REAUTH_CODES } from "./client";
import {
  currencyOf,
  mapAccount,
  mapHolding,
  mapInvestmentTransaction,
  mapLiabilities,
  mapRecurringStream,
  mapSecurity,
  mapTransaction,
  type PlaidLiabilitiesLike,
} from "./map";

/** Largest page Plaid's /transactions/sync serves. */
const SYNC_PAGE_SIZE = 500;
/** Largest page of /investments/transactions/get. */
const INVESTMENT_PAGE_SIZE = 500;
/** Restarts allowed when Plaid reports TRANSACTIONS_SYNC_MUTATION_DURING_PAGINATION. */
const MAX_SYNC_RESTARTS = 5;
/** Two years of history, as the sandbox bank offers. */
const DAYS_OF_HISTORY = 730;

export interface PlaidProviderOptions {
  /** The SDK client; defaults to the environment's (getPlaidApi). */
  api?: () => PlaidApi;
  /**
   * Read balances with /accounts/balance/get (real time, billed per call in production) instead
   * of /accounts/get (Plaid's cached balances, free). Off by default.
   */
  realtimeBalances?: boolean;
}

export class PlaidProvider implements BankProvider {
  readonly kind = "plaid" as const;
  private readonly api: () => PlaidApi;
  private readonly realtimeBalances: boolean;

  constructor(options: PlaidProviderOptions = {}) {
    this.api = options.api ?? getPlaidApi;
    this.realtimeBalances = options.realtimeBalances ?? false;
  }

  /** Plaid Link shows its own institution search. */
  async listInstitutions(): Promise<ProviderInstitution[]> {
    return [];
  }

  /**
   * https://plaid.com/docs/api/link/#linktokencreate. A new item asks for transactions and,
   * where the institution has them, investments and liabilities (`optional_products`, so an
   * institution without them is still offered). Update mode (Reconnect) passes the item's
   * access token and no products.
   */
  async createLinkToken(request: LinkTokenRequest): Promise<LinkToken> {
    const env = getEnv();
    const webhook =
      env.PLAID_WEBHOOK_URL ??
      (env.APP_URL.startsWith("https://") ? `${env.APP_URL}/api/webhooks/plaid` : undefined);
    const body: LinkTokenCreateRequest = {
      client_name: "Ledgerlink",
      language: "en",
      country_codes: [CountryCode.Us],
      user: { client_user_id: request.userId },
      ...(webhook ? { webhook } : {}),
      ...(env.PLAID_REDIRECT_URI ? { redirect_uri: env.PLAID_REDIRECT_URI } : {}),
    };
    if (request.accessToken) {
      body.access_token = request.accessToken;
    } else {
      body.products = [Products.Transactions];
      body.optional_products = [Products.Investments, Products.Liabilities];
      body.transactions = { days_requested: DAYS_OF_HISTORY };
    }
    const data = await callPlaid("/link/token/create", () => this.api().linkTokenCreate(body));
    return { linkToken: data.link_token, expiration: new Date(data.expiration) };
  }

  /** https://plaid.com/docs/api/items/#itempublic_tokenexchange, then the item's institution. */
  async exchangePublicToken(publicToken: string): Promise<ExchangedItem> {
    const exchanged = await callPlaid("/item/public_token/exchange", () =>
      this.api().itemPublicTokenExchange({ public_token: publicToken }),
    );
    let institution: ProviderInstitution = { id: "unknown", name: "Bank" };
    try {
      const { item } = await callPlaid("/item/get", () =>
        this.api().itemGet({ access_token: exchanged.access_token }),
      );
      const id = item.institution_id ?? "unknown";
      let name = item.institution_name ?? null;
      if (!name && item.institution_id) {
        const found = await callPlaid("/institutions/get_by_id", () =>
          this.api().institutionsGetById({ institution_id: id, country_codes: [CountryCode.Us] }),
        );
        name = found.institution.name;
      }
      institution = { id, name: name ?? "Bank" };
    } catch {
      // The item exists and the token works; a missing institution name must not lose it.
    }
    return { accessToken: exchanged.access_token, itemId: exchanged.item_id, institution };
  }

  /** https://plaid.com/docs/api/accounts/#accountsget (or /accounts/balance/get in real-time mode). */
  async getAccounts(accessToken: string): Promise<ProviderAccount[]> {
    const data = this.realtimeBalances
      ? await callPlaid("/accounts/balance/get", () =>
          this.api().accountsBalanceGet(
            { access_token: accessToken },
            // Plaid documents up to 30 s for a real-time balance read.
            { timeout: Math.max(getEnv().PLAID_TIMEOUT_MS, 30_000) },
          ),
        )
      : await callPlaid("/accounts/get", () => this.api().accountsGet({ access_token: accessToken }));
    return data.accounts.map(mapAccount);
  }

  /**
   * https://plaid.com/docs/api/products/transactions/#transactionssync. Pages until `has_more`
   * is false and returns them as ONE page, so a sync either sees a consistent set of changes or
   * none: when Plaid answers TRANSACTIONS_SYNC_MUTATION_DURING_PAGINATION, everything gathered
   * since `cursor` is dropped and pagination restarts from `cursor`, as Plaid asks.
   */
  async syncTransactions(accessToken: string, cursor: string | null): Promise<TransactionsSyncPage> {
    for (let attempt = 0; ; attempt++) {
      const added: ProviderTransaction[] = [];
      const modified: ProviderTransaction[] = [];
      const removed: RemovedTransaction[] = [];
      let next = cursor ?? "";
      try {
        for (;;) {
          const page = await callPlaid("/transactions/sync", () =>
            this.api().transactionsSync({
              access_token: accessToken,
              ...(next ? { cursor: next } : {}),
              count: SYNC_PAGE_SIZE,
            }),
          );
          added.push(...page.added.map(mapTransaction));
          modified.push(...page.modified.map(mapTransaction));
          for (const r of page.removed) {
            removed.push({ providerTransactionId: r.transaction_id, providerAccountId: r.account_id ?? "" });
          }
          next = page.next_cursor;
          if (!page.has_more) break;
        }
        return { added, modified, removed, nextCursor: next, hasMore: false };
      } catch (error) {
        const restart =
          error instanceof ProviderError &&
          error.providerCode === "TRANSACTIONS_SYNC_MUTATION_DURING_PAGINATION" &&
          attempt < MAX_SYNC_RESTARTS;
        if (!restart) throw error;
      }
    }
  }

  /** https://plaid.com/docs/api/products/investments/#investmentsholdingsget */
  async getHoldings(
    accessToken: string,
  ): Promise<{ holdings: ProviderHolding[]; securities: ProviderSecurity[] }> {
    const data = await callPlaid("/investments/holdings/get", () =>
      this.api().investmentsHoldingsGet({ access_token: accessToken }),
    );
    return { holdings: data.holdings.map(mapHolding), securities: data.securities.map(mapSecurity) };
  }

  /** https://plaid.com/docs/api/products/investments/#investmentstransactionsget, every page (offset). */
  async getInvestmentTransactions(
    accessToken: string,
    range: { startDate: string; endDate: string },
  ): Promise<{ investmentTransactions: ProviderInvestmentTransaction[]; securities: ProviderSecurity[] }> {
    const investmentTransactions: ProviderInvestmentTransaction[] = [];
    const securities = new Map<string, ProviderSecurity>();
    let offset = 0;
    for (;;) {
      const data = await callPlaid("/investments/transactions/get", () =>
        this.api().investmentsTransactionsGet({
          access_token: accessToken,
          start_date: range.startDate,
          end_date: range.endDate,
          options: { count: INVESTMENT_PAGE_SIZE, offset },
        }),
      );
      investmentTransactions.push(...data.investment_transactions.map(mapInvestmentTransaction));
      for (const s of data.securities) securities.set(s.security_id, mapSecurity(s));
      offset += data.investment_transactions.length;
      if (data.investment_transactions.length === 0 || offset >= data.total_investment_transactions) break;
    }
    return { investmentTransactions, securities: [...securities.values()] };
  }

  /** https://plaid.com/docs/api/products/liabilities/#liabilitiesget */
  async getLiabilities(accessToken: string): Promise<ProviderLiability[]> {
    const data = await callPlaid("/liabilities/get", () =>
      this.api().liabilitiesGet({ access_token: accessToken }),
    );
    const currencies = new Map(data.accounts.map((a) => [a.account_id, currencyOf(a.balances)]));
    return mapLiabilities(
      data.liabilities as PlaidLiabilitiesLike,
      (accountId) => currencies.get(accountId) ?? "USD",
    );
  }

  /** https://plaid.com/docs/api/products/transactions/#transactionsrecurringget */
  async getRecurringStreams(accessToken: string): Promise<ProviderRecurringStream[]> {
    const data = await callPlaid("/transactions/recurring/get", () =>
      this.api().transactionsRecurringGet({ access_token: accessToken }),
    );
    const streams = [
      ...data.inflow_streams.map((s) => mapRecurringStream(s, "inflow")),
      ...data.outflow_streams.map((s) => mapRecurringStream(s, "outflow")),
    ];
    return streams.filter((s): s is ProviderRecurringStream => s !== null);
  }

  /**
   * Update mode finished: Plaid has no token to exchange, so ask /item/get whether the item
   * still carries a login error. Throws `reauth_required` when it does.
   */
  async confirmReconnect(accessToken: string): Promise<void> {
    const { item } = await callPlaid("/item/get", () => this.api().itemGet({ access_token: accessToken }));
    const code = item.error?.error_code;
    if (code && REAUTH_CODES.has(code)) {
      throw new ProviderError("reauth_required", `Plaid ${code}: the bank still needs you to log in.`, {
        providerCode: code,
      });
    }
  }

  /** https://plaid.com/docs/api/items/#itemremove: stops billing and revokes the access token. */
  async removeItem(accessToken: string): Promise<void> {
    await callPlaid("/item/remove", () => this.api().itemRemove({ access_token: accessToken }));
  }
}
