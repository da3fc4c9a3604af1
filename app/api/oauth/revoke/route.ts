import { notAllowed } from "@/lib/http";
import { NO_STORE_HEADERS, OAuthError } from "@/lib/oauth/errors";
import { handleClientRequest, preflightResponse } from "@/lib/oauth/http";
import { revokeToken } from "@/lib/oauth/tokens";

export const dynamic = "force-dynamic";

// OPTIONS /api/oauth/revoke – CORS preflight for browser-based clients
export function OPTIONS() {
  return preflightResponse();
}

// POST /api/oauth/revoke – token revocation (RFC 7009 §2): 200 for unknown or foreign tokens too
export async function POST(request: Request) {
  return handleClientRequest(request, async ({ db, client, form }) => {
    const token = form.get("token");
    if (!token) throw new OAuthError("invalid_request", "token is required.");
    await revokeToken(db, client, token);
    return new Response(null, { status: 200, headers: NO_STORE_HEADERS });
  });
}

const otherMethods = notAllowed("POST");

export { otherMethods as DELETE, otherMethods as GET, otherMethods as PATCH, otherMethods as PUT };
