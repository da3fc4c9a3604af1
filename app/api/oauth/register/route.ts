import { getDb } from "@/db";
import { notAllowed } from "@/lib/http";
import { clientInformationResponse, registerClient } from "@/lib/oauth/clients";
import { NO_STORE_HEADERS, oauthErrorResponse } from "@/lib/oauth/errors";
import { limitByAddress, preflightResponse, readJson, withCors } from "@/lib/oauth/http";

export const dynamic = "force-dynamic";

// OPTIONS /api/oauth/register – CORS preflight for browser-based clients
export function OPTIONS() {
  return preflightResponse();
}

// POST /api/oauth/register – Dynamic Client Registration (RFC 7591 §3)
export async function POST(request: Request) {
  try {
    const db = await getDb();
    await limitByAddress(db, request, "register");
    const body = await readJson(request);
    const registered = await registerClient(db, body);
    return withCors(
      Response.json(clientInformationResponse(registered), { status: 201, headers: NO_STORE_HEADERS }),
    );
  } catch (error) {
    return withCors(oauthErrorResponse(error));
  }
}

const otherMethods = notAllowed("POST");

export { otherMethods as DELETE, otherMethods as GET, otherMethods as PATCH, otherMethods as PUT };
