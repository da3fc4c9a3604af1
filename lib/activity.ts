/**
 * The activity log: one `tool_calls` row per MCP tool call, shown on the dashboard's activity
 * page. It records who called what, through which credential, how it ended and how long it
 * took. Never the credential itself, never the arguments (they can name merchants and amounts).
 */
import { and, desc, eq, ne } from "drizzle-orm";
import type { Database } from "@/db";
import { apiKeys, oauthClients, toolCalls } from "@/db/schema";
import { defer } from "@/lib/deferred";

/** Through what a tool was called: an API key, an OAuth client, or the person on /dashboard/tools. */
export type CredentialKind = "api_key" | "oauth" | "dashboard";

export type ToolCallStatus = "ok" | "setup_required" | "invalid_arguments" | "error";

export interface ToolCallRecord {
  userId: string;
  credentialKind: CredentialKind;
  apiKeyId?: string | null;
  oauthClientId?: string | null;
  tool: string;
  status: ToolCallStatus;
  durationMs: number;
}

const rowOf = (call: ToolCallRecord) => ({
  userId: call.userId,
  credentialKind: call.credentialKind,
  apiKeyId: call.apiKeyId ?? null,
  oauthClientId: call.oauthClientId ?? null,
  tool: call.tool,
  status: call.status,
  durationMs: Math.max(0, Math.round(call.durationMs)),
});

const waiting = new Map<Database, ToolCallRecord[]>();

/**
 * Records a tool call after the answer has been sent: rows of calls that finish close together
 * go to the database in one insert.
 */
export function recordToolCallLater(db: Database, call: ToolCallRecord): void {
  const rows = waiting.get(db);
  if (rows) {
    rows.push(call);
    return;
  }
  waiting.set(db, [call]);
  defer("activity", async () => {
    const batch = waiting.get(db) ?? [];
    waiting.delete(db);
    if (batch.length > 0) await db.insert(toolCalls).values(batch.map(rowOf));
  });
}

export interface RecentToolCall {
  id: string;
  tool: string;
  status: string;
  durationMs: number;
  createdAt: Date;
  credentialKind: CredentialKind;
  /** The key's preview (`llk_AbCd…wxyz`) or name, or the OAuth client's name; null when gone. */
  credentialLabel: string | null;
}

/** The user's most recent tool calls, newest first, with a human label for the credential. */
export async function listRecentToolCalls(
  db: Database,
  userId: string,
  limit = 50,
): Promise<RecentToolCall[]> {
  const rows = await db
    .select({
      id: toolCalls.id,
      tool: toolCalls.tool,
      status: toolCalls.status,
      durationMs: toolCalls.durationMs,
      createdAt: toolCalls.createdAt,
      credentialKind: toolCalls.credentialKind,
      keyName: apiKeys.name,
      keyPreview: apiKeys.preview,
      clientName: oauthClients.clientName,
      clientId: oauthClients.clientId,
    })
    .from(toolCalls)
    // Joins are scoped by owner too: a key id of another user never labels this user's row.
    .leftJoin(apiKeys, and(eq(apiKeys.id, toolCalls.apiKeyId), eq(apiKeys.userId, toolCalls.userId)))
    .leftJoin(oauthClients, eq(oauthClients.clientId, toolCalls.oauthClientId))
    .where(eq(toolCalls.userId, userId))
    .orderBy(desc(toolCalls.createdAt))
    .limit(Math.min(Math.max(1, Math.trunc(limit)), 500));
  return rows.map((r) => ({
    id: r.id,
    tool: r.tool,
    status: r.status,
    durationMs: r.durationMs,
    createdAt: r.createdAt,
    credentialKind: r.credentialKind,
    credentialLabel:
      r.credentialKind === "dashboard"
        ? "Dashboard (you)"
        : r.credentialKind === "api_key"
          ? r.keyName
            ? `${r.keyName} (${r.keyPreview})`
            : null
          : (r.clientName ?? r.clientId ?? null),
  }));
}

/** True once a tool call of the user's assistant (not the dashboard's) answered with data: the end of set-up. */
export async function hasAnsweredCall(db: Database, userId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: toolCalls.id })
    .from(toolCalls)
    .where(
      and(
        eq(toolCalls.userId, userId),
        eq(toolCalls.status, "ok"),
        ne(toolCalls.credentialKind, "dashboard"),
      ),
    )
    .limit(1);
  return Boolean(row);
}
