/**
 * RFC 9728 protected-resource metadata at the root well-known path, for clients that look here
 * before trying the path-suffixed form. Same document as …/api/mcp.
 */
import { metadataCorsOptionsRequestHandler } from "mcp-handler";
import { notAllowed } from "@/lib/http";
import { protectedResourceMetadata } from "@/lib/oauth/metadata";

// Built from APP_URL at request time, never frozen at build time.
export const dynamic = "force-dynamic";

const CORS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "GET, OPTIONS",
  "Access-Control-Allow-Headers": "*",
  "Access-Control-Max-Age": "86400",
};

// GET /.well-known/oauth-protected-resource – where to get a token for /api/mcp
export async function GET(): Promise<Response> {
  return Response.json(protectedResourceMetadata(), {
    headers: { ...CORS, "Cache-Control": "public, max-age=3600" },
  });
}

// OPTIONS /.well-known/oauth-protected-resource – CORS preflight for browser-based clients
export const OPTIONS = metadataCorsOptionsRequestHandler();

// Anything else – 405 naming GET (Next's own 405 carries no Allow)
const otherMethods = notAllowed("GET");

export { otherMethods as DELETE, otherMethods as PATCH, otherMethods as POST, otherMethods as PUT };
