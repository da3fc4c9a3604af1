/**
 * The one schema of Ledgerlink, shared by PGlite, node-postgres and Neon.
 *
 * Order: tables → relations → inferred types. TypeScript names are camelCase; SQL names are
 * snake_case (drizzle `casing: "snake_case"`), tables plural.
 *
 * Money is never a float: amounts and balances are integer minor units (cents) in `bigint`
 * columns named `…Minor`; quantities and unit prices of securities are exact `numeric`.
 * Sign convention for transactions: money out of the account is negative, money in positive.
 * Liability balances (credit cards, loans) are stored as positive amounts owed.
 */
import { relations, sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  date,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";

const id = () =>
  text()
    .primaryKey()
    .$defaultFn(() => crypto.randomUUID());
const createdAt = () => timestamp({ withTimezone: true, mode: "date" }).notNull().defaultNow();
const ts = () => timestamp({ withTimezone: true, mode: "date" });
const minor = () => bigint({ mode: "number" });

// ───────────────────────────── users and Auth.js ─────────────────────────────

export const users = pgTable("users", {
  id: id(),
  name: text(),
  email: text().unique(),
  emailVerified: ts(),
  image: text(),
  /** IANA zone used to interpret periods ("this_month" …) and to show times; UTC until set. */
  timezone: text().notNull().default("UTC"),
  /** When the zone was set (from the browser at first sign-in, or in Settings); null: never. */
  timezoneSetAt: ts(),
  createdAt: createdAt(),
});

/** Auth.js OAuth sign-in accounts (GitHub …); not bank accounts. Column names fixed by the adapter. */
export const authAccounts = pgTable(
  "auth_accounts",
  {
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    type: text().$type<"oauth" | "oidc" | "email" | "webauthn">().notNull(),
    provider: text().notNull(),
    providerAccountId: text().notNull(),
    refresh_token: text(),
    access_token: text(),
    expires_at: integer(),
    token_type: text(),
    scope: text(),
    id_token: text(),
    session_state: text(),
  },
  (t) => [primaryKey({ columns: [t.provider, t.providerAccountId] }), index().on(t.userId)],
);

export const sessions = pgTable(
  "sessions",
  {
    sessionToken: text().primaryKey(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    expires: timestamp({ withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [index().on(t.userId)],
);

export const verificationTokens = pgTable(
  "verification_tokens",
  {
    identifier: text().notNull(),
    token: text().notNull(),
    expires: timestamp({ withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.identifier, t.token] })],
);

// ───────────────────────────── credentials ─────────────────────────────

/** Static API keys `llk_<secret>`: only the SHA-256 hash and a short preview are kept. */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: id(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text().notNull(),
    /** hex SHA-256 of the whole key string. */
    keyHash: text().notNull().unique(),
    /** e.g. `llk_4fQz…x9Ab`, safe to show. */
    preview: text().notNull(),
    createdAt: createdAt(),
    lastUsedAt: ts(),
    revokedAt: ts(),
    /** Set when this key was replaced by rotation; the key stops working at that moment. */
    rotatedAt: ts(),
    /**
     * The accounts this key may read, or null for all of the person's accounts (the default),
     * new ones included. Ids no longer of the person's match nothing.
     */
    accountIds: text().array(),
  },
  (t) => [index().on(t.userId)],
);

// ───────────────────────────── billing ─────────────────────────────

/**
 * One row per user, written only by `syncSubscription` (lib/billing). `status` keeps the
 * provider's raw status (Stripe's vocabulary); lib/access.ts maps it to our four states.
 */
export const subscriptions = pgTable("subscriptions", {
  userId: text()
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  /** `stripe` or `local` (the labelled test checkout). */
  provider: text().$type<"stripe" | "local">().notNull(),
  customerId: text().notNull().unique(),
  subscriptionId: text(),
  status: text(),
  priceId: text(),
  currentPeriodEnd: ts(),
  cancelAtPeriodEnd: boolean().notNull().default(false),
  updatedAt: createdAt(),
});

// ───────────────────────────── bank data ─────────────────────────────

export type ConnectionStatus = "healthy" | "reauth_required" | "error" | "disconnected";
export type AccountType = "depository" | "credit" | "loan" | "investment" | "other";
/**
 * A product the bank does not serve for this connection (Plaid PRODUCTS_NOT_SUPPORTED,
 * NO_INVESTMENT_ACCOUNTS …): the sync succeeds without it, and the user is told.
 */
export interface ConnectionWarning {
  code: "PRODUCT_NOT_SUPPORTED";
  product: "investments" | "liabilities" | "recurring";
  /** A sentence for people (no provider codes). */
  message: string;
  /** The provider's own code, for support (PRODUCTS_NOT_SUPPORTED, PRODUCT_NOT_READY …). */
  providerCode?: string;
}

export const bankConnections = pgTable(
  "bank_connections",
  {
    id: id(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    provider: text().$type<"sandbox" | "plaid">().notNull(),
    /** The provider's id of the item (Plaid item_id). */
    providerItemId: text().notNull(),
    institutionId: text().notNull(),
    institutionName: text().notNull(),
    status: text().$type<ConnectionStatus>().notNull().default("healthy"),
    /** AES-256-GCM ciphertext of the provider access token (lib/crypto.ts), base64url. */
    accessTokenCiphertext: text().notNull(),
    accessTokenKeyVersion: integer().notNull(),
    syncCursor: text(),
    lastSyncedAt: ts(),
    lastSyncAttemptAt: ts(),
    /**
     * While a sync runs, it holds this lease (about a minute ahead, renewed as it goes); a sync
     * that was killed leaves a lease that runs out, and the next cron run or webhook retries it.
     */
    syncLeaseUntil: ts(),
    /**
     * Who holds the lease: a random id per sync (lib/banking/sync/lease.ts). Only its holder renews
     * or releases it; a lease left behind by a killed sync (holder set, time run out) makes the
     * connection due again at once, whatever its status and retry wait.
     */
    syncLeaseHolder: text(),
    /**
     * When a sync was last asked for (a webhook, "Sync now") while another held the lease: the
     * holder runs one more pass when this is newer than its pass's start, and clears it once a
     * pass that started after it ends; while set (and no live lease) the cron treats the
     * connection as due.
     */
    syncRequestedAt: ts(),
    lastErrorCode: text(),
    lastErrorMessage: text(),
    /** Warnings of the last successful sync (written by the sync engine); null when none. */
    warnings: jsonb().$type<ConnectionWarning[]>(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex().on(t.provider, t.providerItemId), index().on(t.userId)],
);

export const bankAccounts = pgTable(
  "bank_accounts",
  {
    id: id(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    connectionId: text()
      .notNull()
      .references(() => bankConnections.id, { onDelete: "cascade" }),
    providerAccountId: text().notNull(),
    name: text().notNull(),
    officialName: text(),
    mask: text(),
    type: text().$type<AccountType>().notNull(),
    subtype: text(),
    currency: text().notNull().default("USD"),
    /** Depository/investment: money held. Credit/loan: positive amount owed. */
    currentBalanceMinor: minor(),
    availableBalanceMinor: minor(),
    limitMinor: minor(),
    isClosed: boolean().notNull().default(false),
    balanceAsOf: ts(),
    /** Hidden by the person: left out of every tool's answer, still kept up to date by sync. */
    hidden: boolean().notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex().on(t.connectionId, t.providerAccountId), index().on(t.userId)],
);

export const transactions = pgTable(
  "transactions",
  {
    id: id(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    accountId: text()
      .notNull()
      .references(() => bankAccounts.id, { onDelete: "cascade" }),
    providerTransactionId: text().notNull(),
    /** For a posted transaction: the provider id of the pending one it replaces. */
    pendingTransactionId: text(),
    date: date({ mode: "string" }).notNull(),
    authorizedDate: date({ mode: "string" }),
    name: text().notNull(),
    merchantName: text(),
    /** Negative = money out of the account, positive = money in. */
    amountMinor: minor().notNull(),
    currency: text().notNull().default("USD"),
    /**
     * Our category vocabulary (lib/finance/categories.ts): the one every tool and rollup reads,
     * the person's own when they set one (`categoryOverride`, a `category_rules` row), else the
     * provider's. Derived by a trigger (migration 0021); writers write the provider's.
     */
    category: text().notNull(),
    /** The provider's category as last synced (kept so a rule can be removed); set by the trigger. */
    providerCategory: text(),
    /** The person's category for this one transaction, over any rule. */
    categoryOverride: text(),
    pending: boolean().notNull().default(false),
    /**
     * A movement between two of the user's own accounts, or in a category the person counts as a
     * transfer: neither income nor spending. Derived like `category`.
     */
    isTransfer: boolean().notNull().default(false),
    /** The provider's transfer flag as last synced; set by the trigger. */
    providerIsTransfer: boolean(),
    paymentChannel: text(),
    /**
     * Merchant and description folded for search (lower case, accents removed, by the SQL
     * function `ledgerlink_fold`), kept by the database itself; a trigram index serves `query`.
     */
    searchText: text()
      .notNull()
      .generatedAlwaysAs(sql`ledgerlink_fold(coalesce(merchant_name, '') || chr(31) || name)`),
    createdAt: createdAt(),
    updatedAt: createdAt(),
  },
  (t) => [
    uniqueIndex().on(t.accountId, t.providerTransactionId),
    // Payments into a card or loan account (lib/finance/liabilities.ts sums them per cycle).
    index("transactions_payments_idx")
      .on(t.accountId, t.date)
      .where(sql`amount_minor > 0 and (is_transfer or category in ('credit_card_payment', 'loan_payments'))`),
    index("transactions_search_trgm_idx")
      .using("gin", t.searchText.op("gin_trgm_ops"))
      .with({ fastupdate: false }),
    index().on(t.userId, t.date),
    index().on(t.accountId, t.date),
    // Category filters; find_unusual_activity's `large` kind also bounds the amount in the index,
    // so only the large charges of a category are fetched (migration 0011).
    index().on(t.userId, t.category, t.date, t.amountMinor),
    index("transactions_user_merchant_idx").on(t.userId, sql`lower(coalesce(${t.merchantName}, ${t.name}))`),
    // Amount bounds of search_transactions (lib/finance/transactions.ts absScaled; migration 0009).
    index("transactions_user_abs_amount_idx").on(
      t.userId,
      sql`ledgerlink_abs_scaled(amount_minor, currency)`,
    ),
  ],
);

export const securities = pgTable(
  "securities",
  {
    id: id(),
    connectionId: text()
      .notNull()
      .references(() => bankConnections.id, { onDelete: "cascade" }),
    providerSecurityId: text().notNull(),
    name: text().notNull(),
    tickerSymbol: text(),
    /** equity, etf, mutual fund, fixed income, cash, cryptocurrency, derivative, other */
    type: text().notNull(),
    closePrice: numeric({ precision: 24, scale: 8 }),
    closePriceAsOf: date({ mode: "string" }),
    currency: text().notNull().default("USD"),
  },
  (t) => [uniqueIndex().on(t.connectionId, t.providerSecurityId)],
);

export const holdings = pgTable(
  "holdings",
  {
    id: id(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    accountId: text()
      .notNull()
      .references(() => bankAccounts.id, { onDelete: "cascade" }),
    securityId: text()
      .notNull()
      .references(() => securities.id, { onDelete: "cascade" }),
    quantity: numeric({ precision: 24, scale: 8 }).notNull(),
    price: numeric({ precision: 24, scale: 8 }).notNull(),
    valueMinor: minor().notNull(),
    /** Total cost basis of the position; null when the institution does not report it. */
    costBasisMinor: minor(),
    currency: text().notNull().default("USD"),
    asOf: ts(),
  },
  (t) => [uniqueIndex().on(t.accountId, t.securityId), index().on(t.userId)],
);

export const investmentTransactions = pgTable(
  "investment_transactions",
  {
    id: id(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    accountId: text()
      .notNull()
      .references(() => bankAccounts.id, { onDelete: "cascade" }),
    securityId: text().references(() => securities.id, { onDelete: "set null" }),
    providerInvestmentTransactionId: text().notNull(),
    date: date({ mode: "string" }).notNull(),
    name: text().notNull(),
    /** buy, sell, dividend, interest, fee, contribution, transfer, cash, other */
    type: text().notNull(),
    subtype: text(),
    quantity: numeric({ precision: 24, scale: 8 }),
    price: numeric({ precision: 24, scale: 8 }),
    /** Cash effect on the account: negative for a buy, positive for a sale or dividend. */
    amountMinor: minor().notNull(),
    feesMinor: minor(),
    currency: text().notNull().default("USD"),
  },
  (t) => [uniqueIndex().on(t.accountId, t.providerInvestmentTransactionId), index().on(t.userId, t.date)],
);

export const liabilities = pgTable(
  "liabilities",
  {
    accountId: text()
      .primaryKey()
      .references(() => bankAccounts.id, { onDelete: "cascade" }),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    kind: text().$type<"credit" | "student" | "mortgage" | "other">().notNull(),
    /** Annual percentage rate, e.g. 24.99. */
    aprPercentage: numeric({ precision: 7, scale: 4 }),
    minimumPaymentMinor: minor(),
    nextPaymentDueDate: date({ mode: "string" }),
    lastPaymentDate: date({ mode: "string" }),
    lastPaymentAmountMinor: minor(),
    lastStatementBalanceMinor: minor(),
    isOverdue: boolean().notNull().default(false),
    originationPrincipalMinor: minor(),
    maturityDate: date({ mode: "string" }),
    /** Provider-specific extras (loan servicer, escrow …) kept for display. */
    details: jsonb().$type<Record<string, unknown>>(),
  },
  (t) => [index().on(t.userId)],
);

export const recurringStreams = pgTable(
  "recurring_streams",
  {
    id: id(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    connectionId: text()
      .notNull()
      .references(() => bankConnections.id, { onDelete: "cascade" }),
    accountId: text()
      .notNull()
      .references(() => bankAccounts.id, { onDelete: "cascade" }),
    providerStreamId: text().notNull(),
    direction: text().$type<"inflow" | "outflow">().notNull(),
    merchantName: text().notNull(),
    description: text(),
    /** As `transactions.category`: the person's rules over the provider's category. */
    category: text().notNull(),
    /** The provider's category as last synced; set by the trigger (migration 0021). */
    providerCategory: text(),
    frequency: text()
      .$type<"weekly" | "biweekly" | "semi_monthly" | "monthly" | "quarterly" | "annually">()
      .notNull(),
    /** Positive magnitudes; `direction` gives the sign. */
    averageAmountMinor: minor().notNull(),
    lastAmountMinor: minor().notNull(),
    firstDate: date({ mode: "string" }).notNull(),
    lastDate: date({ mode: "string" }).notNull(),
    predictedNextDate: date({ mode: "string" }),
    isActive: boolean().notNull().default(true),
    /** Provider transaction ids that belong to the stream. */
    transactionIds: jsonb().$type<string[]>().notNull().default([]),
    /**
     * The latest price change in the stream's posted charges (newest first, the first charge
     * whose amount differs from the newest one): that older amount (a positive magnitude), and
     * the date and our id of the first charge at the newer amount. Null when the charges show no
     * change. Kept by triggers on this table and on `transactions` (migration 0007).
     */
    previousAmountMinor: minor(),
    priceChangedOn: date({ mode: "string" }),
    priceChangeTransactionId: text(),
  },
  (t) => [uniqueIndex().on(t.connectionId, t.providerStreamId), index().on(t.userId)],
);

/**
 * The person's category rules: rows whose merchant is `pattern` (field `merchant`) or whose
 * description contains it (`description`), compared folded (`ledgerlink_fold`), get `category`.
 * The newest matching rule wins; a transaction's own override wins over every rule. Applied by
 * the trigger on `transactions` and `recurring_streams` (migration 0021).
 */
export const categoryRules = pgTable(
  "category_rules",
  {
    id: id(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    field: text().$type<"merchant" | "description">().notNull(),
    pattern: text().notNull(),
    patternFolded: text().notNull().generatedAlwaysAs(sql`ledgerlink_fold(pattern)`),
    category: text().notNull(),
    createdAt: createdAt(),
  },
  (t) => [index().on(t.userId)],
);

/** Categories the person counts as transfers: their rows are neither income nor spending. */
export const transferCategories = pgTable(
  "transfer_categories",
  {
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    category: text().notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.category] })],
);

/** The measures of the rollups: sums and counts of money in and out. */
const rolledUpMeasures = () => ({
  /** Sum of the positive amounts (money in). */
  inflowMinor: minor().notNull(),
  /** Sum of the negative amounts (money out; a negative number). */
  outflowMinor: minor().notNull(),
  count: integer().notNull(),
  inflowCount: integer().notNull(),
  outflowCount: integer().notNull(),
});

/**
 * Monthly rollup of `transactions`, kept by triggers on that table in the same transaction as the
 * rows it sums (migrations 0005 and 0008), so a reader never sees the two disagree: per account,
 * calendar month, category, merchant, currency, pending and transfer flag, the sums of money in and
 * out and the row counts. Summaries over whole months read it instead of the rows;
 * `npm run db:rebuild-rollups` rebuilds it from the rows.
 */
export const transactionMonths = pgTable(
  "transaction_months",
  {
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    accountId: text()
      .notNull()
      .references(() => bankAccounts.id, { onDelete: "cascade" }),
    /** First day of the month. */
    month: date({ mode: "string" }).notNull(),
    category: text().notNull(),
    /** `coalesce(merchant_name, name)`: the merchant that spending and cash flow group by. */
    merchant: text().notNull(),
    currency: text().notNull(),
    pending: boolean().notNull(),
    isTransfer: boolean().notNull(),
    ...rolledUpMeasures(),
  },
  (t) => [
    primaryKey({
      columns: [t.accountId, t.month, t.category, t.merchant, t.currency, t.pending, t.isTransfer],
    }),
    index().on(t.userId, t.month),
    // Cash flow's income sources: a few categories of every month (0011).
    index().on(t.userId, t.category, t.month),
  ],
);

/**
 * Typical outflows for find_unusual_activity's `large` kind, precomputed by sync (migration 0007,
 * `ledgerlink_store_typicals`): per anchor date, category and currency, the median magnitude and
 * the count of the outflows (transfers excluded, pending included) dated in the 365 days before
 * the anchor. Anchors are the starts of the default 30-day range for the sync day and the next
 * day in every timezone; any write to `transactions` dated in an anchor's window deletes that
 * anchor's rows (trigger), so a stored anchor is always exact and a missing one is computed from
 * the rows.
 */
export const categoryTypicals = pgTable(
  "category_typicals",
  {
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    anchor: date({ mode: "string" }).notNull(),
    category: text().notNull(),
    currency: text().notNull(),
    /** Median magnitude in minor units (halfway between the middle two for an even count). */
    typicalMinor: numeric().notNull(),
    count: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.anchor, t.category, t.currency] })],
);

/**
 * The first date of any transaction per merchant (`lower(coalesce(merchant_name, name))`), kept
 * by triggers on `transactions` (migration 0007): a merchant is new in a range when this date
 * is inside it.
 */
export const merchantFirstSeen = pgTable(
  "merchant_first_seen",
  {
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    merchantKey: text().notNull(),
    firstDate: date({ mode: "string" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.merchantKey] }), index().on(t.userId, t.firstDate)],
);

/**
 * Charges that repeat another one: find_unusual_activity's `duplicate` kind, kept by triggers on
 * `transactions` in the same statement (migration 0013). A row here is a charge (money out, not a
 * transfer) with an earlier one (by date, then id) on the same account, of the same amount, at the
 * same merchant, at most a day older, not a transfer, and not the pending row it replaced or its
 * posted one.
 */
export const transactionRepeats = pgTable(
  "transaction_repeats",
  {
    transactionId: text()
      .primaryKey()
      .references(() => transactions.id, { onDelete: "cascade" }),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    date: date({ mode: "string" }).notNull(),
  },
  (t) => [index().on(t.userId, t.date)],
);

/**
 * `transaction_months` summed over accounts, categories and merchants: per user, month, currency,
 * pending and transfer flag (migration 0010: triggers on `transaction_months` keep it, in the same
 * transaction). Summaries filtered by neither account nor category read it (a search over all
 * of a ten-year history sums a few hundred rows, not the rollup's tens of thousands).
 */
export const transactionMonthTotals = pgTable(
  "transaction_month_totals",
  {
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** First day of the month. */
    month: date({ mode: "string" }).notNull(),
    currency: text().notNull(),
    pending: boolean().notNull(),
    isTransfer: boolean().notNull(),
    ...rolledUpMeasures(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.month, t.currency, t.pending, t.isTransfer] })],
);

/**
 * The rows summed per user, month, category, currency, pending and transfer flag (over accounts
 * and merchants): `transaction_months` summed by the triggers that keep `transaction_month_totals`
 * (migration 0011). Income, spending and cash flow over whole months without an account filter
 * read it: two years are a few hundred rows.
 */
export const transactionCategoryMonths = pgTable(
  "transaction_category_months",
  {
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** First day of the month. */
    month: date({ mode: "string" }).notNull(),
    category: text().notNull(),
    currency: text().notNull(),
    pending: boolean().notNull(),
    isTransfer: boolean().notNull(),
    ...rolledUpMeasures(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.month, t.category, t.currency, t.pending, t.isTransfer] })],
);

/**
 * The rows summed per user, day, category, currency, pending and transfer flag, kept by the
 * triggers on `transactions` that keep `transaction_months` (migration 0011). The days of a range
 * outside its whole months (this month so far, the month before it) are read from it instead of
 * the rows when no account filter applies: a few categories a day instead of every charge.
 */
export const transactionDays = pgTable(
  "transaction_days",
  {
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    date: date({ mode: "string" }).notNull(),
    category: text().notNull(),
    currency: text().notNull(),
    pending: boolean().notNull(),
    isTransfer: boolean().notNull(),
    ...rolledUpMeasures(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.date, t.category, t.currency, t.pending, t.isTransfer] })],
);

/**
 * `transaction_months` summed over accounts, at three grains: per user, day, calendar month or
 * calendar quarter (`span`, dated its first day in `start`), category, merchant, currency, pending
 * and transfer flag (migration 0014: triggers on `transactions` keep it in the same statement).
 * Breakdowns by merchant and cash flow's income sources without an account filter read a range's
 * whole quarters, the months around them and the days at its edges here, each by its key: a
 * rolling year against the year before is 16 keys of a few merchants each, not 24 months and
 * every charge of the edge days.
 */
export const transactionMerchantSpans = pgTable(
  "transaction_merchant_spans",
  {
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** `day`, `month` or `quarter`. */
    span: text().notNull(),
    /** The day, or the first day of the month or quarter. */
    start: date({ mode: "string" }).notNull(),
    category: text().notNull(),
    /** `coalesce(merchant_name, name)`, as in `transaction_months`. */
    merchant: text().notNull(),
    currency: text().notNull(),
    pending: boolean().notNull(),
    isTransfer: boolean().notNull(),
    ...rolledUpMeasures(),
  },
  (t) => [
    primaryKey({
      columns: [t.userId, t.span, t.start, t.category, t.merchant, t.currency, t.pending, t.isTransfer],
    }),
  ],
);

/**
 * Monthly rollup of `transactions` by their folded search text (`transactions.search_text`: the
 * text a `query` matches), kept by the triggers on `transactions` that keep `transaction_months`
 * (migration 0012): per user, month, category, text, currency, pending and transfer flag, over
 * accounts. The summary of a text search over whole months without an account filter sums the
 * rows whose text matches: a few per month and matching name, not every matching charge.
 */
export const transactionTextMonths = pgTable(
  "transaction_text_months",
  {
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** First day of the month. */
    month: date({ mode: "string" }).notNull(),
    category: text().notNull(),
    searchText: text().notNull(),
    currency: text().notNull(),
    pending: boolean().notNull(),
    isTransfer: boolean().notNull(),
    /** By account too: a credential scoped to some accounts sums its own (lib/finance/scope.ts). */
    accountId: text()
      .notNull()
      .references(() => bankAccounts.id, { onDelete: "cascade" }),
    ...rolledUpMeasures(),
  },
  (t) => [
    primaryKey({
      columns: [
        t.userId,
        t.month,
        t.category,
        t.searchText,
        t.currency,
        t.pending,
        t.isTransfer,
        t.accountId,
      ],
    }),
    // A text search's summary finds the texts it matches here, not by reading every month of the
    // user's (lib/finance/transactions.ts `textMonthsMatch`), as the rows' own trigram index does.
    index("transaction_text_months_search_trgm_idx")
      .using("gin", t.searchText.op("gin_trgm_ops"))
      .with({ fastupdate: false }),
  ],
);

/**
 * How much the user's balances changed per day and currency: each balance snapshot's change from
 * its account's previous one, summed over the accounts (assets, and liabilities owed, as
 * `balance_snapshots` holds them), kept by a trigger on `balance_snapshots` in the same statement
 * (migration 0012). A daily net-worth history is the balances on its first day plus these
 * changes: a row per day, not one per account and day.
 */
export const netWorthDays = pgTable(
  "net_worth_days",
  {
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    date: date({ mode: "string" }).notNull(),
    currency: text().notNull(),
    assetsMinor: minor().notNull(),
    liabilitiesMinor: minor().notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.date, t.currency] })],
);

/** One row per account per day, written by sync; feeds net-worth history. */
export const balanceSnapshots = pgTable(
  "balance_snapshots",
  {
    accountId: text()
      .notNull()
      .references(() => bankAccounts.id, { onDelete: "cascade" }),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    date: date({ mode: "string" }).notNull(),
    currentBalanceMinor: minor().notNull(),
    availableBalanceMinor: minor(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.date] }), index().on(t.userId, t.date)],
);

/** State of the synthetic sandbox bank's items (the fake bank's own memory, like Plaid's). */
export const sandboxItems = pgTable("sandbox_items", {
  itemId: text().primaryKey(),
  institutionId: text().notNull(),
  /** Seed of the deterministic generator. */
  seed: text().notNull(),
  loginRequired: boolean().notNull().default(false),
  createdAt: createdAt(),
});

// ───────────────────────────── OAuth 2.1 ─────────────────────────────

export const oauthClients = pgTable("oauth_clients", {
  id: id(),
  /** The public client_id. */
  clientId: text().notNull().unique(),
  /** SHA-256 of the client secret; null for public clients (token_endpoint_auth_method none). */
  clientSecretHash: text(),
  clientName: text(),
  clientUri: text(),
  logoUri: text(),
  redirectUris: jsonb().$type<string[]>().notNull(),
  tokenEndpointAuthMethod: text()
    .$type<"none" | "client_secret_post" | "client_secret_basic" | "private_key_jwt">()
    .notNull(),
  grantTypes: jsonb().$type<string[]>().notNull(),
  scope: text(),
  createdAt: createdAt(),
  /** Registrations that never complete a grant expire; cleared at the first grant. */
  expiresAt: ts(),
  /**
   * Set for a client whose client_id is the URL of its metadata document (CIMD): the row is the
   * cached document, fetched again after this. Null for clients registered through /register.
   */
  documentExpiresAt: ts(),
  /** private_key_jwt clients (CIMD): where their keys are published, if not inline. */
  jwksUri: text(),
  /** private_key_jwt clients: the public keys (the document's `jwks`, or the last fetch of `jwksUri`). */
  jwks: jsonb().$type<{ keys: Record<string, unknown>[] }>(),
});

/** A user's approval of a client: what "Connected apps" lists and revokes. */
export const oauthGrants = pgTable(
  "oauth_grants",
  {
    id: id(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    clientId: text()
      .notNull()
      .references(() => oauthClients.clientId, { onDelete: "cascade" }),
    scope: text().notNull(),
    resource: text().notNull(),
    /** The accounts the app may read, or null for all (new ones included); chosen on consent. */
    accountIds: text().array(),
    createdAt: createdAt(),
    /** A grant ends a year after approval unless the user keeps it (Connected apps) or approves again. */
    expiresAt: ts().notNull(),
    lastUsedAt: ts(),
    revokedAt: ts(),
  },
  (t) => [index().on(t.userId), index().on(t.clientId)],
);

export const oauthCodes = pgTable("oauth_codes", {
  codeHash: text().primaryKey(),
  grantId: text()
    .notNull()
    .references(() => oauthGrants.id, { onDelete: "cascade" }),
  clientId: text().notNull(),
  userId: text().notNull(),
  redirectUri: text().notNull(),
  codeChallenge: text().notNull(),
  resource: text().notNull(),
  scope: text().notNull(),
  expiresAt: timestamp({ withTimezone: true, mode: "date" }).notNull(),
  consumedAt: ts(),
  createdAt: createdAt(),
});

/**
 * The `jti` of every private_key_jwt client assertion accepted (RFC 7523 §3 item 7), kept until
 * the assertion expires, so no assertion is accepted twice by any server instance.
 */
export const oauthClientAssertions = pgTable(
  "oauth_client_assertions",
  {
    clientId: text().notNull(),
    jti: text().notNull(),
    expiresAt: timestamp({ withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.clientId, t.jti] }), index().on(t.expiresAt)],
);

export const oauthTokens = pgTable(
  "oauth_tokens",
  {
    id: id(),
    tokenHash: text().notNull().unique(),
    kind: text().$type<"access" | "refresh">().notNull(),
    grantId: text()
      .notNull()
      .references(() => oauthGrants.id, { onDelete: "cascade" }),
    clientId: text().notNull(),
    userId: text().notNull(),
    resource: text().notNull(),
    scope: text().notNull(),
    /** The code this token family descends from (replay of the code revokes the family). */
    codeHash: text(),
    expiresAt: timestamp({ withTimezone: true, mode: "date" }).notNull(),
    revokedAt: ts(),
    /** For refresh tokens: set when rotated; a second use is reuse. */
    usedAt: ts(),
    createdAt: createdAt(),
  },
  (t) => [index().on(t.grantId), index().on(t.userId)],
);

// ───────────────────────────── operations ─────────────────────────────

/** Webhook deliveries already processed (Stripe, Plaid), inserted in the transaction of their effect. */
export const webhookEvents = pgTable(
  "webhook_events",
  {
    provider: text().$type<"stripe" | "plaid">().notNull(),
    eventId: text().notNull(),
    type: text().notNull(),
    receivedAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.provider, t.eventId] })],
);

/** Activity log: one row per tool call. Never the credential itself. */
export const toolCalls = pgTable(
  "tool_calls",
  {
    id: id(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    credentialKind: text().$type<"api_key" | "oauth" | "dashboard">().notNull(),
    apiKeyId: text(),
    oauthClientId: text(),
    tool: text().notNull(),
    /** ok, setup_required, invalid_arguments, error */
    status: text().notNull(),
    durationMs: integer().notNull(),
    createdAt: createdAt(),
  },
  (t) => [index().on(t.userId, t.createdAt)],
);

/** Fixed-window request counters per credential (stateless functions share them here). */
export const rateLimits = pgTable(
  "rate_limits",
  {
    key: text().notNull(),
    windowStart: timestamp({ withTimezone: true, mode: "date" }).notNull(),
    count: integer().notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.key, t.windowStart] })],
);

// ───────────────────────────── relations ─────────────────────────────

export const usersRelations = relations(users, ({ many, one }) => ({
  apiKeys: many(apiKeys),
  connections: many(bankConnections),
  subscription: one(subscriptions),
}));

export const bankConnectionsRelations = relations(bankConnections, ({ one, many }) => ({
  user: one(users, { fields: [bankConnections.userId], references: [users.id] }),
  accounts: many(bankAccounts),
}));

export const bankAccountsRelations = relations(bankAccounts, ({ one, many }) => ({
  connection: one(bankConnections, { fields: [bankAccounts.connectionId], references: [bankConnections.id] }),
  transactions: many(transactions),
  holdings: many(holdings),
  liability: one(liabilities),
}));

export const transactionsRelations = relations(transactions, ({ one }) => ({
  account: one(bankAccounts, { fields: [transactions.accountId], references: [bankAccounts.id] }),
}));

export const holdingsRelations = relations(holdings, ({ one }) => ({
  account: one(bankAccounts, { fields: [holdings.accountId], references: [bankAccounts.id] }),
  security: one(securities, { fields: [holdings.securityId], references: [securities.id] }),
}));

export const liabilitiesRelations = relations(liabilities, ({ one }) => ({
  account: one(bankAccounts, { fields: [liabilities.accountId], references: [bankAccounts.id] }),
}));

export const subscriptionsRelations = relations(subscriptions, ({ one }) => ({
  user: one(users, { fields: [subscriptions.userId], references: [users.id] }),
}));

export const apiKeysRelations = relations(apiKeys, ({ one }) => ({
  user: one(users, { fields: [apiKeys.userId], references: [users.id] }),
}));

// ───────────────────────────── types ─────────────────────────────

export type User = typeof users.$inferSelect;
export type ApiKey = typeof apiKeys.$inferSelect;
export type Subscription = typeof subscriptions.$inferSelect;
export type BankConnection = typeof bankConnections.$inferSelect;
export type BankAccount = typeof bankAccounts.$inferSelect;
export type NewBankAccount = typeof bankAccounts.$inferInsert;
export type Transaction = typeof transactions.$inferSelect;
export type NewTransaction = typeof transactions.$inferInsert;
export type Security = typeof securities.$inferSelect;
export type Holding = typeof holdings.$inferSelect;
export type InvestmentTransaction = typeof investmentTransactions.$inferSelect;
export type Liability = typeof liabilities.$inferSelect;
export type RecurringStream = typeof recurringStreams.$inferSelect;
export type BalanceSnapshot = typeof balanceSnapshots.$inferSelect;
export type OAuthClient = typeof oauthClients.$inferSelect;
export type OAuthGrant = typeof oauthGrants.$inferSelect;
export type OAuthToken = typeof oauthTokens.$inferSelect;
export type ToolCall = typeof toolCalls.$inferSelect;
