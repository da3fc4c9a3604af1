"use client";

import { useActionState } from "react";
import { signInWithEmailAction } from "@/app/(auth)/sign-in/actions";
import { IDLE } from "@/lib/action-state";
import { FormMessage } from "./ui/form-message";
import { SubmitButton } from "./ui/submit-button";

/** `callbackUrl` is where the user lands after signing in (already checked by safeCallbackPath). */
export function EmailSignInForm({ callbackUrl }: { callbackUrl: string }) {
  const [state, action] = useActionState(signInWithEmailAction, IDLE);
  return (
    <form action={action} className="space-y-3" aria-label="Sign in with email">
      <input type="hidden" name="callbackUrl" value={callbackUrl} />
      <label htmlFor="email" className="block text-sm font-medium text-slate-800">
        Email address
      </label>
      <input
        id="email"
        name="email"
        type="email"
        required
        autoComplete="email"
        aria-invalid={state.status === "error"}
        className="block w-full rounded-md border border-slate-300 px-3 py-2 text-sm shadow-sm focus:border-slate-500 focus:outline-none focus:ring-2 focus:ring-slate-300"
        placeholder="you@example.com"
      />
      <SubmitButton pendingLabel="Sending link…" className="w-full">
        Email me a sign-in link
      </SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
