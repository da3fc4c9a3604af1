"use client";

import { useActionState } from "react";
import { manageBillingAction, subscribeAction } from "@/app/dashboard/billing/actions";
import { IDLE } from "@/lib/action-state";
import { FormMessage } from "./ui/form-message";
import { SubmitButton } from "./ui/submit-button";

/** Subscribe (checkout) or Manage (portal): both leave the page on success. */
export function BillingButton({ kind }: { kind: "subscribe" | "manage" }) {
  const [state, action] = useActionState(kind === "subscribe" ? subscribeAction : manageBillingAction, IDLE);
  return (
    <form action={action}>
      <SubmitButton variant={kind === "subscribe" ? "primary" : "secondary"} pendingLabel="Opening checkout…">
        {kind === "subscribe" ? "Subscribe" : "Manage subscription"}
      </SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
