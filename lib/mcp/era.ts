/**
 * A protocol era as the endpoint (server.ts) drives it. request.ts decides which era a request
 * belongs to; the endpoint then asks that era, and only it, about the request's headers, its
 * cost and its answer: era-2025.ts (initialize and the stateless 2025 transport) and
 * era-2026.ts (server/discover and per-request `_meta`, both through the MCP SDK).
 */
import type { AuthInfo } from "@modelcontextprotocol/server";
import type { Answer } from "./answer";
import type { McpRequest } from "./request";

export interface Era {
  /** What this era refuses before the caller is looked up (no database work), such as a header. */
  refuseEarly(req: Request, request: McpRequest): Response | undefined;
  /**
   * How many requests this one counts as against the rate limit, and what it refuses once it is
   * counted (a JSON-RPC batch against the era's rules).
   */
  admit(req: Request, request: McpRequest): { cost: number; refusal?: Response };
  /** The SDK's answer, read whole, for the caller in `authInfo`. */
  serve(req: Request, request: McpRequest, authInfo: AuthInfo): Promise<Answer>;
}
