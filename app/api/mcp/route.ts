/**
 * The MCP endpoint (stateless streamable HTTP). Everything it does is in lib/mcp/server.ts:
 * Origin and protocol-version checks, bearer auth, rate limit, body limits, then the MCP server
 * with the 12 tools and 6 prompts.
 */
import { createMcpEndpoint, methodNotAllowed } from "@/lib/mcp/server";

const endpoint = createMcpEndpoint();

// POST /api/mcp – one JSON-RPC message in, its answer out (JSON or SSE as Accept asks)
export async function POST(req: Request): Promise<Response> {
  return endpoint(req);
}

// GET /api/mcp – 405: stateless, so no server-initiated stream
export async function GET(): Promise<Response> {
  return methodNotAllowed();
}

// DELETE /api/mcp – 405: no sessions to end
export async function DELETE(): Promise<Response> {
  return methodNotAllowed();
}

// PUT|PATCH /api/mcp – 405 with Allow (Next's own 405 carries none)
export { methodNotAllowed as PATCH, methodNotAllowed as PUT };
