/**
 * The activity log: one `tool_calls` row per MCP tool call, shown on the dashboard's activity
 * page. It records who called what, through which credential, how it ended and how long it
 * took. Never the credential itself, never the arguments (they can name merchants and amounts).
 */
import { and, desc, eq, ne, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { fixedStatement, runFixed } from "@/db/fixed-statement";
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

const p = sql.placeholder;

/** One statement for a batch of any size (its rows as arrays), so its text never changes. */
const insertCalls = fixedStatement(
  sql`insert into tool_calls (id, user_id, credential_kind, api_key_id, oauth_client_id, tool, status, duration_ms)
      select * from unnest(${p("ids")}::text[], ${p("users")}::text[], ${p("kinds")}::text[],
        ${p("keys")}::text[], ${p("clients")}::text[], ${p("tools")}::text[], ${p("statuses")}::text[],
        ${p("durations")}::int[])`,
);

function insertToolCalls(db: Database, calls: ToolCallRecord[]): Promise<unknown> {
  return runFixed(db, insertCalls, {
    ids: calls.map(() => crypto.randomUUID()),
    users: calls.map((c) => c.userId),
    kinds: calls.map((c) => c.credentialKind),
    keys: calls.map((c) => c.apiKeyId ?? null),
    clients: calls.map((c) => c.oauthClientId ?? null),
    tools: calls.map((c) => c.tool),
    statuses: calls.map((c) => c.status),
    durations: calls.map((c) => Math.max(0, Math.round(c.durationMs))),
  });
}

interface Batch {
  rows: ToolCallRecord[];
  written?: Promise<void>;
}

/** Per database: the insert under way, and the batch that is filling up behind it. */
const writers = new WeakMap<Database, { current?: Promise<void>; next?: Batch }>();

/**
 * Records a tool call after the answer has been sent. One insert at a time per database: calls
 * that finish while an insert is under way join one batch, written as soon as that insert ends,
 * so under load many calls cost one statement. Each call's deferred task ends when its own batch
 * has been written (or its insert has failed, logged once), so `after()` keeps the function
 * alive for it and `settleDeferred()` at shutdown loses nothing.
 */
export function recordToolCallLater(db: Database, call: ToolCallRecord): void {
  let writer = writers.get(db);
  if (!writer) {
    writer = {};
    writers.set(db, writer);
  }
  const state = writer;
  const batch = state.next ?? { rows: [] };
  state.next = batch;
  batch.rows.push(call);
  defer("activity", () => {
    if (batch.written) return batch.written.catch(() => undefined);
    const previous = state.current;
    batch.written = (async () => {
      await previous;
      if (state.next === batch) state.next = undefined; // later calls start the next batch
      await insertToolCalls(db, batch.rows);
    })();
    state.current = batch.written.catch(() => undefined);
    return batch.written;
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
