/**
 * The MCP server one request is served by: the same 12 tools and 6 prompts for every era, built
 * from pre-built parts (register.ts) for each request. What an era changes is data, its
 * `ServerProfile`: the revisions it negotiates and whether its listings carry icons.
 */
import type { CacheHint } from "@modelcontextprotocol/server";
import { McpServer } from "@modelcontextprotocol/server";
import { getEnv } from "@/lib/env";
import type { ToolDefinition } from "./define-tool";
import { iconsOf, SERVER_ICON, toolIcon } from "./icons";
import { registerPrompts } from "./prompts";
import { registerTools } from "./register";

const SERVER_INFO = { name: "ledgerlink", version: "1.0.0" };

const INSTRUCTIONS =
  "Ledgerlink gives read-only access to the user's linked bank accounts. Amounts are decimals in the account's currency; money out is negative. Dates are read in the user's timezone with both ends included: a period (this_month and year_to_date run to today) or start_date/end_date (YYYY-MM-DD). Every tool answers an envelope: status ok or setup_required (with setup_url to finish setup), data, warnings [{code, message, institution?, connection_id?, action_url?}] (NO_CONNECTIONS, REAUTH_REQUIRED, MIXED_CURRENCIES …), as_of (the oldest sync the data rests on) and, for lists with more rows, page {has_more, total_count, next_cursor?}. Fields that would be null are left out. Start with get_financial_overview or get_connection_status.";

/**
 * How long a client may reuse the tool and prompt lists (2026-07-28 `ttlMs`): they change only
 * with a deployment. `private`: every answer is given to one credential (its person's state
 * shows in no list today, but nothing here promises a list the same for everyone). The SDK
 * writes these only into 2026-07-28 answers.
 * https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching
 */
const LIST_CACHE_HINT: CacheHint = { ttlMs: 60 * 60 * 1000, cacheScope: "private" };

/** What differs between the servers of two eras, as data. */
export interface ServerProfile {
  /** The revisions `initialize` (2025) or `server/discover` (2026-07-28) offers, preferred first. */
  protocolVersions: readonly string[];
  /** Whether the server and its tools list their icons (the vocabulary of 2025-11-25 on). */
  icons: boolean;
  /**
   * Whether the server says its tool and prompt lists may change during a connection (the SDK's
   * default, which the 2025 era has always said; its stateless clients have no stream to hear
   * it on). They change only with a deployment: the 2026-07-28 era says so, and a
   * `subscriptions/listen` stream is then acknowledged and closed at once instead of waiting
   * open for a change that never comes.
   */
  listChanged: boolean;
}

/** A fresh server for one request, with the endpoint's tools and the six prompts. */
export function buildMcpServer(profile: ServerProfile, tools: readonly ToolDefinition[]): McpServer {
  const appUrl = getEnv().APP_URL;
  const server = new McpServer(
    profile.icons
      ? { ...SERVER_INFO, title: "Ledgerlink", icons: iconsOf(SERVER_ICON, appUrl) }
      : SERVER_INFO,
    {
      instructions: INSTRUCTIONS,
      capabilities: {
        tools: { listChanged: profile.listChanged },
        prompts: { listChanged: profile.listChanged },
      },
      supportedProtocolVersions: [...profile.protocolVersions],
      cacheHints: {
        "tools/list": LIST_CACHE_HINT,
        "prompts/list": LIST_CACHE_HINT,
        "server/discover": LIST_CACHE_HINT,
      },
    },
  );
  registerTools(server, tools, profile.icons ? { iconsOf: (name) => iconsOf(toolIcon(name), appUrl) } : {});
  registerPrompts(server);
  return server;
}
