import { CopyButton } from "./copy-button";

/** The full key, once, with a copy button and a plain warning. */
export function NewKeyNotice({ name, apiKey, note }: { name: string; apiKey: string; note?: string }) {
  return (
    <div
      role="status"
      className="mt-4 rounded-md border border-amber-300 bg-amber-50 p-4"
      data-testid="new-key"
    >
      <p className="text-sm font-medium text-amber-950">
        Your new key “{name}”. Copy it now: you will not see this again.
      </p>
      {note ? <p className="mt-1 text-sm text-amber-900">{note}</p> : null}
      <div className="mt-2 flex flex-wrap items-center gap-2">
        <code
          className="min-w-0 flex-1 break-all rounded bg-white px-2 py-1.5 font-mono text-sm text-slate-900 ring-1 ring-amber-200"
          data-testid="new-key-value"
        >
          {apiKey}
        </code>
        <CopyButton value={apiKey} label="Copy key" />
      </div>
    </div>
  );
}
