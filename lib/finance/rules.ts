/**
 * The counting rules behind every total (product.md, "Numbers that must be right"), as SQL
 * fragments so each total is computed in the database over the whole range, never over a page.
 *
 * 1. Transfers between the user's own accounts (`is_transfer`, both legs, card payments included)
 *    are neither income nor spending.
 * 2. Of the rest, by category kind (lib/finance/categories.ts):
 *    income   = SUM(amount) over `income`-kind categories (a payroll reversal lowers it);
 *    spending = −SUM(amount) over `spending`-kind categories, so a refund (a positive amount in
 *               the category it refunds) lowers spending in that category and is never income;
 *    `transfer`-kind categories that are not flagged count as neither.
 *    net = income − spending; savings rate = net / income (null when income ≤ 0).
 * 3. Pending: totals count posted transactions plus pending ones that have not posted yet. When a
 *    pending transaction posts, the sync (the one writer of bank data, lib/banking/sync/)
 *    deletes the pending row and stores the posted one (whose `pending_transaction_id` names it),
 *    so a purchase is one row in either phase and is counted once, at its latest amount. The
 *    queries rely on that instead of re-checking every pending row, which on a large history
 *    costs a scan per pending row (measured: 1.5 s for 100k rows without a supporting index).
 */
import { eq, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { transactions } from "@/db/schema";
import { categoriesOfKind } from "./categories";

export const INCOME_CATEGORIES = categoriesOfKind("income");

/**
 * A list of category ids as SQL literals, not parameters: the lists are the code's own, so a plan
 * made once for a statement knows them as a plan made for its values does (cash flow's income
 * sources, as parameters, were planned anew on every run: PostgreSQL's estimate for unknown
 * categories made the one plan look costlier).
 */
function literalList(ids: readonly string[]): SQL {
  for (const id of ids) if (!/^[a-z_]+$/.test(id)) throw new Error(`Not a category id: ${id}`);
  return sql.raw(`(${ids.map((id) => `'${id}'`).join(", ")})`);
}

const INCOME_LIST = literalList(INCOME_CATEGORIES);
const NOT_SPENDING_LIST = literalList([...INCOME_CATEGORIES, ...categoriesOfKind("transfer")]);

/** Rows that count toward income and spending: not a transfer between own accounts (rule 1). */
export function countedForTotals(): SQL {
  return eq(transactions.isTransfer, false);
}

/**
 * Rows in an income-kind category (combine with countedForTotals). The category column defaults
 * to the rows' own; rollups.ts `countedRows` passes its column of the same name.
 */
export function isIncome(category: SQLWrapper = transactions.category): SQL {
  return sql`${category} in ${INCOME_LIST}`;
}

/**
 * Rows in a spending-kind category. Unknown categories count as spending, like `other`
 * (categoryKind's rule), so this is "not income and not transfer-kind".
 */
export function isSpending(category: SQLWrapper = transactions.category): SQL {
  return sql`not ${category} in ${NOT_SPENDING_LIST}`;
}

/** SQL income in cents over the rows selected by the query (an aggregate; rule 2). */
export function incomeSum(
  amount: SQLWrapper = transactions.amountMinor,
  category: SQLWrapper = transactions.category,
): SQL<string> {
  return sql<string>`coalesce(sum(${amount}) filter (where ${isIncome(category)}), 0)`;
}

/** SQL spending in cents (positive = money spent) over the selected rows (an aggregate; rule 2). */
export function spendingSum(
  amount: SQLWrapper = transactions.amountMinor,
  category: SQLWrapper = transactions.category,
): SQL<string> {
  return sql<string>`coalesce(-sum(${amount}) filter (where ${isSpending(category)}), 0)`;
}
