"use client";

import { useActionState } from "react";
import { signOutAction } from "@/app/dashboard/actions";
import { IDLE } from "@/lib/action-state";
import { SubmitButton } from "./ui/submit-button";

export function SignOutForm() {
  const [state, action] = useActionState(signOutAction, IDLE);
  return (
    <form action={action} className="flex items-center gap-2">
      <SubmitButton variant="ghost" pendingLabel="Signing out…">
        Sign out
      </SubmitButton>
      {state.status === "error" ? (
        <span role="alert" className="text-xs text-red-700">
          {state.error}
        </span>
      ) : null}
    </form>
  );
}
