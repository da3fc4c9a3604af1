import Link from "next/link";
import { TransactionCategoryForm } from "@/components/transaction-category-form";
import { Badge } from "@/components/ui/badge";
import { buttonClass } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { getDb } from "@/db";
import { requirePageUser } from "@/lib/auth";
import { isAppError } from "@/lib/errors";
import { listCategorizedTransactions, TRANSACTIONS_PAGE } from "@/lib/finance/category-rules";
import { formatMoney } from "@/lib/finance/currency";

export const dynamic = "force-dynamic";
export const metadata = { title: "Transactions · Ledgerlink" };

type Search = { before?: string; q?: string; id?: string };

const one = (value: string | string[] | undefined) =>
  typeof value === "string" && value ? value : undefined;

/**
 * The person's transactions, newest first, 50 a page (a keyset "Older" link), each with its
 * category to change or give back to the bank: what every tool reads from the next call on.
 * `?id=` shows one transaction (the tools page links here from a search result).
 */
export default async function TransactionsPage({ searchParams }: { searchParams: Promise<Search> }) {
  const user = await requirePageUser();
  const params = await searchParams;
  const query = one(params.q)?.slice(0, 200);
  const id = one(params.id)?.slice(0, 64);
  let page: Awaited<ReturnType<typeof listCategorizedTransactions>>;
  let problem: string | null = null;
  try {
    page = await listCategorizedTransactions(await getDb(), user.id, {
      before: one(params.before),
      query,
      id,
    });
  } catch (error) {
    if (!isAppError(error) || error.code !== "invalid_input") throw error;
    problem = "That page link is not valid any more: here are your newest transactions.";
    page = await listCategorizedTransactions(await getDb(), user.id, { query, id });
  }
  const older = page.older
    ? `/dashboard/transactions?${new URLSearchParams({ before: page.older, ...(query ? { q: query } : {}) })}`
    : null;
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Transactions</h1>
        <p className="mt-1 text-sm text-slate-600">
          Give a transaction another category, or use the bank's again. To re-file every transaction of a
          merchant, add a rule on{" "}
          <Link href="/dashboard/categories" className="font-medium underline">
            Categories
          </Link>
          .
        </p>
      </div>
      <search>
        <form method="get" action="/dashboard/transactions" className="flex flex-wrap items-end gap-2">
          <div className="min-w-0 flex-1">
            <label htmlFor="transactions-q" className="block text-sm font-medium text-slate-800">
              Search merchant or description
            </label>
            <input
              id="transactions-q"
              name="q"
              type="search"
              defaultValue={query ?? ""}
              maxLength={200}
              className="mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 text-sm shadow-sm focus:border-slate-500 focus:outline-none focus:ring-2 focus:ring-slate-300"
            />
          </div>
          <button type="submit" className={buttonClass("secondary")}>
            Search
          </button>
        </form>
      </search>
      {problem ? (
        <p role="status" className="rounded-md bg-amber-50 p-3 text-sm text-amber-900">
          {problem}
        </p>
      ) : null}
      {id || query ? (
        <p className="text-sm text-slate-700">
          {id ? "One transaction." : `Matching “${query}”.`}{" "}
          <Link href="/dashboard/transactions" className="font-medium underline">
            Show all transactions
          </Link>
        </p>
      ) : null}
      <Card>
        {page.rows.length === 0 ? (
          <p className="text-sm text-slate-600">
            {id || query ? "No transaction matches." : "No transactions yet: link a bank on the Banks page."}
          </p>
        ) : (
          <ul
            className="divide-y divide-slate-100"
            aria-label={`Transactions, up to ${TRANSACTIONS_PAGE} a page`}
          >
            {page.rows.map((t) => (
              <li
                key={t.id}
                className="flex flex-wrap items-start justify-between gap-3 py-3"
                data-testid="transaction-row"
              >
                <div id={`txn-${t.id}`} className="min-w-0 flex-1 text-sm">
                  <p className="font-medium text-slate-900 break-words">{t.merchant ?? t.name}</p>
                  <p className="text-xs text-slate-600 break-words">
                    {t.date} · {t.account}
                    {t.merchant ? ` · ${t.name}` : ""}
                  </p>
                  <p className="mt-1 flex flex-wrap items-center gap-2">
                    <span
                      className={`tabular-nums ${t.amountMinor < 0 ? "text-slate-900" : "text-emerald-800"}`}
                    >
                      {formatMoney(t.amountMinor, t.currency)}
                    </span>
                    {t.pending ? <Badge tone="amber">pending</Badge> : null}
                    {t.isTransfer ? <Badge tone="blue">transfer</Badge> : null}
                  </p>
                </div>
                <TransactionCategoryForm
                  transactionId={t.id}
                  category={t.category}
                  providerCategory={t.providerCategory}
                  overridden={t.overridden}
                  describedBy={`txn-${t.id}`}
                />
              </li>
            ))}
          </ul>
        )}
      </Card>
      {older ? (
        <Link href={older} className={buttonClass("secondary")}>
          Older transactions
        </Link>
      ) : null}
    </div>
  );
}
