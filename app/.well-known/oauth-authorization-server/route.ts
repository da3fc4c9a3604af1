import { notAllowed } from "@/lib/http";
import { preflightResponse, withCors } from "@/lib/oauth/http";
import { authorizationServerMetadata } from "@/lib/oauth/metadata";

export const dynamic = "force-dynamic";

// OPTIONS /.well-known/oauth-authorization-server – CORS preflight
export function OPTIONS() {
  return preflightResponse();
}

// GET /.well-known/oauth-authorization-server – authorization-server metadata (RFC 8414 §3)
export function GET() {
  return withCors(
    Response.json(authorizationServerMetadata(), { headers: { "Cache-Control": "public, max-age=300" } }),
  );
}

const otherMethods = notAllowed("GET");

export { otherMethods as DELETE, otherMethods as PATCH, otherMethods as POST, otherMethods as PUT };
