"use client";

import { useActionState } from "react";
import { type ActionState, IDLE } from "@/lib/action-state";
import { keepAppAction, revokeAppAction } from "./actions";

/** The Keep and Revoke buttons of one connected app. */
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
          aria-label={`Keep ${appName} connected for another year`}
          className="rounded-md border border-slate-300 px-3 py-1.5 text-sm hover:bg-slate-50 disabled:opacity-50"
        >
          {keeping ? "Keeping…" : "Keep for a year"}
        </button>
      </form>
      <form action={revokeAction}>
        <input type="hidden" name="grantId" value={grantId} />
        <button
          type="submit"
          disabled={revoking}
          aria-label={`Revoke ${appName}`}
          className="rounded-md border border-red-300 px-3 py-1.5 text-sm text-red-700 hover:bg-red-50 disabled:opacity-50"
        >
          {revoking ? "Revoking…" : "Revoke"}
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
