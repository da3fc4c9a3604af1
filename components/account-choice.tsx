"use client";

/**
 * The one control for "which accounts may this read" (issue 35), on the API keys page, the
 * Connected apps page and the consent screen. It sends what lib/account-access.ts reads: one
 * `accountIds` per ticked box and, on the dashboard's pages, `access` ("all" or "chosen").
 *
 * - `all-or-chosen` (keys and apps): "All accounts (including ones linked later)" or "Only the
 *   accounts I choose", whose boxes appear once chosen.
 * - `boxes` (the consent screen): every account ticked at first; all ticked means all accounts,
 *   the ones linked later included, and the control says which of the two the choice is now.
 */
import { useId, useState } from "react";
import type { ChoosableAccount } from "@/lib/account-access";
import { Badge } from "./ui/badge";

export type AccountOption = ChoosableAccount;

/** "Checking ••1234", the way the Banks page names an account. */
function accountLabel(a: Pick<AccountOption, "name" | "mask">): string {
  return a.mask ? `${a.name} ••${a.mask}` : a.name;
}

const ALL_ACCOUNTS_LABEL = "All accounts (including ones linked later)";

function AccountBoxes({
  accounts,
  ticked,
  onToggle,
  describedBy,
}: {
  accounts: AccountOption[];
  ticked: ReadonlySet<string>;
  onToggle: (id: string, on: boolean) => void;
  describedBy?: string;
}) {
  return (
    <ul className="mt-2 space-y-1.5">
      {accounts.map((a) => (
        <li key={a.id}>
          <label className="flex flex-wrap items-center gap-x-2 gap-y-1 text-sm text-slate-800">
            <input
              type="checkbox"
              name="accountIds"
              value={a.id}
              checked={ticked.has(a.id)}
              onChange={(event) => onToggle(a.id, event.currentTarget.checked)}
              aria-describedby={describedBy}
              className="size-4"
            />
            <span>{accountLabel(a)}</span>
            <span className="text-xs text-slate-600">{a.institutionName}</span>
            {a.hidden ? <Badge tone="amber">Hidden from assistants</Badge> : null}
          </label>
        </li>
      ))}
    </ul>
  );
}

export function AccountChoice({
  accounts,
  initial,
  mode,
  legend,
  error,
}: {
  /** The person's accounts (lib/account-access.ts listChoosableAccounts). */
  accounts: AccountOption[];
  /** The current choice: null for all accounts, else the chosen ids. */
  initial: readonly string[] | null;
  mode: "all-or-chosen" | "boxes";
  legend: string;
  /** The server's refusal of the last choice, shown under the control. */
  error?: string;
}) {
  const id = useId();
  const [access, setAccess] = useState<"all" | "chosen">(initial === null ? "all" : "chosen");
  const [ticked, setTicked] = useState<ReadonlySet<string>>(
    () => new Set(initial ?? (mode === "boxes" ? accounts.map((a) => a.id) : [])),
  );
  const toggle = (accountId: string, on: boolean) =>
    setTicked((before) => {
      const next = new Set(before);
      if (on) next.add(accountId);
      else next.delete(accountId);
      return next;
    });
  const errorId = `${id}-error`;
  const noteId = `${id}-note`;
  const errorLine = error ? (
    <p id={errorId} role="alert" className="mt-2 text-sm text-red-700">
      {error}
    </p>
  ) : null;

  if (mode === "boxes") {
    const count = accounts.filter((a) => ticked.has(a.id)).length;
    return (
      <fieldset aria-describedby={error ? `${noteId} ${errorId}` : noteId}>
        <legend className="font-medium text-slate-900">{legend}</legend>
        {accounts.length === 0 ? (
          <p id={noteId} className="mt-2 text-sm text-slate-700">
            You have not linked a bank yet: it will read every account you link.
          </p>
        ) : (
          <>
            <AccountBoxes accounts={accounts} ticked={ticked} onToggle={toggle} />
            <p
              id={noteId}
              aria-live="polite"
              className={`mt-2 text-sm ${count === 0 ? "text-red-700" : "text-slate-700"}`}
            >
              {count === accounts.length
                ? "All accounts, including ones you link later."
                : count === 0
                  ? "Tick at least one account, or deny."
                  : `Only the ${count} ticked ${count === 1 ? "account" : "accounts"}; accounts you link later are not included.`}
            </p>
          </>
        )}
        {errorLine}
      </fieldset>
    );
  }

  return (
    <fieldset aria-describedby={error ? errorId : undefined}>
      <legend className="text-sm font-medium text-slate-800">{legend}</legend>
      <div className="mt-1 space-y-1">
        <label className="flex items-center gap-2 text-sm text-slate-800">
          <input
            type="radio"
            name="access"
            value="all"
            checked={access === "all"}
            onChange={() => setAccess("all")}
            className="size-4"
          />
          {ALL_ACCOUNTS_LABEL}
        </label>
        <label className="flex items-center gap-2 text-sm text-slate-800">
          <input
            type="radio"
            name="access"
            value="chosen"
            checked={access === "chosen"}
            onChange={() => setAccess("chosen")}
            disabled={accounts.length === 0}
            aria-describedby={accounts.length === 0 ? noteId : undefined}
            className="size-4"
          />
          Only the accounts I choose
        </label>
      </div>
      {accounts.length === 0 ? (
        <p id={noteId} className="mt-1 text-xs text-slate-600">
          Link a bank to choose accounts.
        </p>
      ) : access === "chosen" ? (
        <div className="ml-6">
          <AccountBoxes
            accounts={accounts}
            ticked={ticked}
            onToggle={toggle}
            describedBy={error ? errorId : undefined}
          />
        </div>
      ) : null}
      {errorLine}
    </fieldset>
  );
}

/** What a credential reads, in words: "All accounts (…)" or its accounts' names. */
export function describeAccess(accounts: AccountOption[], accountIds: readonly string[] | null): string {
  if (accountIds === null) return ALL_ACCOUNTS_LABEL;
  const chosen = accounts.filter((a) => accountIds.includes(a.id));
  if (chosen.length === 0) return "No account (the chosen ones were removed): choose again";
  return chosen
    .map((a) => (a.hidden ? `${accountLabel(a)} (hidden from assistants)` : accountLabel(a)))
    .join(", ");
}
