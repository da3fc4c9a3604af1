"use client";

import { useFormStatus } from "react-dom";
import { Button, type ButtonVariant } from "./button";

/** A submit button that disables itself and says what is happening while its form is pending. */
export function SubmitButton({
  children,
  pendingLabel,
  variant = "primary",
  className,
  name,
  value,
  describedBy,
}: {
  children: React.ReactNode;
  pendingLabel: string;
  variant?: ButtonVariant;
  className?: string;
  name?: string;
  value?: string;
  /** The id of what the button acts on (a row's text), for a name like "Remove" repeated per row. */
  describedBy?: string;
}) {
  const { pending } = useFormStatus();
  return (
    <Button
      type="submit"
      variant={variant}
      className={className}
      disabled={pending}
      aria-disabled={pending}
      name={name}
      value={value}
      aria-describedby={describedBy}
    >
      {pending ? (
        <>
          <span
            aria-hidden="true"
            className="size-3 animate-spin rounded-full border-2 border-current border-t-transparent"
          />
          {pendingLabel}
        </>
      ) : (
        children
      )}
    </Button>
  );
}
