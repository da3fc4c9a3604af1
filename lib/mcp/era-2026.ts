/**
 * The 2026-07-28 era: stateless, no `initialize`. `server/discover` names the revisions,
 * capabilities and server, and every request carries its own `_meta` (protocol version, client
 * capabilities, client info). All of it is the MCP SDK's: `createMcpHandler` with `legacy:
 * 'reject'` checks the `_meta` (-32602), the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`
 * headers against the body (400, -32020), answers an unknown revision with the supported list
 * (400, -32022) and a removed or unknown method with 404 (-32601), stamps `resultType`,
 * `ttlMs`/`cacheScope` and the server's identity on results, and gives every error its request's
 * id. This file only hands it the request (its body already parsed) and the caller.
 * https://modelcontextprotocol.io/specification/2026-07-28/basic/lifecycle
 */
import { createMcpHandler, ProtocolError } from "@modelcontextprotocol/server";
import { failureFields } from "@/lib/errors";
import { log } from "@/lib/log";
import { readWhole } from "./answer";
import { buildMcpServer, type ServerProfile } from "./build-server";
import type { ToolDefinition } from "./define-tool";
import type { Era } from "./era";

/** The revisions `server/discover` offers (the SDK implements this one). */
export const MODERN_PROTOCOL_VERSIONS = ["2026-07-28"] as const;

const PROFILE: ServerProfile = {
  protocolVersions: MODERN_PROTOCOL_VERSIONS,
  icons: true,
  listChanged: false,
};

/**
 * Failures the SDK reports besides its answer. Refusals of a client's request (a bad `_meta`, a
 * header that disagrees with the body, an unknown revision) are answers, not failures; anything
 * else is logged by its kind only (a message could quote the request).
 */
function reportFailure(error: Error): void {
  if (error instanceof ProtocolError || /^(Rejected |Unsupported Media Type)/.test(error.message)) return;
  log.error("mcp.serving_failed", { era: "2026-07-28", ...failureFields(error) });
}

/** The 2026-07-28 era of an endpoint serving `tools`. */
export function createEra2026(tools: readonly ToolDefinition[]): Era {
  const handler = createMcpHandler(() => buildMcpServer(PROFILE, tools), {
    legacy: "reject",
    onerror: reportFailure,
  });
  return {
    // The SDK checks this era's headers against the body when it serves the request.
    refuseEarly: () => undefined,
    // No batches in this era: a batch holding a 2026-07-28 request is the SDK's to refuse.
    admit: () => ({ cost: 1 }),
    // Read whole, like the 2025 era's: this server declares no list changes, so even a
    // `subscriptions/listen` stream is acknowledged and closed at once.
    serve: async (req, request, authInfo) =>
      readWhole(await handler.fetch(req, { authInfo, parsedBody: request.message })),
  };
}
