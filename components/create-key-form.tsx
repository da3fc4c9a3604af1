"use client";

import { startTransition, useActionState } from "react";
import type { ShownKey } from "@/app/dashboard/keys/actions";
import { createApiKeyAction } from "@/app/dashboard/keys/actions";
import { IDLE } from "@/lib/action-state";
import { AccountChoice, type AccountOption } from "./account-choice";
import { NewKeyNotice } from "./new-key-notice";
import { Button } from "./ui/button";
import { FormMessage } from "./ui/form-message";

/** The name of a new key and the accounts it may read (all of them unless the person chooses). */
export function CreateKeyForm({ mcpUrl, accounts }: { mcpUrl: string; accounts: AccountOption[] }) {
  const [state, action, pending] = useActionState(createApiKeyAction, IDLE);
  const shown: ShownKey | null = state.status === "ok" ? state.data : null;
  const failed = state.status === "error" ? state : null;
  const choiceError =
    failed && (failed.field === "accountIds" || failed.field === "access") ? failed.error : undefined;
  // Submitted by hand, not through `<form action>`: React would reset the form after each run, the
  // name and the choice of accounts with it, also when the server refused them. A created key
  // starts a fresh form (its key).
  const submit = (event: React.FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    startTransition(() => action(form));
  };
  return (
    <div>
      <form key={shown?.id ?? "new"} onSubmit={submit} className="space-y-4">
        <div>
          <label htmlFor="key-name" className="block text-sm font-medium text-slate-800">
            Key name
          </label>
          <input
            id="key-name"
            name="name"
            required
            maxLength={64}
            placeholder="e.g. Claude Code on my laptop"
            aria-describedby="key-name-help"
            aria-invalid={failed !== null && choiceError === undefined}
            className="mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 text-sm shadow-sm focus:border-slate-500 focus:outline-none focus:ring-2 focus:ring-slate-300"
          />
          <p id="key-name-help" className="mt-1 text-xs text-slate-500">
            One key per user or app, so you can rotate or revoke one without touching the others.
          </p>
        </div>
        <AccountChoice
          accounts={accounts}
          initial={null}
          mode="all-or-chosen"
          legend="Accounts it may read"
          error={choiceError}
        />
        <Button type="submit" disabled={pending} aria-disabled={pending}>
          {pending ? "Creating…" : "Create key"}
        </Button>
      </form>
      {choiceError ? null : <FormMessage state={state} />}
      {shown ? <NewKeyNotice name={shown.name} apiKey={shown.key} mcpUrl={mcpUrl} /> : null}
    </div>
  );
}
