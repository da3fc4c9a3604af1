"use client";

import { useActionState, useEffect, useRef, useState } from "react";
import {
  forceReauthAction,
  removeBankAction,
  setAccountHiddenAction,
  syncBankAction,
} from "@/app/dashboard/banks/actions";
import { IDLE } from "@/lib/action-state";
import { ConfirmButton } from "./confirm-button";
import { PlaidLinkButton } from "./plaid-link-button";
import { ReconnectFlow } from "./reconnect-flow";
import { Badge, type BadgeTone } from "./ui/badge";
import { Button } from "./ui/button";
import { FormMessage } from "./ui/form-message";
import { SubmitButton } from "./ui/submit-button";

export interface BankConnectionRowData {
  id: string;
  provider: string;
  institutionName: string;
  status: "healthy" | "reauth_required" | "error" | "disconnected";
  lastSyncedAt: string | null;
  lastErrorMessage: string | null;
  /** Data the bank does not provide (bank_connections.warnings), shown as a small note. */
  warnings?: { product: string; message: string }[];
  accounts: BankAccountLine[];
}

export interface BankAccountLine {
  id: string;
  name: string;
  mask: string | null;
  type: string;
  balance: string | null;
  /** Hidden from assistants (every tool leaves it out). */
  hidden: boolean;
}

const STATUS: Record<BankConnectionRowData["status"], { label: string; tone: BadgeTone }> = {
  healthy: { label: "Healthy", tone: "green" },
  reauth_required: { label: "Needs re-authorization", tone: "amber" },
  error: { label: "Sync error", tone: "red" },
  disconnected: { label: "Disconnected", tone: "slate" },
};

/** One account of a bank, with its balance and the control that hides it from assistants or shows it again. */
function AccountLine({ account }: { account: BankAccountLine }) {
  const [state, toggle] = useActionState(setAccountHiddenAction, IDLE);
  return (
    <li className="py-1.5">
      <div className="flex flex-wrap items-center justify-between gap-x-3 gap-y-1">
        <div
          className="flex min-w-0 flex-1 flex-wrap justify-between gap-x-3"
          data-testid="bank-account"
          data-hidden={account.hidden}
        >
          <span className="min-w-0">
            {account.name}
            {account.mask ? <span className="text-slate-500"> ••{account.mask}</span> : null}
            <span className="ml-2 text-xs text-slate-500">{account.type}</span>
            {account.hidden ? (
              <span className="ml-2">
                <Badge tone="amber">Hidden from assistants</Badge>
              </span>
            ) : null}
          </span>
          <span className="tabular-nums text-slate-800">{account.balance ?? "—"}</span>
        </div>
        <form action={toggle}>
          <input type="hidden" name="accountId" value={account.id} />
          <input type="hidden" name="hidden" value={account.hidden ? "false" : "true"} />
          <SubmitButton variant="ghost" pendingLabel={account.hidden ? "Showing…" : "Hiding…"}>
            {account.hidden ? "Show to assistants" : "Hide from assistants"}
            <span className="sr-only">: {account.name}</span>
          </SubmitButton>
        </form>
      </div>
      <FormMessage state={state} />
    </li>
  );
}

export function BankConnectionRow({
  connection,
  highlighted,
  allowForceReauth,
}: {
  connection: BankConnectionRowData;
  /** Reached through `?reconnect=<id>` (links in tool answers): scroll here and stand out. */
  highlighted: boolean;
  allowForceReauth: boolean;
}) {
  const [syncState, sync] = useActionState(syncBankAction, IDLE);
  const [removeState, remove] = useActionState(removeBankAction, IDLE);
  const [reauthState, reauth] = useActionState(forceReauthAction, IDLE);
  const [reconnecting, setReconnecting] = useState(false);
  const ref = useRef<HTMLLIElement>(null);
  useEffect(() => {
    if (highlighted) ref.current?.scrollIntoView({ block: "center" });
  }, [highlighted]);
  // A "Sync now" message describes the status that sync produced ("…use Reconnect"); once the
  // status changes otherwise (Plaid's Reconnect), it is stale and hidden.
  const [syncSeen, setSyncSeen] = useState({ state: syncState, status: connection.status });
  if (syncSeen.state !== syncState) setSyncSeen({ state: syncState, status: connection.status });
  const syncMessageStale = syncSeen.state === syncState && syncSeen.status !== connection.status;
  const status = STATUS[connection.status];
  const needsReauth = connection.status === "reauth_required";
  // The Reconnect highlight is for a bank that needs attention; a healthy one does not stand out.
  const standOut = highlighted && connection.status !== "healthy";

  return (
    <li
      ref={ref}
      id={`connection-${connection.id}`}
      data-testid="bank-connection"
      data-status={connection.status}
      className={`rounded-lg border bg-white p-4 ${standOut ? "border-amber-400 ring-2 ring-amber-300" : "border-slate-200"}`}
    >
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div>
          <h3 className="font-medium text-slate-900">{connection.institutionName}</h3>
          <div className="mt-1 flex flex-wrap items-center gap-2 text-xs text-slate-600">
            <Badge tone={status.tone}>{status.label}</Badge>
            <span>{connection.lastSyncedAt ? `Last sync ${connection.lastSyncedAt}` : "Not synced yet"}</span>
            {connection.provider === "sandbox" ? <Badge tone="blue">Sandbox</Badge> : null}
          </div>
          {needsReauth ? (
            <p className="mt-2 text-sm text-amber-900">
              The bank asks you to sign in again. Until then its data stays as of the last sync.
            </p>
          ) : connection.status === "error" && connection.lastErrorMessage ? (
            <p className="mt-2 text-sm text-red-800">{connection.lastErrorMessage}</p>
          ) : null}
          {connection.warnings?.length ? (
            <ul className="mt-2 space-y-0.5 text-xs text-slate-600" data-testid="connection-warnings">
              {connection.warnings.map((w) => (
                <li key={w.product} data-product={w.product}>
                  Note: {w.message}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
        <div className="flex flex-wrap items-center gap-2">
          {needsReauth && connection.provider === "plaid" ? (
            // Plaid: Link in update mode for this item.
            <PlaidLinkButton connectionId={connection.id} label="Reconnect" />
          ) : null}
          {needsReauth && connection.provider !== "plaid" && !reconnecting ? (
            <Button onClick={() => setReconnecting(true)} autoFocus={highlighted}>
              Reconnect
            </Button>
          ) : null}
          <form action={sync}>
            <input type="hidden" name="connectionId" value={connection.id} />
            <SubmitButton variant="secondary" pendingLabel="Syncing…">
              Sync now
            </SubmitButton>
          </form>
          <form action={remove}>
            <input type="hidden" name="connectionId" value={connection.id} />
            <ConfirmButton
              label="Remove"
              question={`Remove ${connection.institutionName} and delete all of its data?`}
              confirmLabel="Yes, remove"
              pendingLabel="Removing…"
            />
          </form>
        </div>
      </div>
      {reconnecting ? (
        <ReconnectFlow
          connectionId={connection.id}
          institutionName={connection.institutionName}
          onClose={() => setReconnecting(false)}
        />
      ) : null}
      {syncMessageStale ? null : <FormMessage state={syncState} />}
      <FormMessage state={removeState} />
      <FormMessage state={reauthState} />
      {connection.accounts.length > 0 ? (
        <ul
          className="mt-3 divide-y divide-slate-100 text-sm"
          aria-label={`Accounts at ${connection.institutionName}`}
        >
          {connection.accounts.map((a) => (
            <AccountLine key={a.id} account={a} />
          ))}
        </ul>
      ) : null}
      {allowForceReauth && connection.provider === "sandbox" && !needsReauth ? (
        <form action={reauth} className="mt-3 border-t border-dashed border-slate-200 pt-3">
          <input type="hidden" name="connectionId" value={connection.id} />
          <SubmitButton variant="ghost" pendingLabel="Forcing…">
            Development: force re-authorization
          </SubmitButton>
        </form>
      ) : null}
    </li>
  );
}
