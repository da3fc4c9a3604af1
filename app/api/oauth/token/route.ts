import { notAllowed } from "@/lib/http";
import { NO_STORE_HEADERS, OAuthError } from "@/lib/oauth/errors";
import { handleClientRequest, preflightResponse } from "@/lib/oauth/http";
import { exchangeAuthorizationCode, refreshAccessToken } from "@/lib/oauth/tokens";

export const dynamic = "force-dynamic";

// OPTIONS /api/oauth/token – CORS preflight for browser-based clients
export function OPTIONS() {
  return preflightResponse();
}

// POST /api/oauth/token – authorization_code (PKCE) and refresh_token grants (RFC 6749 §3.2, OAuth 2.1)
export async function POST(request: Request) {
  return handleClientRequest(
    request,
    async ({ db, client, form }) => {
      const grantType = form.get("grant_type");
      let body: unknown;
      if (grantType === "authorization_code") body = await exchangeAuthorizationCode(db, client, form);
      else if (grantType === "refresh_token") body = await refreshAccessToken(db, client, form);
      else if (!grantType) throw new OAuthError("invalid_request", "grant_type is required.");
      else
        throw new OAuthError(
          "unsupported_grant_type",
          "Supported grants: authorization_code, refresh_token.",
        );
      return Response.json(body, { headers: NO_STORE_HEADERS });
    },
    { limit: "token" },
  );
}

const otherMethods = notAllowed("POST");

export { otherMethods as DELETE, otherMethods as GET, otherMethods as PATCH, otherMethods as PUT };
