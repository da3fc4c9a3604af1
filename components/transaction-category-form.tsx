"use client";

import { useActionState } from "react";
import { setTransactionCategoryAction } from "@/app/dashboard/categories/actions";
import { IDLE } from "@/lib/action-state";
import { CATEGORIES, type CategoryId } from "@/lib/finance/categories";
import { CategoryOptions } from "./category-rules";
import { FormMessage } from "./ui/form-message";
import { SubmitButton } from "./ui/submit-button";

/**
 * One transaction's category: a select and Save, and "Use the bank's" when the person set one.
 * `describedBy` is the id of the row's text, which names the transaction for the controls.
 */
export function TransactionCategoryForm({
  transactionId,
  category,
  providerCategory,
  overridden,
  describedBy,
}: {
  transactionId: string;
  category: CategoryId;
  providerCategory: CategoryId;
  overridden: boolean;
  describedBy: string;
}) {
  const [state, action] = useActionState(setTransactionCategoryAction, IDLE);
  const selectId = `category-${transactionId}`;
  return (
    <div className="w-full sm:w-auto">
      <div className="flex flex-wrap items-end gap-2">
        <form action={action} className="flex items-end gap-2">
          <input type="hidden" name="transactionId" value={transactionId} />
          <div>
            <label htmlFor={selectId} className="block text-xs text-slate-600">
              Category
            </label>
            {/* Keyed by the stored category: a reset or another tab's change shows at once. */}
            <select
              key={category}
              id={selectId}
              name="category"
              defaultValue={category}
              aria-describedby={describedBy}
              className="mt-0.5 block rounded-md border border-slate-300 bg-white px-2 py-2 text-sm shadow-sm focus:border-slate-500 focus:outline-none focus:ring-2 focus:ring-slate-300"
            >
              <CategoryOptions />
            </select>
          </div>
          <SubmitButton variant="secondary" pendingLabel="Saving…" describedBy={describedBy}>
            Save
          </SubmitButton>
        </form>
        {overridden ? (
          <form action={action}>
            <input type="hidden" name="transactionId" value={transactionId} />
            <input type="hidden" name="category" value="" />
            <SubmitButton variant="ghost" pendingLabel="Resetting…" describedBy={describedBy}>
              Use the bank's
            </SubmitButton>
          </form>
        ) : null}
      </div>
      {providerCategory !== category ? (
        <p className="mt-1 text-xs text-slate-600">
          Bank's category: {CATEGORIES[providerCategory]?.label ?? providerCategory}
        </p>
      ) : null}
      <FormMessage state={state} />
    </div>
  );
}
