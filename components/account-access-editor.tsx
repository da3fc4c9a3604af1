"use client";

/**
 * A key's or an app's accounts on its row (API keys, Connected apps): what it reads now, and
 * "Change accounts", which opens the account choice and saves it through `action`. The change
 * takes effect on the credential's next call.
 */
import { startTransition, useActionState, useId, useState } from "react";
import { type ActionState, IDLE } from "@/lib/action-state";
import { AccountChoice, type AccountOption, describeAccess } from "./account-choice";
import { Button } from "./ui/button";

export function AccountAccessEditor({
  accounts,
  accountIds,
  action,
  idField,
  subject,
}: {
  accounts: AccountOption[];
  /** The credential's accounts: null for all. */
  accountIds: readonly string[] | null;
  action: (previous: ActionState, formData: FormData) => Promise<ActionState>;
  /** The hidden field naming the credential, e.g. `{ name: "keyId", value }`. */
  idField: { name: string; value: string };
  /** The credential's name, for screen readers ("Change accounts: Claude"). */
  subject: string;
}) {
  const [state, save, pending] = useActionState(action, IDLE as ActionState);
  const [open, setOpen] = useState(false);
  // Closed once saved: the row then shows the new accounts (the page is revalidated).
  const [saved, setSaved] = useState(state);
  if (saved !== state) {
    setSaved(state);
    if (state.status === "ok") setOpen(false);
  }
  const formId = useId();
  // Submitted by hand: `<form action>` would reset the choice after a refusal (see CreateKeyForm).
  const submit = (event: React.FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    startTransition(() => save(form));
  };
  return (
    <div className="mt-1 text-xs text-slate-600">
      <p>
        <span className="font-medium text-slate-700">Reads:</span>{" "}
        <span data-testid="credential-accounts">{describeAccess(accounts, accountIds)}</span>
      </p>
      <Button
        type="button"
        variant="secondary"
        className="mt-2"
        onClick={() => setOpen(!open)}
        aria-expanded={open}
        aria-controls={open ? formId : undefined}
      >
        Change accounts<span className="sr-only">: {subject}</span>
      </Button>
      {open ? (
        <form
          id={formId}
          onSubmit={submit}
          className="mt-2 space-y-3 rounded-md border border-slate-200 bg-slate-50 p-3"
        >
          <input type="hidden" name={idField.name} value={idField.value} />
          <AccountChoice
            accounts={accounts}
            initial={accountIds}
            mode="all-or-chosen"
            legend={`Accounts ${subject} may read`}
            error={state.status === "error" ? state.error : undefined}
          />
          <div className="flex flex-wrap gap-2">
            <Button type="submit" disabled={pending} aria-disabled={pending}>
              {pending ? "Saving…" : "Save accounts"}
            </Button>
            <Button type="button" variant="ghost" onClick={() => setOpen(false)}>
              Cancel
            </Button>
          </div>
        </form>
      ) : null}
      {state.status === "ok" && state.message ? (
        <p role="status" className="mt-1 text-sm text-emerald-700">
          {state.message}
        </p>
      ) : null}
    </div>
  );
}
