"use client";

import { useActionState, useState } from "react";
import { linkSandboxBankAction } from "@/app/dashboard/banks/actions";
import { IDLE } from "@/lib/action-state";
import { count } from "@/lib/words";
import { ProgressSteps } from "./progress-steps";
import { SandboxSignInFields } from "./sandbox-sign-in-fields";
import { SyncProgress } from "./sync-progress";
import { Button } from "./ui/button";
import { FormMessage } from "./ui/form-message";

const STEPS = ["Choose your bank", "Sign in", "Choose accounts", "First sync"];

/**
 * The sandbox connect flow, walking the same steps as a real bank's (Plaid Link): choose the
 * institution, sign in, choose what to share, then the first sync with visible progress.
 */
export function LinkBankFlow({
  institutions,
  onDone,
}: {
  institutions: { id: string; name: string }[];
  onDone: () => void;
}) {
  const [step, setStep] = useState(0);
  const [institutionId, setInstitutionId] = useState(institutions[0]?.id ?? "");
  const [state, action, pending] = useActionState(linkSandboxBankAction, IDLE);
  const institutionName = institutions.find((i) => i.id === institutionId)?.name ?? "your bank";
  const current = pending || state.status === "ok" ? 3 : step;

  return (
    <section
      aria-label="Link a bank"
      className="rounded-lg border border-slate-300 bg-white p-5"
      data-testid="link-bank-flow"
    >
      <ProgressSteps steps={STEPS} current={state.status === "ok" ? 4 : current} />
      <div className="mt-5">
        {current === 0 ? (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              setStep(1);
            }}
          >
            <fieldset>
              <legend className="text-sm font-medium text-slate-900">Choose your bank</legend>
              <div className="mt-2 grid gap-2 sm:grid-cols-2">
                {institutions.map((i) => (
                  <label
                    key={i.id}
                    className="flex cursor-pointer items-center gap-2 rounded-md border border-slate-200 p-3 text-sm has-[:checked]:border-slate-900 has-[:checked]:bg-slate-50"
                  >
                    <input
                      type="radio"
                      name="institution"
                      value={i.id}
                      checked={institutionId === i.id}
                      onChange={() => setInstitutionId(i.id)}
                    />
                    {i.name}
                  </label>
                ))}
              </div>
            </fieldset>
            <div className="mt-4 flex gap-2">
              <Button type="submit" disabled={!institutionId}>
                Continue
              </Button>
              <Button variant="ghost" onClick={onDone}>
                Cancel
              </Button>
            </div>
          </form>
        ) : null}

        {current === 1 ? (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              setStep(2);
            }}
          >
            <SandboxSignInFields institutionName={institutionName} />
            <div className="mt-4 flex gap-2">
              <Button type="submit">Sign in</Button>
              <Button variant="ghost" onClick={() => setStep(0)}>
                Back
              </Button>
            </div>
          </form>
        ) : null}

        {current === 2 ? (
          <form action={action}>
            <input type="hidden" name="institutionId" value={institutionId} />
            <fieldset>
              <legend className="text-sm font-medium text-slate-900">Choose accounts to share</legend>
              <label className="mt-2 flex items-start gap-2 text-sm text-slate-800">
                <input type="checkbox" name="shareAll" required defaultChecked className="mt-0.5" />
                <span>
                  All accounts at {institutionName}: checking, savings, cards, loans and investments.
                  Ledgerlink only reads them; it can never move money.
                </span>
              </label>
              <p className="mt-1 text-xs text-slate-500">The sandbox bank always shares every account.</p>
            </fieldset>
            <div className="mt-4 flex gap-2">
              <Button type="submit">Link and sync</Button>
              <Button variant="ghost" onClick={() => setStep(1)}>
                Back
              </Button>
            </div>
            <FormMessage state={state} />
          </form>
        ) : null}

        {current === 3 && pending ? <SyncProgress label={`Linking ${institutionName}`} /> : null}

        {state.status === "ok" && !pending ? (
          <div role="status" className="space-y-3" data-testid="link-done">
            <p className="text-sm font-medium text-emerald-800">
              {state.data.institutionName} is linked: {state.data.accounts} accounts and{" "}
              {count(state.data.transactions)} transactions synced in {state.data.seconds}s.
            </p>
            <Button variant="secondary" onClick={onDone}>
              Done
            </Button>
          </div>
        ) : null}
      </div>
    </section>
  );
}
