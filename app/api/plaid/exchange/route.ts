import { z } from "zod";
import { getDb } from "@/db";
import { linkConnection, reconnectConnection, requireConnection } from "@/lib/banking/connections";
import { errorResponse, parseJsonBody, requirePlaidRouteUser } from "@/lib/banking/plaid/http";
import type { SyncSummary } from "@/lib/banking/sync";
import { AppError } from "@/lib/errors";
import { notAllowed } from "@/lib/http";

export const dynamic = "force-dynamic";
// The first sync of a new bank reads up to two years of history.
export const maxDuration = 120;

const exchangeRequestSchema = z.union([
  z.object({ public_token: z.string().min(1).max(500) }),
  z.object({ mode: z.literal("update"), connection_id: z.string().min(1).max(100) }),
]);

function summaryBody(summary: SyncSummary) {
  return {
    connection_id: summary.connectionId,
    status: summary.status,
    accounts: summary.accounts,
    transactions_added: summary.added,
    ...(summary.error ? { error: { code: summary.error.code, message: summary.error.message } } : {}),
  };
}

// POST /api/plaid/exchange – Link succeeded: store the new item and run its first sync, or finish a Reconnect
export async function POST(request: Request): Promise<Response> {
  try {
    const user = await requirePlaidRouteUser(request);
    const input = await parseJsonBody(request, exchangeRequestSchema);
    const db = await getDb();
    if ("public_token" in input) {
      // The public token is exchanged on the server; the access token never reaches the browser.
      const { sync } = await linkConnection(db, {
        userId: user.id,
        provider: "plaid",
        publicToken: input.public_token,
      });
      return Response.json(summaryBody(sync), { headers: { "cache-control": "no-store" } });
    }
    const connection = await requireConnection(db, user.id, input.connection_id);
    if (connection.provider !== "plaid") {
      throw new AppError("invalid_input", "This bank was not linked through Plaid.", {
        field: "connection_id",
      });
    }
    const sync = await reconnectConnection(db, user.id, input.connection_id);
    return Response.json(summaryBody(sync), { headers: { "cache-control": "no-store" } });
  } catch (error) {
    return errorResponse(error, "plaid exchange");
  }
}

const otherMethods = notAllowed("POST");

export { otherMethods as DELETE, otherMethods as GET, otherMethods as PATCH, otherMethods as PUT };
