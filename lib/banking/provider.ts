/**
 * The bank-data provider interface. Two implementations: the deterministic sandbox
 * (lib/banking/sandbox) and Plaid (lib/banking/plaid). The shape follows Plaid's API closely
 * (https://plaid.com/docs/api/) so the Plaid implementation is a thin mapping:
 *
 * | method                      | Plaid endpoint                                   |
 * |-----------------------------|--------------------------------------------------|
 * | createLinkToken             | /link/token/create (with access_token = update mode) |
 * | exchangePublicToken         | /item/public_token/exchange (+ /item/get, /institutions/get_by_id) |
 * | getAccounts                 | /accounts/get                                    |
 * | syncTransactions            | /transactions/sync                               |
 * | getHoldings                 | /investments/holdings/get                        |
 * | getInvestmentTransactions   | /investments/transactions/get                    |
 * | getLiabilities              | /liabilities/get                                 |
 * | getRecurringStreams         | /transactions/recurring/get                      |
 * | confirmReconnect            | (update mode finished; Plaid: /item/get check)   |
 * | removeItem                  | /item/remove                                     |
 *
 * Every output is already in OUR conventions, so the sync engine is provider-agnostic:
 * - money is integer minor units (cents); transaction amounts are negative for money OUT of the
 *   account (Plaid's sign is the opposite: the Plaid implementation negates);
 * - balances of credit and loan accounts are positive amounts owed;
 * - categories are our vocabulary (lib/finance/categories.ts), `isTransfer` set for movements
 *   between the user's own accounts and for credit-card payments (both legs);
 * - dates are ISO `YYYY-MM-DD` strings; quantities and unit prices are decimal strings (exact).
 * Errors are thrown as `ProviderError` with one of our codes and the provider's request id.
 */
import type { AccountType } from "@/db/schema";
import type { CategoryId } from "@/lib/finance/categories";

export type ProviderKind = "sandbox" | "plaid";

/** Our error codes for provider failures. */
export type ProviderErrorCode =
  /** The user must re-authenticate at the bank (Plaid ITEM_LOGIN_REQUIRED …): keep data, show Reconnect. */
  | "reauth_required"
  /** Too many requests (Plaid RATE_LIMIT_EXCEEDED): retry later. */
  | "rate_limited"
  /** The institution is down or not responding (INSTITUTION_DOWN, INSTITUTION_NOT_RESPONDING …). */
  | "institution_down"
  /** The item does not support this product (PRODUCTS_NOT_SUPPORTED, NO_INVESTMENT_ACCOUNTS, NO_LIABILITY_ACCOUNTS …). */
  | "product_not_supported"
  /** The access or public token is wrong, expired or removed (INVALID_ACCESS_TOKEN, ITEM_NOT_FOUND …). */
  | "invalid_token"
  /** Anything else. */
  | "provider_error";

/** A provider failure in our vocabulary. `message` is safe to store and show (no secrets). */
export class ProviderError extends Error {
  readonly code: ProviderErrorCode;
  /** The provider's request id (Plaid `request_id`), for support. */
  readonly requestId: string | undefined;
  /** The provider's own error code (e.g. Plaid `ITEM_LOGIN_REQUIRED`), for logs. */
  readonly providerCode: string | undefined;

  constructor(
    code: ProviderErrorCode,
    message: string,
    options: { requestId?: string; providerCode?: string; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ProviderError";
    this.code = code;
    this.requestId = options.requestId;
    this.providerCode = options.providerCode;
  }

  /** True for failures worth retrying later without user action. */
  get retryable(): boolean {
    return this.code === "rate_limited" || this.code === "institution_down" || this.code === "provider_error";
  }
}

export function isProviderError(error: unknown): error is ProviderError {
  return error instanceof ProviderError;
}

/** Per-call context. `now` anchors the sandbox's synthetic history (tests pin it); Plaid ignores it. */
export interface ProviderContext {
  now: Date;
}

export interface ProviderInstitution {
  id: string;
  name: string;
}

export interface LinkTokenRequest {
  /** Our user id (Plaid `user.client_user_id`). */
  userId: string;
  /** Set for update mode (Reconnect): the item's access token. */
  accessToken?: string;
  /** Sandbox only: the institution the user picked in our own connect screen. */
  institutionId?: string;
}

export interface LinkToken {
  linkToken: string;
  expiration: Date;
}

export interface ExchangedItem {
  /** Secret: encrypt before storing (lib/crypto.ts), never log. */
  accessToken: string;
  itemId: string;
  institution: ProviderInstitution;
}

export interface ProviderAccount {
  providerAccountId: string;
  name: string;
  officialName: string | null;
  mask: string | null;
  type: AccountType;
  /** checking, savings, credit card, mortgage, student, brokerage, 401k, ira … (Plaid subtypes). */
  subtype: string | null;
  currency: string;
  /** Depository/investment: money held. Credit/loan: positive amount owed. */
  currentBalanceMinor: number | null;
  availableBalanceMinor: number | null;
  /** Credit limit (credit cards). */
  limitMinor: number | null;
}

export interface ProviderTransaction {
  providerTransactionId: string;
  providerAccountId: string;
  /** For a posted transaction: the id of the pending transaction it replaces. */
  pendingTransactionId: string | null;
  /** Posting date (or the pending date while pending), `YYYY-MM-DD`. */
  date: string;
  authorizedDate: string | null;
  name: string;
  merchantName: string | null;
  /** Negative = money out of the account. */
  amountMinor: number;
  currency: string;
  category: CategoryId;
  pending: boolean;
  isTransfer: boolean;
  /** online, in store, other (Plaid payment_channel). */
  paymentChannel: string | null;
}

export interface RemovedTransaction {
  providerTransactionId: string;
  providerAccountId: string;
}

export interface TransactionsSyncPage {
  added: ProviderTransaction[];
  modified: ProviderTransaction[];
  removed: RemovedTransaction[];
  /** Store after the whole sync succeeded; pass back next time. */
  nextCursor: string;
  /** More pages follow: call again with `nextCursor`. */
  hasMore: boolean;
}

export interface ProviderSecurity {
  providerSecurityId: string;
  name: string;
  tickerSymbol: string | null;
  /** equity, etf, mutual fund, fixed income, cash, cryptocurrency, derivative, other */
  type: string;
  /** Decimal string. */
  closePrice: string | null;
  closePriceAsOf: string | null;
  currency: string;
}

export interface ProviderHolding {
  providerAccountId: string;
  providerSecurityId: string;
  /** Decimal strings. */
  quantity: string;
  price: string;
  valueMinor: number;
  /** Total cost basis of the position; null when unknown. */
  costBasisMinor: number | null;
  currency: string;
}

export interface ProviderInvestmentTransaction {
  providerInvestmentTransactionId: string;
  providerAccountId: string;
  providerSecurityId: string | null;
  date: string;
  name: string;
  /** buy, sell, dividend, interest, fee, contribution, transfer, cash, other */
  type: string;
  subtype: string | null;
  quantity: string | null;
  price: string | null;
  /** Cash effect on the account: negative for a buy, positive for a sale or dividend. */
  amountMinor: number;
  feesMinor: number | null;
  currency: string;
}

export interface ProviderLiability {
  providerAccountId: string;
  kind: "credit" | "student" | "mortgage" | "other";
  /** Decimal string, e.g. "24.99". */
  aprPercentage: string | null;
  minimumPaymentMinor: number | null;
  nextPaymentDueDate: string | null;
  lastPaymentDate: string | null;
  lastPaymentAmountMinor: number | null;
  lastStatementBalanceMinor: number | null;
  isOverdue: boolean;
  originationPrincipalMinor: number | null;
  maturityDate: string | null;
  details: Record<string, unknown> | null;
}

export type RecurringFrequency =
  | "weekly"
  | "biweekly"
  | "semi_monthly"
  | "monthly"
  | "quarterly"
  | "annually";

export interface ProviderRecurringStream {
  providerStreamId: string;
  providerAccountId: string;
  direction: "inflow" | "outflow";
  merchantName: string;
  description: string | null;
  category: CategoryId;
  frequency: RecurringFrequency;
  /** Positive magnitudes; `direction` gives the sign. */
  averageAmountMinor: number;
  lastAmountMinor: number;
  firstDate: string;
  lastDate: string;
  predictedNextDate: string | null;
  isActive: boolean;
  transactionIds: string[];
}

export interface ProviderBalancePoint {
  providerAccountId: string;
  date: string;
  currentBalanceMinor: number;
  availableBalanceMinor: number | null;
}

/** One bank-data provider. Every method may throw `ProviderError`. */
export interface BankProvider {
  readonly kind: ProviderKind;
  /** Institutions offered in our own connect screen (sandbox); Plaid's Link shows its own list. */
  listInstitutions(): Promise<ProviderInstitution[]>;
  createLinkToken(request: LinkTokenRequest, ctx: ProviderContext): Promise<LinkToken>;
  exchangePublicToken(publicToken: string, ctx: ProviderContext): Promise<ExchangedItem>;
  getAccounts(accessToken: string, ctx: ProviderContext): Promise<ProviderAccount[]>;
  /** One page of changes since `cursor` (null = from the beginning). Loop while `hasMore`. */
  syncTransactions(
    accessToken: string,
    cursor: string | null,
    ctx: ProviderContext,
  ): Promise<TransactionsSyncPage>;
  /** Throws `product_not_supported` when the item has no investment accounts. */
  getHoldings(
    accessToken: string,
    ctx: ProviderContext,
  ): Promise<{ holdings: ProviderHolding[]; securities: ProviderSecurity[] }>;
  /** Investment transactions between two ISO dates, inclusive. */
  getInvestmentTransactions(
    accessToken: string,
    range: { startDate: string; endDate: string },
    ctx: ProviderContext,
  ): Promise<{ investmentTransactions: ProviderInvestmentTransaction[]; securities: ProviderSecurity[] }>;
  /** Throws `product_not_supported` when the item has no liability accounts. */
  getLiabilities(accessToken: string, ctx: ProviderContext): Promise<ProviderLiability[]>;
  getRecurringStreams(accessToken: string, ctx: ProviderContext): Promise<ProviderRecurringStream[]>;
  /** Update mode finished (Reconnect): the item works again. Throws when it still does not. */
  confirmReconnect(accessToken: string, ctx: ProviderContext): Promise<void>;
  /** Deletes the item at the provider (Plaid /item/remove). */
  removeItem(accessToken: string, ctx: ProviderContext): Promise<void>;
  /**
   * Optional: exact daily balances for a date range (inclusive), used to backfill net-worth
   * history. Plaid has no such endpoint; without it the sync engine derives depository and
   * credit history from the transactions (lib/banking/sync/derived.ts).
   */
  getBalanceHistory?(
    accessToken: string,
    range: { startDate: string; endDate: string },
    ctx: ProviderContext,
  ): Promise<ProviderBalancePoint[]>;
  /**
   * Sandbox only (Plaid: /sandbox/item/reset_login): put the item into the
   * re-authorization-required state. Undefined for production providers.
   */
  resetLogin?(accessToken: string, ctx: ProviderContext): Promise<void>;
}
