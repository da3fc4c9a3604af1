import { getDb } from "@/db";
import { authenticateClient, readClientCredentials } from "@/lib/oauth/clients";
import { NO_STORE_HEADERS, OAuthError, oauthErrorResponse } from "@/lib/oauth/errors";
import { preflightResponse, readForm, withCors } from "@/lib/oauth/http";
import { revokeToken } from "@/lib/oauth/tokens";

export const dynamic = "force-dynamic";

// OPTIONS /api/oauth/revoke – CORS preflight for browser-based clients
export function OPTIONS() {
  return preflightResponse();
}

// POST /api/oauth/revoke – token revocation (RFC 7009 §2): 200 for unknown or foreign tokens too
export async function POST(request: Request) {
  let viaBasic = false;
  try {
    const form = await readForm(request);
    const credentials = readClientCredentials(request, form);
    viaBasic = credentials.viaBasic;
    const db = await getDb();
    const client = await authenticateClient(db, credentials);
    const token = form.get("token");
    if (!token) throw new OAuthError("invalid_request", "token is required.");
    await revokeToken(db, client, token);
    return withCors(new Response(null, { status: 200, headers: NO_STORE_HEADERS }));
  } catch (error) {
    return withCors(oauthErrorResponse(error, { basicChallenge: viaBasic }));
  }
}
