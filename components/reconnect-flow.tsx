"use client";

import { useActionState } from "react";
import { reconnectBankAction } from "@/app/dashboard/banks/actions";
import { IDLE } from "@/lib/action-state";
import { ProgressSteps } from "./progress-steps";
import { SandboxSignInFields } from "./sandbox-sign-in-fields";
import { SyncProgress } from "./sync-progress";
import { Button } from "./ui/button";
import { FormMessage } from "./ui/form-message";

/** Reconnect (update mode): sign in at the bank again, then sync; the row's state clears. */
export function ReconnectFlow({
  connectionId,
  institutionName,
  onClose,
}: {
  connectionId: string;
  institutionName: string;
  onClose: () => void;
}) {
  const [state, action, pending] = useActionState(reconnectBankAction, IDLE);
  const step = state.status === "ok" ? 2 : pending ? 1 : 0;
  return (
    <section
      aria-label={`Reconnect ${institutionName}`}
      className="mt-3 rounded-md border border-slate-300 p-4"
      data-testid="reconnect-flow"
    >
      <ProgressSteps steps={["Sign in again", "Sync"]} current={step} />
      <div className="mt-4">
        {step === 0 ? (
          <form action={action}>
            <input type="hidden" name="connectionId" value={connectionId} />
            <SandboxSignInFields institutionName={institutionName} />
            <div className="mt-4 flex gap-2">
              <Button type="submit">Reconnect</Button>
              <Button variant="ghost" onClick={onClose}>
                Cancel
              </Button>
            </div>
            <FormMessage state={state} />
          </form>
        ) : null}
        {pending ? <SyncProgress label={`Reconnecting ${institutionName}`} /> : null}
        {state.status === "ok" && !pending ? (
          <div className="flex items-center gap-3">
            <FormMessage state={state} />
            <Button variant="secondary" onClick={onClose}>
              Close
            </Button>
          </div>
        ) : null}
      </div>
    </section>
  );
}
