/**
 * What an export holds: one section per table of the person's data, each with its query. The
 * JSON file (lib/export/files.ts) writes them in this order, under their names; adding a table to
 * the export is adding one entry to EXPORT_SECTIONS.
 *
 * Every section is read in keyset pages: the person's rows in the order of a unique key, a page
 * at a time, each page starting after the last key of the one before. Nothing holds a whole table
 * in memory, no statement runs longer than a page, and no transaction stays open while the file
 * downloads (a reader at the pace of a slow connection would hold it for minutes; on PGlite, whose
 * one session serves every request, it would stall them all). Pages see the rows as they are when
 * each page is read: a sync writing during an export adds rows to later pages only.
 *
 * What is never exported: secrets and what stands for them (hashes of keys and tokens, key
 * previews, OAuth codes and tokens, sessions, the banks' access tokens and sync cursors), and what
 * is computed from the rows (the rollups, typical amounts, first-seen merchants, repeats, net
 * worth per day): tests/integration/export.test.ts names every table that holds a person's rows
 * and fails for one that is neither exported nor listed there as left out.
 */
import { and, eq, type SQL, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { Database } from "@/db";
import {
  apiKeys,
  authAccounts,
  balanceSnapshots,
  bankAccounts,
  bankConnections,
  categoryRules,
  holdings,
  investmentTransactions,
  liabilities,
  oauthClients,
  oauthGrants,
  recurringStreams,
  securities,
  subscriptions,
  toolCalls,
  transactions,
  transferCategories,
  users,
} from "@/db/schema";
import { toAmount } from "@/lib/finance/currency";
import { toNumberOrNull } from "@/lib/finance/money";
import { writtenLimit } from "@/lib/finance/sql";

/** One row of the file: JSON values only (Dates are written as ISO 8601 by JSON.stringify). */
export type ExportRow = Record<string, unknown>;

/** Where the next page starts: the last row's key, each part as the database writes it in JSON. */
export type PageAfter = string[];

export interface ExportPage<T = ExportRow> {
  rows: T[];
  /** The key to read the next page after; null when this page was the last. */
  next: PageAfter | null;
}

/** A table (or a join) of the person's data, read page by page. */
export interface ExportSection<T = ExportRow> {
  /** Its key in the JSON file (snake_case). */
  readonly name: string;
  /** One row at most (the profile, the subscription): written as an object, or null. */
  readonly single?: boolean;
  /** Up to `limit` of the person's rows after `after` (from the first when null), in key order. */
  page(db: Database, userId: string, after: PageAfter | null, limit: number): Promise<ExportPage<T>>;
}

/** What a section's query is given for one page. */
export interface PageQuery {
  /** The row's key as one text value: select it as `pageKey`. */
  pageKey: SQL<string>;
  /** The rows after the previous page; undefined on the first page. */
  after: SQL | undefined;
  /** The section's key, to order by. */
  order: AnyPgColumn[];
  /** The page size, written into the statement (lib/finance/sql.ts `writtenLimit`). */
  limit: ReturnType<typeof writtenLimit>;
}

/**
 * A section read in keyset pages of `key`: columns that are never null and together unique, in an
 * order an index of the person's rows serves (the (user_id, date) index for transactions, then id).
 *
 * `read` selects the page (with `pageKey`), scoped to `userId`, filtered by `after`, ordered by
 * `order` and limited to `limit`; `write` turns a row into what the file says.
 *
 * The key is carried as the database's own JSON text of its values and compared after a cast back
 * to the column's type, so a timestamp keeps its microseconds (a JavaScript Date has
 * milliseconds: a page would skip or repeat rows that differ below them).
 */
export function keysetSection<Row extends { pageKey: string }, T = ExportRow>(spec: {
  name: string;
  single?: boolean;
  key: [AnyPgColumn, ...AnyPgColumn[]];
  read: (db: Database, userId: string, page: PageQuery) => Promise<Row[]>;
  write: (row: Row) => T;
}): ExportSection<T> {
  const [first] = spec.key;
  const columns = sql.join(spec.key, sql`, `);
  const pageKey = sql<string>`json_build_array(${columns})::text`;
  const castAt = (after: PageAfter, i: number) =>
    sql`cast(${after[i] ?? null} as ${sql.raw(spec.key[i]?.getSQLType() ?? "text")})`;
  return {
    name: spec.name,
    single: spec.single,
    async page(db, userId, after, limit) {
      const rows = await spec.read(db, userId, {
        pageKey,
        // The first column alone lets an index on it start the scan where the page starts.
        after: after
          ? sql`${first} >= ${castAt(after, 0)} and (${columns}) > (${sql.join(
              spec.key.map((_, i) => castAt(after, i)),
              sql`, `,
            )})`
          : undefined,
        order: spec.key,
        limit: writtenLimit(limit),
      });
      const last = rows.length === limit ? rows[rows.length - 1] : undefined;
      return { rows: rows.map(spec.write), next: last ? parseKey(last.pageKey, spec.key.length) : null };
    },
  };
}

/** A page key read back; its columns are never null (a null would compare as unknown). */
function parseKey(text: string, parts: number): PageAfter {
  const value: unknown = JSON.parse(text);
  if (!Array.isArray(value) || value.length !== parts || value.some((part) => part === null))
    throw new Error(`not a page key of ${parts} values: a key column must be unique and not null`);
  return value.map(String);
}

/** Minor units of `currency` as a decimal (null stays null). */
function money(minor: number | null, currency: string): number | null {
  return minor === null ? null : toAmount(minor, currency);
}

/**
 * The sections of the JSON file, in its order. Names and dates of keys and apps, never what
 * authenticates them; banks and their accounts, never the provider's access token. Amounts are
 * decimals in the row's (or its account's) currency.
 */
export const EXPORT_SECTIONS: ExportSection[] = [
  keysetSection({
    name: "profile",
    single: true,
    key: [users.id],
    read: (db, userId, page) =>
      db
        .select({
          id: users.id,
          email: users.email,
          name: users.name,
          timezone: users.timezone,
          emailVerified: users.emailVerified,
          createdAt: users.createdAt,
          pageKey: page.pageKey,
        })
        .from(users)
        .where(and(eq(users.id, userId), page.after))
        .orderBy(...page.order)
        .limit(page.limit),
    write: (r) => ({
      id: r.id,
      email: r.email,
      name: r.name,
      timezone: r.timezone,
      email_verified_at: r.emailVerified,
      created_at: r.createdAt,
    }),
  }),
  keysetSection({
    name: "sign_in_accounts",
    key: [authAccounts.provider, authAccounts.providerAccountId],
    read: (db, userId, page) =>
      db
        .select({
          provider: authAccounts.provider,
          providerAccountId: authAccounts.providerAccountId,
          type: authAccounts.type,
          pageKey: page.pageKey,
        })
        .from(authAccounts)
        .where(and(eq(authAccounts.userId, userId), page.after))
        .orderBy(...page.order)
        .limit(page.limit),
    write: (r) => ({ provider: r.provider, provider_account_id: r.providerAccountId, type: r.type }),
  }),
  keysetSection({
    name: "subscription",
    single: true,
    key: [subscriptions.userId],
    read: (db, userId, page) =>
      db
        .select({
          provider: subscriptions.provider,
          status: subscriptions.status,
          priceId: subscriptions.priceId,
          currentPeriodEnd: subscriptions.currentPeriodEnd,
          cancelAtPeriodEnd: subscriptions.cancelAtPeriodEnd,
          updatedAt: subscriptions.updatedAt,
          pageKey: page.pageKey,
        })
        .from(subscriptions)
        .where(and(eq(subscriptions.userId, userId), page.after))
        .orderBy(...page.order)
        .limit(page.limit),
    write: (r) => ({
      provider: r.provider,
      status: r.status,
      price_id: r.priceId,
      current_period_end: r.currentPeriodEnd,
      cancel_at_period_end: r.cancelAtPeriodEnd,
      updated_at: r.updatedAt,
    }),
  }),
  keysetSection({
    name: "api_keys",
    key: [apiKeys.id],
    read: (db, userId, page) =>
      db
        .select({
          id: apiKeys.id,
          name: apiKeys.name,
          createdAt: apiKeys.createdAt,
          lastUsedAt: apiKeys.lastUsedAt,
          revokedAt: apiKeys.revokedAt,
          rotatedAt: apiKeys.rotatedAt,
          accountIds: apiKeys.accountIds,
          pageKey: page.pageKey,
        })
        .from(apiKeys)
        .where(and(eq(apiKeys.userId, userId), page.after))
        .orderBy(...page.order)
        .limit(page.limit),
    write: (r) => ({
      id: r.id,
      name: r.name,
      created_at: r.createdAt,
      last_used_at: r.lastUsedAt,
      revoked_at: r.revokedAt,
      rotated_at: r.rotatedAt,
      account_ids: r.accountIds,
    }),
  }),
  keysetSection({
    name: "connected_apps",
    key: [oauthGrants.id],
    read: (db, userId, page) =>
      db
        .select({
          id: oauthGrants.id,
          clientId: oauthGrants.clientId,
          clientName: oauthClients.clientName,
          clientUri: oauthClients.clientUri,
          redirectUris: oauthClients.redirectUris,
          scope: oauthGrants.scope,
          resource: oauthGrants.resource,
          createdAt: oauthGrants.createdAt,
          expiresAt: oauthGrants.expiresAt,
          lastUsedAt: oauthGrants.lastUsedAt,
          revokedAt: oauthGrants.revokedAt,
          accountIds: oauthGrants.accountIds,
          pageKey: page.pageKey,
        })
        .from(oauthGrants)
        .innerJoin(oauthClients, eq(oauthClients.clientId, oauthGrants.clientId))
        .where(and(eq(oauthGrants.userId, userId), page.after))
        .orderBy(...page.order)
        .limit(page.limit),
    write: (r) => ({
      id: r.id,
      client_id: r.clientId,
      client_name: r.clientName,
      client_uri: r.clientUri,
      redirect_uris: r.redirectUris,
      scope: r.scope,
      resource: r.resource,
      approved_at: r.createdAt,
      expires_at: r.expiresAt,
      last_used_at: r.lastUsedAt,
      revoked_at: r.revokedAt,
      account_ids: r.accountIds,
    }),
  }),
  keysetSection({
    name: "banks",
    key: [bankConnections.id],
    read: (db, userId, page) =>
      db
        .select({
          id: bankConnections.id,
          provider: bankConnections.provider,
          institutionId: bankConnections.institutionId,
          institutionName: bankConnections.institutionName,
          status: bankConnections.status,
          lastSyncedAt: bankConnections.lastSyncedAt,
          lastErrorCode: bankConnections.lastErrorCode,
          warnings: bankConnections.warnings,
          createdAt: bankConnections.createdAt,
          pageKey: page.pageKey,
        })
        .from(bankConnections)
        .where(and(eq(bankConnections.userId, userId), page.after))
        .orderBy(...page.order)
        .limit(page.limit),
    write: (r) => ({
      id: r.id,
      provider: r.provider,
      institution_id: r.institutionId,
      institution_name: r.institutionName,
      status: r.status,
      last_synced_at: r.lastSyncedAt,
      last_error_code: r.lastErrorCode,
      warnings: r.warnings,
      linked_at: r.createdAt,
    }),
  }),
  keysetSection({
    name: "accounts",
    key: [bankAccounts.id],
    read: (db, userId, page) =>
      db
        .select({
          id: bankAccounts.id,
          bankId: bankAccounts.connectionId,
          name: bankAccounts.name,
          officialName: bankAccounts.officialName,
          mask: bankAccounts.mask,
          type: bankAccounts.type,
          subtype: bankAccounts.subtype,
          currency: bankAccounts.currency,
          currentBalanceMinor: bankAccounts.currentBalanceMinor,
          availableBalanceMinor: bankAccounts.availableBalanceMinor,
          limitMinor: bankAccounts.limitMinor,
          isClosed: bankAccounts.isClosed,
          hidden: bankAccounts.hidden,
          balanceAsOf: bankAccounts.balanceAsOf,
          pageKey: page.pageKey,
        })
        .from(bankAccounts)
        .where(and(eq(bankAccounts.userId, userId), page.after))
        .orderBy(...page.order)
        .limit(page.limit),
    write: (r) => ({
      id: r.id,
      bank_id: r.bankId,
      name: r.name,
      official_name: r.officialName,
      mask: r.mask,
      type: r.type,
      subtype: r.subtype,
      currency: r.currency,
      current_balance: money(r.currentBalanceMinor, r.currency),
      available_balance: money(r.availableBalanceMinor, r.currency),
      limit: money(r.limitMinor, r.currency),
      is_closed: r.isClosed,
      hidden: r.hidden,
      balance_as_of: r.balanceAsOf,
    }),
  }),
  keysetSection({
    name: "transactions",
    key: [transactions.date, transactions.id],
    read: (db, userId, page) =>
      db
        .select({
          id: transactions.id,
          accountId: transactions.accountId,
          date: transactions.date,
          authorizedDate: transactions.authorizedDate,
          name: transactions.name,
          merchantName: transactions.merchantName,
          amountMinor: transactions.amountMinor,
          currency: transactions.currency,
          category: transactions.category,
          providerCategory: transactions.providerCategory,
          categoryOverride: transactions.categoryOverride,
          pending: transactions.pending,
          isTransfer: transactions.isTransfer,
          paymentChannel: transactions.paymentChannel,
          pageKey: page.pageKey,
        })
        .from(transactions)
        .where(and(eq(transactions.userId, userId), page.after))
        .orderBy(...page.order)
        .limit(page.limit),
    write: (r) => ({
      id: r.id,
      account_id: r.accountId,
      date: r.date,
      authorized_date: r.authorizedDate,
      description: r.name,
      merchant_name: r.merchantName,
      amount: toAmount(r.amountMinor, r.currency),
      currency: r.currency,
      category: r.category,
      provider_category: r.providerCategory,
      category_override: r.categoryOverride,
      pending: r.pending,
      is_transfer: r.isTransfer,
      payment_channel: r.paymentChannel,
    }),
  }),
  keysetSection({
    name: "balance_history",
    key: [balanceSnapshots.date, balanceSnapshots.accountId],
    read: (db, userId, page) =>
      db
        .select({
          accountId: balanceSnapshots.accountId,
          date: balanceSnapshots.date,
          currentBalanceMinor: balanceSnapshots.currentBalanceMinor,
          availableBalanceMinor: balanceSnapshots.availableBalanceMinor,
          currency: bankAccounts.currency,
          pageKey: page.pageKey,
        })
        .from(balanceSnapshots)
        .innerJoin(bankAccounts, eq(bankAccounts.id, balanceSnapshots.accountId))
        .where(and(eq(balanceSnapshots.userId, userId), page.after))
        .orderBy(...page.order)
        .limit(page.limit),
    write: (r) => ({
      account_id: r.accountId,
      date: r.date,
      current_balance: money(r.currentBalanceMinor, r.currency),
      available_balance: money(r.availableBalanceMinor, r.currency),
      currency: r.currency,
    }),
  }),
  keysetSection({
    name: "holdings",
    key: [holdings.id],
    read: (db, userId, page) =>
      db
        .select({
          id: holdings.id,
          accountId: holdings.accountId,
          quantity: holdings.quantity,
          price: holdings.price,
          valueMinor: holdings.valueMinor,
          costBasisMinor: holdings.costBasisMinor,
          currency: holdings.currency,
          asOf: holdings.asOf,
          securityId: securities.id,
          securityName: securities.name,
          tickerSymbol: securities.tickerSymbol,
          securityType: securities.type,
          closePrice: securities.closePrice,
          closePriceAsOf: securities.closePriceAsOf,
          securityCurrency: securities.currency,
          pageKey: page.pageKey,
        })
        .from(holdings)
        .innerJoin(securities, eq(securities.id, holdings.securityId))
        .where(and(eq(holdings.userId, userId), page.after))
        .orderBy(...page.order)
        .limit(page.limit),
    write: (r) => ({
      id: r.id,
      account_id: r.accountId,
      security: {
        id: r.securityId,
        name: r.securityName,
        ticker_symbol: r.tickerSymbol,
        type: r.securityType,
        close_price: toNumberOrNull(r.closePrice),
        close_price_as_of: r.closePriceAsOf,
        currency: r.securityCurrency,
      },
      quantity: toNumberOrNull(r.quantity),
      price: toNumberOrNull(r.price),
      value: money(r.valueMinor, r.currency),
      cost_basis: money(r.costBasisMinor, r.currency),
      currency: r.currency,
      as_of: r.asOf,
    }),
  }),
  keysetSection({
    name: "investment_transactions",
    key: [investmentTransactions.date, investmentTransactions.id],
    read: (db, userId, page) =>
      db
        .select({
          id: investmentTransactions.id,
          accountId: investmentTransactions.accountId,
          date: investmentTransactions.date,
          name: investmentTransactions.name,
          type: investmentTransactions.type,
          subtype: investmentTransactions.subtype,
          securityId: investmentTransactions.securityId,
          securityName: securities.name,
          tickerSymbol: securities.tickerSymbol,
          quantity: investmentTransactions.quantity,
          price: investmentTransactions.price,
          amountMinor: investmentTransactions.amountMinor,
          feesMinor: investmentTransactions.feesMinor,
          currency: investmentTransactions.currency,
          pageKey: page.pageKey,
        })
        .from(investmentTransactions)
        .leftJoin(securities, eq(securities.id, investmentTransactions.securityId))
        .where(and(eq(investmentTransactions.userId, userId), page.after))
        .orderBy(...page.order)
        .limit(page.limit),
    write: (r) => ({
      id: r.id,
      account_id: r.accountId,
      date: r.date,
      name: r.name,
      type: r.type,
      subtype: r.subtype,
      security_id: r.securityId,
      security_name: r.securityName,
      ticker_symbol: r.tickerSymbol,
      quantity: toNumberOrNull(r.quantity),
      price: toNumberOrNull(r.price),
      amount: money(r.amountMinor, r.currency),
      fees: money(r.feesMinor, r.currency),
      currency: r.currency,
    }),
  }),
  keysetSection({
    name: "liabilities",
    key: [liabilities.accountId],
    read: (db, userId, page) =>
      db
        .select({
          accountId: liabilities.accountId,
          kind: liabilities.kind,
          aprPercentage: liabilities.aprPercentage,
          minimumPaymentMinor: liabilities.minimumPaymentMinor,
          nextPaymentDueDate: liabilities.nextPaymentDueDate,
          lastPaymentDate: liabilities.lastPaymentDate,
          lastPaymentAmountMinor: liabilities.lastPaymentAmountMinor,
          lastStatementBalanceMinor: liabilities.lastStatementBalanceMinor,
          isOverdue: liabilities.isOverdue,
          originationPrincipalMinor: liabilities.originationPrincipalMinor,
          maturityDate: liabilities.maturityDate,
          details: liabilities.details,
          currency: bankAccounts.currency,
          pageKey: page.pageKey,
        })
        .from(liabilities)
        .innerJoin(bankAccounts, eq(bankAccounts.id, liabilities.accountId))
        .where(and(eq(liabilities.userId, userId), page.after))
        .orderBy(...page.order)
        .limit(page.limit),
    write: (r) => ({
      account_id: r.accountId,
      kind: r.kind,
      apr_percentage: toNumberOrNull(r.aprPercentage),
      minimum_payment: money(r.minimumPaymentMinor, r.currency),
      next_payment_due_date: r.nextPaymentDueDate,
      last_payment_date: r.lastPaymentDate,
      last_payment_amount: money(r.lastPaymentAmountMinor, r.currency),
      last_statement_balance: money(r.lastStatementBalanceMinor, r.currency),
      is_overdue: r.isOverdue,
      origination_principal: money(r.originationPrincipalMinor, r.currency),
      maturity_date: r.maturityDate,
      details: r.details,
      currency: r.currency,
    }),
  }),
  keysetSection({
    name: "recurring_streams",
    key: [recurringStreams.id],
    read: (db, userId, page) =>
      db
        .select({
          id: recurringStreams.id,
          accountId: recurringStreams.accountId,
          direction: recurringStreams.direction,
          merchantName: recurringStreams.merchantName,
          description: recurringStreams.description,
          category: recurringStreams.category,
          frequency: recurringStreams.frequency,
          averageAmountMinor: recurringStreams.averageAmountMinor,
          lastAmountMinor: recurringStreams.lastAmountMinor,
          previousAmountMinor: recurringStreams.previousAmountMinor,
          priceChangedOn: recurringStreams.priceChangedOn,
          firstDate: recurringStreams.firstDate,
          lastDate: recurringStreams.lastDate,
          predictedNextDate: recurringStreams.predictedNextDate,
          isActive: recurringStreams.isActive,
          currency: bankAccounts.currency,
          pageKey: page.pageKey,
        })
        .from(recurringStreams)
        .innerJoin(bankAccounts, eq(bankAccounts.id, recurringStreams.accountId))
        .where(and(eq(recurringStreams.userId, userId), page.after))
        .orderBy(...page.order)
        .limit(page.limit),
    write: (r) => ({
      id: r.id,
      account_id: r.accountId,
      direction: r.direction,
      merchant_name: r.merchantName,
      description: r.description,
      category: r.category,
      frequency: r.frequency,
      average_amount: money(r.averageAmountMinor, r.currency),
      last_amount: money(r.lastAmountMinor, r.currency),
      previous_amount: money(r.previousAmountMinor, r.currency),
      price_changed_on: r.priceChangedOn,
      first_date: r.firstDate,
      last_date: r.lastDate,
      predicted_next_date: r.predictedNextDate,
      is_active: r.isActive,
      currency: r.currency,
    }),
  }),
  keysetSection({
    name: "category_rules",
    key: [categoryRules.id],
    read: (db, userId, page) =>
      db
        .select({
          id: categoryRules.id,
          field: categoryRules.field,
          pattern: categoryRules.pattern,
          category: categoryRules.category,
          createdAt: categoryRules.createdAt,
          pageKey: page.pageKey,
        })
        .from(categoryRules)
        .where(and(eq(categoryRules.userId, userId), page.after))
        .orderBy(...page.order)
        .limit(page.limit),
    write: (r) => ({
      id: r.id,
      field: r.field,
      pattern: r.pattern,
      category: r.category,
      created_at: r.createdAt,
    }),
  }),
  keysetSection({
    name: "transfer_categories",
    key: [transferCategories.category],
    read: (db, userId, page) =>
      db
        .select({
          category: transferCategories.category,
          createdAt: transferCategories.createdAt,
          pageKey: page.pageKey,
        })
        .from(transferCategories)
        .where(and(eq(transferCategories.userId, userId), page.after))
        .orderBy(...page.order)
        .limit(page.limit),
    write: (r) => ({ category: r.category, created_at: r.createdAt }),
  }),
  keysetSection({
    name: "activity",
    key: [toolCalls.createdAt, toolCalls.id],
    read: (db, userId, page) =>
      db
        .select({
          id: toolCalls.id,
          createdAt: toolCalls.createdAt,
          tool: toolCalls.tool,
          status: toolCalls.status,
          durationMs: toolCalls.durationMs,
          credentialKind: toolCalls.credentialKind,
          apiKeyId: toolCalls.apiKeyId,
          oauthClientId: toolCalls.oauthClientId,
          pageKey: page.pageKey,
        })
        .from(toolCalls)
        .where(and(eq(toolCalls.userId, userId), page.after))
        .orderBy(...page.order)
        .limit(page.limit),
    write: (r) => ({
      id: r.id,
      at: r.createdAt,
      tool: r.tool,
      status: r.status,
      duration_ms: r.durationMs,
      credential_kind: r.credentialKind,
      api_key_id: r.apiKeyId,
      oauth_client_id: r.oauthClientId,
    }),
  }),
];
