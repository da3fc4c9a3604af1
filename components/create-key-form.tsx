"use client";

import { useActionState } from "react";
import type { ShownKey } from "@/app/dashboard/keys/actions";
import { createApiKeyAction } from "@/app/dashboard/keys/actions";
import { IDLE } from "@/lib/action-state";
import { NewKeyNotice } from "./new-key-notice";
import { FormMessage } from "./ui/form-message";
import { SubmitButton } from "./ui/submit-button";

export function CreateKeyForm({ mcpUrl }: { mcpUrl: string }) {
  const [state, action] = useActionState(createApiKeyAction, IDLE);
  const shown: ShownKey | null = state.status === "ok" ? state.data : null;
  return (
    <div>
      <form action={action} className="flex flex-col gap-2 sm:flex-row sm:items-end">
        <div className="flex-1">
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
            aria-invalid={state.status === "error"}
            className="mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 text-sm shadow-sm focus:border-slate-500 focus:outline-none focus:ring-2 focus:ring-slate-300"
          />
          <p id="key-name-help" className="mt-1 text-xs text-slate-500">
            One key per user or app, so you can rotate or revoke one without touching the others.
          </p>
        </div>
        <SubmitButton pendingLabel="Creating…" className="sm:mb-5">
          Create key
        </SubmitButton>
      </form>
      <FormMessage state={state} />
      {shown ? <NewKeyNotice name={shown.name} apiKey={shown.key} mcpUrl={mcpUrl} /> : null}
    </div>
  );
}
