import Link from "next/link";
import { CategoryRuleForm, CategoryRuleList, TransferCategoriesForm } from "@/components/category-rules";
import { Card } from "@/components/ui/card";
import { getDb } from "@/db";
import { requirePageUser } from "@/lib/auth";
import { listRules, listTransferCategories } from "@/lib/finance/category-rules";

export const dynamic = "force-dynamic";
export const metadata = { title: "Categories · Ledgerlink" };

/**
 * The person's own categories (issue 35 §3): rules that re-file the bank's category, and the
 * categories counted as transfers. Every tool follows from the next call on.
 */
export default async function CategoriesPage() {
  const user = await requirePageUser();
  const db = await getDb();
  const [rules, transfers] = await Promise.all([listRules(db, user.id), listTransferCategories(db, user.id)]);
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Categories</h1>
        <p className="mt-1 text-sm text-slate-600">
          Fix the bank's category once and every answer your assistant gets follows, past and future
          transactions alike. The bank's category is kept, so removing a rule undoes it. To change one
          transaction, use{" "}
          <Link href="/dashboard/transactions" className="font-medium underline">
            Transactions
          </Link>
          .
        </p>
      </div>
      <Card
        title="Add a rule"
        description="Applies to the transactions you have and to every one synced later."
      >
        <CategoryRuleForm />
      </Card>
      <Card title="Your rules" description="Newest first: when two rules match, the newer one wins.">
        <CategoryRuleList
          rules={rules.map((r) => ({ id: r.id, field: r.field, pattern: r.pattern, category: r.category }))}
        />
      </Card>
      <Card
        title="Counted as transfers"
        description="Transactions in a ticked category are neither income nor spending, like money moved between your own accounts."
      >
        <TransferCategoriesForm marked={transfers} />
      </Card>
    </div>
  );
}
