"use client";

import { useActionState } from "react";
import {
  addRuleAction,
  removeRuleAction,
  setTransferCategoriesAction,
} from "@/app/dashboard/categories/actions";
import { IDLE } from "@/lib/action-state";
import { CATEGORIES, CATEGORY_IDS } from "@/lib/finance/categories";
import { FormMessage } from "./ui/form-message";
import { SubmitButton } from "./ui/submit-button";

const FIELD_CLASS =
  "mt-1 block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm shadow-sm focus:border-slate-500 focus:outline-none focus:ring-2 focus:ring-slate-300";

/** Every category as an <option>, labelled. */
export function CategoryOptions() {
  return CATEGORY_IDS.map((id) => (
    <option key={id} value={id}>
      {CATEGORIES[id].label}
    </option>
  ));
}

/** "Merchant is X" or "description contains X" → a category. */
export function CategoryRuleForm() {
  const [state, action] = useActionState(addRuleAction, IDLE);
  const invalid = (field: string) => state.status === "error" && state.field === field;
  return (
    <div>
      <form action={action} className="grid gap-3 sm:grid-cols-[auto_minmax(0,1fr)_auto_auto] sm:items-end">
        <div>
          <label htmlFor="rule-field" className="block text-sm font-medium text-slate-800">
            When the
          </label>
          <select id="rule-field" name="field" className={FIELD_CLASS} aria-invalid={invalid("field")}>
            <option value="merchant">merchant is</option>
            <option value="description">description contains</option>
          </select>
        </div>
        <div>
          <label htmlFor="rule-pattern" className="block text-sm font-medium text-slate-800">
            Text
          </label>
          <input
            id="rule-pattern"
            name="pattern"
            required
            maxLength={100}
            placeholder="e.g. Corner Pharmacy"
            aria-invalid={invalid("pattern")}
            className={FIELD_CLASS}
          />
        </div>
        <div>
          <label htmlFor="rule-category" className="block text-sm font-medium text-slate-800">
            File it under
          </label>
          <select
            id="rule-category"
            name="category"
            className={FIELD_CLASS}
            aria-invalid={invalid("category")}
          >
            <CategoryOptions />
          </select>
        </div>
        <SubmitButton pendingLabel="Adding…">Add rule</SubmitButton>
      </form>
      <p className="mt-2 text-xs text-slate-500">
        Case and accents do not matter. The newest matching rule wins; a category set on one transaction wins
        over every rule.
      </p>
      <FormMessage state={state} />
    </div>
  );
}

export interface RuleRowData {
  id: string;
  field: "merchant" | "description";
  pattern: string;
  category: string;
}

/** The rules, newest first, each with Remove. */
export function CategoryRuleList({ rules }: { rules: RuleRowData[] }) {
  const [state, action] = useActionState(removeRuleAction, IDLE);
  return (
    <div>
      {rules.length === 0 ? (
        <p className="text-sm text-slate-600">No rules yet: every transaction has the bank's category.</p>
      ) : (
        <ul className="divide-y divide-slate-100">
          {rules.map((rule) => (
            <li
              key={rule.id}
              className="flex flex-wrap items-center justify-between gap-3 py-3"
              data-testid="rule-row"
            >
              <p id={`rule-${rule.id}`} className="min-w-0 text-sm text-slate-900">
                {rule.field === "merchant" ? "Merchant is " : "Description contains "}
                <span className="font-medium break-words">“{rule.pattern}”</span> →{" "}
                {CATEGORIES[rule.category as keyof typeof CATEGORIES]?.label ?? rule.category}
              </p>
              <form action={action}>
                <input type="hidden" name="ruleId" value={rule.id} />
                <SubmitButton variant="secondary" pendingLabel="Removing…" describedBy={`rule-${rule.id}`}>
                  Remove
                </SubmitButton>
              </form>
            </li>
          ))}
        </ul>
      )}
      <FormMessage state={state} />
    </div>
  );
}

/** Which categories count as transfers: neither income nor spending. */
export function TransferCategoriesForm({ marked }: { marked: string[] }) {
  const [state, action] = useActionState(setTransferCategoriesAction, IDLE);
  const on = new Set(marked);
  return (
    <form action={action}>
      <fieldset>
        <legend className="sr-only">Categories counted as transfers</legend>
        <ul className="grid gap-x-4 gap-y-1 sm:grid-cols-2 lg:grid-cols-3">
          {CATEGORY_IDS.map((id) => {
            const builtIn = CATEGORIES[id].kind === "transfer";
            return (
              <li key={id}>
                <label className="flex min-h-11 items-center gap-2 text-sm text-slate-800">
                  <input
                    type="checkbox"
                    name={`transfer_${id}`}
                    defaultChecked={builtIn || on.has(id)}
                    disabled={builtIn}
                    className="size-4 rounded border-slate-400"
                  />
                  {CATEGORIES[id].label}
                  {builtIn ? <span className="text-xs text-slate-500">(always)</span> : null}
                </label>
              </li>
            );
          })}
        </ul>
      </fieldset>
      <SubmitButton pendingLabel="Saving…" className="mt-3">
        Save transfers
      </SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
