import { CopyButton } from "./copy-button";

/**
 * The full key, once, with a copy button and a plain warning; with `mcpUrl`, also the ready
 * command for Claude Code with this key (right after creation only: the key is never shown
 * again). No install link carries the key: secrets never go into URLs; the one-click installs
 * on the overview carry the MCP URL alone and sign in with OAuth.
 */
export function NewKeyNotice({
  name,
  apiKey,
  note,
  mcpUrl,
}: {
  name: string;
  apiKey: string;
  note?: string;
  mcpUrl?: string;
}) {
  const claudeCode = mcpUrl
    ? `claude mcp add --transport http ledgerlink ${mcpUrl} --header "Authorization: Bearer ${apiKey}"`
    : null;

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
      {claudeCode ? (
        <div className="mt-3 space-y-2 text-sm text-amber-950">
          <p>Claude Code, with this key:</p>
          <div className="flex flex-wrap items-center gap-2">
            <code className="min-w-0 flex-1 break-all rounded bg-white px-2 py-1.5 font-mono text-xs text-slate-900 ring-1 ring-amber-200">
              {claudeCode}
            </code>
            <CopyButton value={claudeCode} label="Copy Claude Code command" />
          </div>
        </div>
      ) : null}
    </div>
  );
}
