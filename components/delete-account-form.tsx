"use client";

import { useActionState } from "react";
import { deleteAccountAction } from "@/app/dashboard/settings/actions";
import { IDLE } from "@/lib/action-state";
import { FormMessage } from "./ui/form-message";
import { SubmitButton } from "./ui/submit-button";

/** Deleting the account, confirmed by typing the email address. */
export function DeleteAccountForm({ email }: { email: string }) {
  const [state, action] = useActionState(deleteAccountAction, IDLE);
  return (
    <div>
      <form action={action} className="flex flex-col gap-2 sm:flex-row sm:items-end">
        <div className="flex-1">
          <label htmlFor="confirm-delete" className="block text-sm font-medium text-slate-800">
            Type <span className="font-semibold">{email}</span> to confirm
          </label>
          <input
            id="confirm-delete"
            name="confirm"
            autoComplete="off"
            required
            aria-invalid={state.status === "error"}
            className="mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 text-sm shadow-sm focus:border-slate-500 focus:outline-none focus:ring-2 focus:ring-slate-300"
          />
        </div>
        <SubmitButton pendingLabel="Deleting…" variant="danger">
          Delete my account
        </SubmitButton>
      </form>
      <FormMessage state={state} />
    </div>
  );
}
