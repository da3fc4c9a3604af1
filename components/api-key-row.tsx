"use client";

import { setApiKeyAccountsAction } from "@/app/dashboard/keys/actions";
import { AccountAccessEditor } from "./account-access-editor";
import type { AccountOption } from "./account-choice";
import { ConfirmButton } from "./confirm-button";
import { SubmitButton } from "./ui/submit-button";

export interface ApiKeyRowData {
  id: string;
  name: string;
  preview: string;
  createdAt: string;
  lastUsedAt: string | null;
  /** The accounts it reads; null for all. */
  accountIds: string[] | null;
}

/**
 * One live key. The rotate and revoke actions come from the list, whose state outlives the row
 * (a rotated or revoked key's row disappears, but the new key must stay on screen).
 */
export function ApiKeyRow({
  apiKey,
  accounts,
  rotateAction,
  revokeAction,
}: {
  apiKey: ApiKeyRowData;
  /** The person's accounts, for the key's account choice. */
  accounts: AccountOption[];
  rotateAction: (formData: FormData) => void;
  revokeAction: (formData: FormData) => void;
}) {
  return (
    <li className="flex flex-wrap items-start justify-between gap-3 py-4" data-testid="api-key-row">
      <div className="min-w-0">
        <p className="font-medium text-slate-900">{apiKey.name}</p>
        <p className="font-mono text-xs text-slate-600">{apiKey.preview}</p>
        <p className="mt-1 text-xs text-slate-500">
          Created {apiKey.createdAt} · {apiKey.lastUsedAt ? `last used ${apiKey.lastUsedAt}` : "never used"}
        </p>
        <AccountAccessEditor
          accounts={accounts}
          accountIds={apiKey.accountIds}
          action={setApiKeyAccountsAction}
          idField={{ name: "keyId", value: apiKey.id }}
          subject={apiKey.name}
        />
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <form action={rotateAction}>
          <input type="hidden" name="keyId" value={apiKey.id} />
          <SubmitButton variant="secondary" pendingLabel="Rotating…">
            Rotate
          </SubmitButton>
        </form>
        <form action={revokeAction}>
          <input type="hidden" name="keyId" value={apiKey.id} />
          <ConfirmButton
            label="Revoke"
            question={`Revoke “${apiKey.name}”? Clients using it stop working at once.`}
            confirmLabel="Yes, revoke"
            pendingLabel="Revoking…"
          />
        </form>
      </div>
    </li>
  );
}
