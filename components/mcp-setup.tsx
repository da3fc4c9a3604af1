import { CodeBlock } from "./code-block";

/** Copy-paste set-ups for common MCP clients. `<your-key>` stays a placeholder: keys are shown once, elsewhere. */
export function McpSetup({ mcpUrl }: { mcpUrl: string }) {
  const key = "<your-key>";
  const claudeCode = `claude mcp add --transport http ledgerlink ${mcpUrl} --header "Authorization: Bearer ${key}"`;
  const claudeDesktop = JSON.stringify(
    {
      mcpServers: {
        ledgerlink: {
          command: "npx",
          // biome-ignore lint/suspicious/noTemplateCurlyInString: mcp-remote expands this from env.
          args: ["-y", "mcp-remote", mcpUrl, "--header", "Authorization:${LEDGERLINK_AUTH}"],
          env: { LEDGERLINK_AUTH: `Bearer ${key}` },
        },
      },
    },
    null,
    2,
  );
  const cursor = JSON.stringify(
    { mcpServers: { ledgerlink: { url: mcpUrl, headers: { Authorization: `Bearer ${key}` } } } },
    null,
    2,
  );
  const vscode = JSON.stringify(
    {
      inputs: [
        { type: "promptString", id: "ledgerlink-key", description: "Ledgerlink API key", password: true },
      ],
      servers: {
        ledgerlink: {
          type: "http",
          url: mcpUrl,
          // biome-ignore lint/suspicious/noTemplateCurlyInString: VS Code's input variable syntax.
          headers: { Authorization: "Bearer ${input:ledgerlink-key}" },
        },
      },
    },
    null,
    2,
  );
  // One-click installs: the URL alone, so the editor signs in through OAuth (no key to paste).
  const cursorLink = `cursor://anysphere.cursor-deeplink/mcp/install?name=ledgerlink&config=${encodeURIComponent(
    Buffer.from(JSON.stringify({ url: mcpUrl })).toString("base64"),
  )}`;
  const vscodeLink = `vscode:mcp/install?${encodeURIComponent(JSON.stringify({ name: "ledgerlink", type: "http", url: mcpUrl }))}`;
  return (
    <div className="space-y-5">
      <div>
        <p className="text-sm font-medium text-slate-800">Your MCP URL</p>
        <CodeBlock code={mcpUrl} label="MCP URL" copyLabel="Copy MCP URL" />
        <p className="mt-2 text-xs text-slate-600">
          Claude and ChatGPT: add a custom connector with this URL; they sign in with OAuth, no key needed.
        </p>
      </div>
      <div className="flex flex-wrap gap-3">
        <a
          href={cursorLink}
          className="rounded-md border border-slate-300 px-3 py-1.5 text-sm hover:bg-slate-50"
        >
          Add to Cursor
        </a>
        <a
          href={vscodeLink}
          className="rounded-md border border-slate-300 px-3 py-1.5 text-sm hover:bg-slate-50"
        >
          Add to VS Code
        </a>
      </div>
      <div>
        <h3 className="text-sm font-medium text-slate-800">Claude Code</h3>
        <CodeBlock code={claudeCode} label="Claude Code command" />
      </div>
      <div>
        <h3 className="text-sm font-medium text-slate-800">
          Claude Desktop <span className="font-normal text-slate-500">(claude_desktop_config.json)</span>
        </h3>
        <CodeBlock code={claudeDesktop} label="Claude Desktop configuration" />
      </div>
      <div>
        <h3 className="text-sm font-medium text-slate-800">
          Cursor <span className="font-normal text-slate-500">(~/.cursor/mcp.json)</span>
        </h3>
        <CodeBlock code={cursor} label="Cursor configuration" />
      </div>
      <div>
        <h3 className="text-sm font-medium text-slate-800">
          VS Code{" "}
          <span className="font-normal text-slate-500">(.vscode/mcp.json; asks for the key once)</span>
        </h3>
        <CodeBlock code={vscode} label="VS Code configuration" />
      </div>
      <p className="text-xs text-slate-500">
        Replace {key} with a key from the API keys page. Apps can use OAuth instead: no key to copy.
      </p>
    </div>
  );
}
