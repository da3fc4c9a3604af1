"use client";

import { useActionState } from "react";
import { localCheckoutAction } from "@/app/dashboard/billing/actions";
import { IDLE } from "@/lib/action-state";
import { FormMessage } from "./ui/form-message";
import { SubmitButton } from "./ui/submit-button";

const OUTCOMES = [
  { value: "succeed", label: "Pay: subscription active", variant: "primary" },
  { value: "past_due", label: "Payment fails: past due", variant: "secondary" },
  { value: "cancel", label: "Cancel the subscription", variant: "danger" },
] as const;

export function LocalCheckoutForm() {
  const [state, action] = useActionState(localCheckoutAction, IDLE);
  return (
    <div>
      <div className="flex flex-wrap gap-2">
        {OUTCOMES.map((o) => (
          <form key={o.value} action={action}>
            <input type="hidden" name="outcome" value={o.value} />
            <SubmitButton variant={o.variant} pendingLabel="Working…">
              {o.label}
            </SubmitButton>
          </form>
        ))}
      </div>
      <FormMessage state={state} />
    </div>
  );
}
