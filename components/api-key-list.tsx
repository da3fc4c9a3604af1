"use client";

import { useActionState } from "react";
import { revokeApiKeyAction, rotateApiKeyAction } from "@/app/dashboard/keys/actions";
import { IDLE } from "@/lib/action-state";
import type { AccountOption } from "./account-choice";
import { ApiKeyRow, type ApiKeyRowData } from "./api-key-row";
import { NewKeyNotice } from "./new-key-notice";
import { FormMessage } from "./ui/form-message";

export function ApiKeyList({ keys, accounts }: { keys: ApiKeyRowData[]; accounts: AccountOption[] }) {
  const [rotateState, rotate] = useActionState(rotateApiKeyAction, IDLE);
  const [revokeState, revoke] = useActionState(revokeApiKeyAction, IDLE);
  return (
    <div>
      <FormMessage state={rotateState} />
      {rotateState.status === "ok" ? (
        <NewKeyNotice
          name={rotateState.data.name}
          apiKey={rotateState.data.key}
          note="The old key stopped working the moment you rotated it."
        />
      ) : null}
      <FormMessage state={revokeState} />
      {keys.length === 0 ? (
        <p className="text-sm text-slate-600">No keys yet. Create one above for each user or app.</p>
      ) : (
        <ul className="divide-y divide-slate-200" aria-label="Your API keys">
          {keys.map((k) => (
            <ApiKeyRow
              key={k.id}
              apiKey={k}
              accounts={accounts}
              rotateAction={rotate}
              revokeAction={revoke}
            />
          ))}
        </ul>
      )}
    </div>
  );
}
