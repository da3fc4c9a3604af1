"use client";

import { useState } from "react";
import { Button, type ButtonVariant } from "./ui/button";
import { SubmitButton } from "./ui/submit-button";

/**
 * A destructive submit that asks first: the first click reveals the question and a confirm
 * button (inside the same form), the second submits. Use inside a <form action=…>.
 */
export function ConfirmButton({
  label,
  question,
  confirmLabel,
  pendingLabel,
  variant = "danger",
}: {
  label: string;
  question: string;
  confirmLabel: string;
  pendingLabel: string;
  variant?: ButtonVariant;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <Button variant="secondary" onClick={() => setAsking(true)}>
        {label}
      </Button>
    );
  }
  return (
    <fieldset className="inline-flex flex-wrap items-center gap-2">
      <legend className="sr-only">Confirm</legend>
      <span className="text-sm text-slate-700">{question}</span>
      <SubmitButton variant={variant} pendingLabel={pendingLabel}>
        {confirmLabel}
      </SubmitButton>
      <Button variant="ghost" onClick={() => setAsking(false)}>
        Cancel
      </Button>
    </fieldset>
  );
}
