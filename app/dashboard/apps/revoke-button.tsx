"use client";

import { useActionState } from "react";
import type { ActionState } from "@/lib/action";
import { revokeAppAction } from "./actions";

// Not `IDLE` from lib/action: importing a value from there would pull the database into the browser bundle.
const IDLE: ActionState = { status: "idle" };

/** The Revoke button of one connected app. */
export function RevokeAppButton({ grantId, appName }: { grantId: string; appName: string }) {
  const [state, formAction, pending] = useActionState(revokeAppAction, IDLE);
  return (
    <form action={formAction} className="flex items-center gap-3">
      <input type="hidden" name="grantId" value={grantId} />
      <button
        type="submit"
        disabled={pending}
        aria-label={`Revoke ${appName}`}
        className="rounded-md border border-red-300 px-3 py-1.5 text-sm text-red-700 hover:bg-red-50 disabled:opacity-50"
      >
        {pending ? "Revoking…" : "Revoke"}
      </button>
      {state.status === "error" ? (
        <span role="alert" className="text-sm text-red-700">
          {state.error}
        </span>
      ) : null}
    </form>
  );
}
