"use client";

import { useActionState } from "react";
import { type ActionState, IDLE } from "@/lib/action-state";
import { keepAppAction, revokeAppAction } from "./actions";

/**
 * The Keep and Revoke buttons of one connected app. Each button's name is its visible label, then
 * the app's name for screen readers ("Revoke Claude"): a name that starts with what is shown is
 * what a voice-control user says to press it (WCAG 2.5.3), also while it reads "Revoking…".
 */
export function AppButtons({ grantId, appName }: { grantId: string; appName: string }) {
  const [kept, keepAction, keeping] = useActionState(keepAppAction, IDLE as ActionState);
  const [revoked, revokeAction, revoking] = useActionState(revokeAppAction, IDLE as ActionState);
  const failed = [kept, revoked].find((s) => s.status === "error");
  return (
    <div className="flex flex-wrap items-center gap-3">
      <form action={keepAction}>
        <input type="hidden" name="grantId" value={grantId} />
        <button
          type="submit"
          disabled={keeping}
          className="rounded-md border border-slate-300 px-3 py-1.5 text-sm hover:bg-slate-50 disabled:opacity-50"
        >
          {keeping ? "Keeping…" : "Keep for a year"}
          <span className="sr-only">: {appName}</span>
        </button>
      </form>
      <form action={revokeAction}>
        <input type="hidden" name="grantId" value={grantId} />
        <button
          type="submit"
          disabled={revoking}
          className="rounded-md border border-red-300 px-3 py-1.5 text-sm text-red-700 hover:bg-red-50 disabled:opacity-50"
        >
          {revoking ? "Revoking…" : "Revoke"}
          <span className="sr-only"> {appName}</span>
        </button>
      </form>
      <span role="status" className="text-sm text-slate-700">
        {kept.status === "ok" ? kept.message : ""}
      </span>
      {failed?.status === "error" ? (
        <span role="alert" className="text-sm text-red-700">
          {failed.error}
        </span>
      ) : null}
    </div>
  );
}
