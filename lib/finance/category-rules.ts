/**
 * The categories the person sets (issue 35 §3): rules ("merchant is X", "description contains X"
 * → a category), one transaction's own category, and categories counted as transfers.
 *
 * The person's category is materialized: `transactions.category` / `is_transfer` and
 * `recurring_streams.category` hold the effective values, derived by the BEFORE triggers of
 * migration 0021 from the provider's values kept beside them (`provider_category`,
 * `provider_is_transfer`), so every rollup and precomputed row follows through the existing AFTER
 * triggers, and no query of a tool changes. Each change here is one database transaction: the
 * rule (or override, or transfer mark) is written, then only the rows it can affect and whose
 * effective value differs are written back with the provider's values, which makes the trigger
 * derive them again. The typical amounts of find_unusual_activity that those writes dropped are
 * stored again for today, so the very next call reads them precomputed.
 *
 * A change can rewrite thousands of rows (a rule on the heavy user's most frequent merchant: 7,548
 * rows and every rollup they touch), so it is written like a sync, through the sync pool
 * (`syncDatabaseFor`): its statements are not cut at the request bound, a wait for the person's
 * lock is not refused at once, and no request connection is held meanwhile.
 *
 * Not to be confused with lib/finance/rules.ts, the counting rules of the tools.
 */
import { and, asc, count, desc, eq, inArray, type SQL, sql } from "drizzle-orm";
import { type Database, PLANNED_EACH_RUN, syncDatabaseFor } from "@/db";
import { categoryRules, transactions, transferCategories, users } from "@/db/schema";
import { AppError } from "@/lib/errors";
import { CATEGORY_IDS, type CategoryId, isCategoryId } from "./categories";
import { isIsoDate } from "./periods";
import { executeRows } from "./sql";
import { escapeLike } from "./transactions";

type Tx = Parameters<Parameters<Database["transaction"]>[0]>[0];

export type RuleField = "merchant" | "description";
export const RULE_FIELDS: readonly RuleField[] = ["merchant", "description"];
export const MAX_RULES = 200;
export const MAX_PATTERN_LENGTH = 100;

export interface CategoryRule {
  id: string;
  field: RuleField;
  pattern: string;
  category: CategoryId;
  createdAt: Date;
}

/** The person's rules, newest first (the order in which they win). */
export async function listRules(db: Database, userId: string): Promise<CategoryRule[]> {
  const rows = await db
    .select({
      id: categoryRules.id,
      field: categoryRules.field,
      pattern: categoryRules.pattern,
      category: categoryRules.category,
      createdAt: categoryRules.createdAt,
    })
    .from(categoryRules)
    .where(eq(categoryRules.userId, userId))
    .orderBy(desc(categoryRules.createdAt), desc(categoryRules.id));
  return rows.map((r) => ({ ...r, category: r.category as CategoryId }));
}

/** The categories the person counts as transfers, in display order. */
export async function listTransferCategories(db: Database, userId: string): Promise<CategoryId[]> {
  const rows = await db
    .select({ category: transferCategories.category })
    .from(transferCategories)
    .where(eq(transferCategories.userId, userId))
    .orderBy(asc(transferCategories.category));
  const marked = new Set(rows.map((r) => r.category));
  return CATEGORY_IDS.filter((id) => marked.has(id));
}

function checkCategory(value: string, field = "category"): CategoryId {
  if (!isCategoryId(value))
    throw new AppError("invalid_input", `"${field}" must be one of: ${CATEGORY_IDS.join(", ")}.`, { field });
  return value;
}

function checkField(value: string): RuleField {
  if (value !== "merchant" && value !== "description")
    throw new AppError("invalid_input", `"field" must be "merchant" or "description".`, { field: "field" });
  return value;
}

function checkPattern(value: string): string {
  const pattern = value.trim();
  if (pattern.length < 1 || pattern.length > MAX_PATTERN_LENGTH)
    throw new AppError(
      "invalid_input",
      `"pattern" must be 1 to ${MAX_PATTERN_LENGTH} characters (it has ${pattern.length}).`,
      { field: "pattern" },
    );
  return pattern;
}

/**
 * Adds the rule "`field` is/contains `pattern` → `category`" and applies it to the person's
 * transactions and streams. A rule of the same field and (folded) pattern is replaced: the new
 * one is the newest, and it wins anyway. At most MAX_RULES rules per person.
 */
export async function addRule(
  db: Database,
  userId: string,
  input: { field: string; pattern: string; category: string },
  today = isoToday(),
): Promise<CategoryRule> {
  const field = checkField(input.field);
  const pattern = checkPattern(input.pattern);
  const category = checkCategory(input.category);
  return syncDatabaseFor(db).transaction(async (tx) => {
    // Also: two additions at once cannot both pass the count.
    await lockPerson(tx, userId);
    const same = and(
      eq(categoryRules.userId, userId),
      eq(categoryRules.field, field),
      sql`${categoryRules.patternFolded} = ledgerlink_fold(${pattern})`,
    );
    await tx.delete(categoryRules).where(same);
    const [held] = await tx
      .select({ n: count() })
      .from(categoryRules)
      .where(eq(categoryRules.userId, userId));
    if ((held?.n ?? 0) >= MAX_RULES)
      throw new AppError("invalid_input", `At most ${MAX_RULES} rules: remove one before adding another.`, {
        field: "pattern",
      });
    const [rule] = await tx.insert(categoryRules).values({ userId, field, pattern, category }).returning({
      id: categoryRules.id,
      field: categoryRules.field,
      pattern: categoryRules.pattern,
      patternFolded: categoryRules.patternFolded,
      createdAt: categoryRules.createdAt,
    });
    if (!rule) throw new AppError("internal", "The rule was not stored.");
    await rederiveMatching(tx, userId, rule.field, rule.patternFolded, today);
    return { id: rule.id, field: rule.field, pattern: rule.pattern, category, createdAt: rule.createdAt };
  });
}

/** Removes rule `ruleId` of the person; the rows it decided go back to the next rule or the provider. */
export async function removeRule(
  db: Database,
  userId: string,
  ruleId: string,
  today = isoToday(),
): Promise<void> {
  await syncDatabaseFor(db).transaction(async (tx) => {
    await lockPerson(tx, userId);
    const [gone] = await tx
      .delete(categoryRules)
      .where(and(eq(categoryRules.id, ruleId), eq(categoryRules.userId, userId)))
      .returning({ field: categoryRules.field, patternFolded: categoryRules.patternFolded });
    if (!gone) throw new AppError("not_found", "No such rule.", { field: "ruleId" });
    await rederiveMatching(tx, userId, gone.field, gone.patternFolded, today);
  });
}

/**
 * Gives transaction `transactionId` of the person its own category (over every rule), or with
 * `category` null gives it back to the rules and the provider.
 */
export async function setTransactionCategory(
  db: Database,
  userId: string,
  transactionId: string,
  category: string | null,
  today = isoToday(),
): Promise<void> {
  const override = category === null ? null : checkCategory(category);
  await syncDatabaseFor(db).transaction(async (tx) => {
    const rows = await tx
      .update(transactions)
      .set({ categoryOverride: override })
      .where(and(eq(transactions.id, transactionId), eq(transactions.userId, userId)))
      .returning({ id: transactions.id });
    if (rows.length === 0)
      throw new AppError("not_found", "No such transaction.", { field: "transactionId" });
    // The trigger derived the row again as the override was written (an update of the row).
    await restoreTypicals(tx, userId, today);
  });
}

/**
 * The categories the person counts as transfers become exactly `categories`: their rows are
 * neither income nor spending. Only the rows of a category whose mark changed are derived again.
 */
export async function setTransferCategories(
  db: Database,
  userId: string,
  categories: readonly string[],
  today = isoToday(),
): Promise<void> {
  const wanted = new Set(categories.map((c) => checkCategory(c, "categories")));
  await syncDatabaseFor(db).transaction(async (tx) => {
    await lockPerson(tx, userId);
    const held = await tx
      .select({ category: transferCategories.category })
      .from(transferCategories)
      .where(eq(transferCategories.userId, userId));
    const had = new Set(held.map((r) => r.category));
    const added = [...wanted].filter((c) => !had.has(c));
    const removed = [...had].filter((c) => !wanted.has(c as CategoryId));
    if (added.length === 0 && removed.length === 0) return;
    if (added.length > 0)
      await tx
        .insert(transferCategories)
        .values(added.map((category) => ({ userId, category })))
        .onConflictDoNothing();
    if (removed.length > 0)
      await tx
        .delete(transferCategories)
        .where(and(eq(transferCategories.userId, userId), inArray(transferCategories.category, removed)));
    // Only the flag of rows in those categories can change (the index on user and category).
    const changed = [...added, ...removed];
    await rederive(
      tx,
      userId,
      sql`t.category in (${sql.join(
        changed.map((c) => sql`${c}`),
        sql`, `,
      )})`,
      null,
    );
    await restoreTypicals(tx, userId, today);
  });
}

/** One row of the dashboard's transactions view. */
export interface CategorizedTransaction {
  id: string;
  date: string;
  name: string;
  merchant: string | null;
  amountMinor: number;
  currency: string;
  account: string;
  pending: boolean;
  isTransfer: boolean;
  category: CategoryId;
  /** The bank's category, beneath the person's. */
  providerCategory: CategoryId;
  /** Whether the person gave this transaction its own category. */
  overridden: boolean;
}

export const TRANSACTIONS_PAGE = 50;

/**
 * The person's transactions for the dashboard, newest first (date, then id), `TRANSACTIONS_PAGE`
 * at a time: older than `before` (the last row's `date|id`), holding `query` in the merchant or
 * description, or only transaction `id`. Hidden accounts are the person's own: they are listed.
 * `older` is the cursor of the next page, null on the last.
 */
export async function listCategorizedTransactions(
  db: Database,
  userId: string,
  options: { before?: string | undefined; query?: string | undefined; id?: string | undefined } = {},
): Promise<{ rows: CategorizedTransaction[]; older: string | null }> {
  const filters: SQL[] = [sql`t.user_id = ${userId}`];
  if (options.id) filters.push(sql`t.id = ${options.id}`);
  const query = options.query?.trim();
  if (query) filters.push(sql`t.search_text like ledgerlink_fold(${`%${escapeLike(query)}%`})`);
  const cursor = options.before ? parseCursor(options.before) : null;
  if (cursor) filters.push(sql`(t.date, t.id) < (${cursor.date}::date, ${cursor.id})`);
  const found = await executeRows(
    db,
    sql`select t.id, t.date::text as date, t.name, t.merchant_name, t.amount_minor::text as amount, t.currency,
          a.name as account, t.pending, t.is_transfer, t.category, coalesce(t.provider_category, t.category) as provider_category,
          t.category_override is not null as overridden
        from transactions t join bank_accounts a on a.id = t.account_id
        where ${sql.join(filters, sql` and `)}
        order by t.date desc, t.id desc
        limit ${TRANSACTIONS_PAGE + 1}`,
  );
  const rows = found.slice(0, TRANSACTIONS_PAGE).map(
    (r): CategorizedTransaction => ({
      id: String(r.id),
      date: String(r.date),
      name: String(r.name),
      merchant: r.merchant_name === null ? null : String(r.merchant_name),
      amountMinor: Number(r.amount),
      currency: String(r.currency),
      account: String(r.account),
      pending: Boolean(r.pending),
      isTransfer: Boolean(r.is_transfer),
      category: String(r.category) as CategoryId,
      providerCategory: String(r.provider_category) as CategoryId,
      overridden: Boolean(r.overridden),
    }),
  );
  const last = rows.at(-1);
  return { rows, older: found.length > TRANSACTIONS_PAGE && last ? `${last.date}|${last.id}` : null };
}

/** `date|id` of a page's last row; anything else is refused naming the cursor. */
function parseCursor(value: string): { date: string; id: string } {
  const match = /^(\d{4}-\d{2}-\d{2})\|([\w-]{1,64})$/.exec(value);
  if (!match?.[1] || !match[2] || !isIsoDate(match[1]))
    throw new AppError("invalid_input", `"before" must be a page's cursor (date|id).`, { field: "before" });
  return { date: match[1], id: match[2] };
}

/**
 * Locks the person's row for the change. A sync inserting their rows holds a key-share lock on it
 * (the foreign key) until it commits, so a change waits for a sync under way and a sync waits for
 * the change: the change re-derives every row the sync wrote, and the sync's rows are derived
 * with the changed rules. Without it a row the sync wrote meanwhile kept the old category.
 */
async function lockPerson(tx: Tx, userId: string) {
  await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for("update");
}

/**
 * Derives again the person's transactions and streams a rule of `field` and folded `pattern`
 * can match (the trigram index on search_text narrows the transactions: the folded merchant and
 * description both lie in it), then stores the typical amounts again.
 */
async function rederiveMatching(tx: Tx, userId: string, field: RuleField, folded: string, today: string) {
  const narrow = sql`t.search_text like ${`%${escapeLike(folded)}%`} ${sql.raw(PLANNED_EACH_RUN)}`;
  const matches =
    field === "merchant"
      ? sql`ledgerlink_fold(coalesce(t.merchant_name, '')) = ${folded}`
      : sql`strpos(ledgerlink_fold(t.name), ${folded}) > 0`;
  const streamMatches =
    field === "merchant"
      ? sql`ledgerlink_fold(s.merchant_name) = ${folded}`
      : sql`strpos(ledgerlink_fold(coalesce(s.description, '')), ${folded}) > 0`;
  await rederive(tx, userId, sql`${narrow} and ${matches}`, streamMatches);
  await restoreTypicals(tx, userId, today);
}

/**
 * Writes the provider's values back into the rows matching `where` whose effective category or
 * transfer flag differs from the one stored: the trigger derives them again. `streams`, when
 * given, does the same for the person's recurring streams.
 */
async function rederive(tx: Tx, userId: string, where: SQL, streams: SQL | null) {
  const effective = sql`ledgerlink_effective_category(t.user_id, t.merchant_name, t.name, t.category_override, t.provider_category)`;
  await tx.execute(sql`
    update transactions as t set category = t.provider_category, is_transfer = t.provider_is_transfer
    where t.user_id = ${userId} and ${where}
      and (t.category is distinct from ${effective}
        or t.is_transfer is distinct from ledgerlink_effective_transfer(t.user_id, ${effective}, t.provider_category, t.provider_is_transfer))`);
  if (!streams) return;
  await tx.execute(sql`
    update recurring_streams as s set category = s.provider_category
    where s.user_id = ${userId} and ${streams}
      and s.category is distinct from ledgerlink_effective_category(s.user_id, s.merchant_name, s.description, null, s.provider_category)`);
}

/**
 * The typical amounts a write of the person's rows dropped (migration 0007's trigger drops the
 * anchors whose window held a changed row), stored again for today's anchors as a sync does;
 * anchors still stored are left as they are.
 */
async function restoreTypicals(tx: Tx, userId: string, today: string) {
  await tx.execute(sql`select ledgerlink_store_typicals(${userId}, ${today}::date)`);
}

function isoToday(): string {
  return new Date().toISOString().slice(0, 10);
}
