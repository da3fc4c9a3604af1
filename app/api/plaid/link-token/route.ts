import { z } from "zod";
import { getDb } from "@/db";
import { createLinkTokenFor, requireConnection } from "@/lib/banking/connections";
import { errorResponse, parseJsonBody, requirePlaidRouteUser } from "@/lib/banking/plaid/http";
import { AppError } from "@/lib/errors";
import { notAllowed } from "@/lib/http";

export const dynamic = "force-dynamic";

const linkTokenRequestSchema = z.object({
  /** Set for Reconnect: Link opens in update mode for this connection. */
  connection_id: z.string().min(1).max(100).optional(),
});

// POST /api/plaid/link-token – a Plaid Link token for the signed-in user (update mode with connection_id)
export async function POST(request: Request): Promise<Response> {
  try {
    const user = await requirePlaidRouteUser(request);
    const input = await parseJsonBody(request, linkTokenRequestSchema);
    const db = await getDb();
    if (input.connection_id) {
      const connection = await requireConnection(db, user.id, input.connection_id);
      if (connection.provider !== "plaid") {
        throw new AppError("invalid_input", "This bank was not linked through Plaid.", {
          field: "connection_id",
        });
      }
    }
    const token = await createLinkTokenFor(db, user.id, {
      provider: "plaid",
      connectionId: input.connection_id,
    });
    return Response.json(
      { link_token: token.linkToken, expiration: token.expiration.toISOString() },
      { headers: { "cache-control": "no-store" } },
    );
  } catch (error) {
    return errorResponse(error, "plaid link-token");
  }
}

const otherMethods = notAllowed("POST");

export { otherMethods as DELETE, otherMethods as GET, otherMethods as PATCH, otherMethods as PUT };
