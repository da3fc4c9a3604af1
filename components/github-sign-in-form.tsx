"use client";

import { useActionState } from "react";
import { signInWithGitHubAction } from "@/app/(auth)/sign-in/actions";
import { IDLE } from "@/lib/action-state";
import { FormMessage } from "./ui/form-message";
import { SubmitButton } from "./ui/submit-button";

/** `callbackUrl` is where the user lands after signing in (already checked by safeCallbackPath). */
export function GitHubSignInForm({ callbackUrl }: { callbackUrl: string }) {
  const [state, action] = useActionState(signInWithGitHubAction, IDLE);
  return (
    <form action={action}>
      <input type="hidden" name="callbackUrl" value={callbackUrl} />
      <SubmitButton variant="secondary" pendingLabel="Opening GitHub…" className="w-full">
        Continue with GitHub
      </SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
