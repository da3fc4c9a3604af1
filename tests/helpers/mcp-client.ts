/**
 * Helpers for driving the MCP endpoint in tests:
 * - `connectSdkClient` / `connectV2Client`: real MCP clients (@modelcontextprotocol/sdk 1.x and
 *   @modelcontextprotocol/client 2.x) over streamable HTTP with a bearer key;
 * - `rpc`: one raw JSON-RPC POST, answer parsed whether it came as JSON or as an event stream;
 * - `createUserInState`: a user with an API key in one of the demo states, built directly
 *   from rows (for tests that need a state without the whole synthetic bank).
 */
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { z } from "zod";
import type { Database } from "@/db";
import { bankAccounts, bankConnections, subscriptions, users } from "@/db/schema";
import { createApiKey } from "@/lib/api-keys";

// The six states of product.md's table, as the seed names them.
export { DEMO_STATES, type DemoState } from "@/db/seed";

import type { DemoState } from "@/db/seed";

/** The twelve tools' names in product order (product.md). */
export const TOOL_NAMES: string[] = [
  "get_financial_overview",
  "list_accounts",
  "search_transactions",
  "get_spending_breakdown",
  "get_cash_flow",
  "list_recurring",
  "get_upcoming_bills",
  "get_investments",
  "get_liabilities",
  "get_net_worth",
  "find_unusual_activity",
  "get_connection_status",
];

/** The six prompts' names (product.md). */
export const PROMPT_NAMES: string[] = [
  "monthly_review",
  "subscription_audit",
  "upcoming_bills_check",
  "debt_payoff_plan",
  "spending_deep_dive",
  "fix_bank_connections",
];

/** One warning of the tool envelope as clients see it (service-interface.md). */
export const warningSchema = z.object({
  code: z.string(),
  message: z.string(),
  institution: z.string().optional(),
  connection_id: z.string().optional(),
  action_url: z.string().optional(),
});

export interface StateUser {
  userId: string;
  email: string;
  state: DemoState;
  apiKey: string;
  apiKeyId: string;
  /** Connections created, oldest sync first. */
  connections: { id: string; institutionName: string; status: string; lastSyncedAt: Date }[];
}

const random = () => crypto.randomUUID().slice(0, 8);

/**
 * A user in `state` with one live API key. Active-like states get two banks (synced 1 and 3
 * hours before `now`); `reauth_required` marks the second one as needing re-authorization;
 * `multi_currency` keeps the second one's account in EUR.
 */
export async function createUserInState(
  db: Database,
  state: DemoState,
  now = new Date(),
): Promise<StateUser> {
  const email = `mcp-${state}-${random()}@test.ledgerlink.local`;
  const [user] = await db
    .insert(users)
    .values({ email, name: `MCP ${state}` })
    .returning({ id: users.id });
  if (!user) throw new Error("user not created");
  const status = {
    active: "active",
    none: null,
    canceled: "canceled",
    past_due: "past_due",
    no_connections: "active",
    reauth_required: "active",
    multi_currency: "active",
  }[state];
  if (status) {
    await db.insert(subscriptions).values({
      userId: user.id,
      provider: "local",
      customerId: `cus_${random()}${random()}`,
      subscriptionId: `sub_${random()}`,
      status,
    });
  }
  const connections: StateUser["connections"] = [];
  if (state !== "no_connections") {
    const banks = [
      { institutionName: "First Platypus Bank", hoursAgo: 1, status: "healthy" as const, currency: "USD" },
      {
        institutionName: "Tartan Credit Union",
        hoursAgo: 3,
        status: state === "reauth_required" ? ("reauth_required" as const) : ("healthy" as const),
        currency: state === "multi_currency" ? "EUR" : "USD",
      },
    ];
    for (const bank of banks) {
      const lastSyncedAt = new Date(now.getTime() - bank.hoursAgo * 3_600_000);
      const [conn] = await db
        .insert(bankConnections)
        .values({
          userId: user.id,
          provider: "sandbox",
          providerItemId: `item_${random()}${random()}`,
          institutionId: `ins_${random()}`,
          institutionName: bank.institutionName,
          status: bank.status,
          accessTokenCiphertext: "test-only",
          accessTokenKeyVersion: 1,
          lastSyncedAt,
        })
        .returning({ id: bankConnections.id });
      if (!conn) throw new Error("connection not created");
      await db.insert(bankAccounts).values({
        userId: user.id,
        connectionId: conn.id,
        providerAccountId: `acc_${random()}`,
        name: `${bank.institutionName} Checking`,
        currency: bank.currency,
        type: "depository",
        subtype: "checking",
        currentBalanceMinor: 123_45,
        balanceAsOf: lastSyncedAt,
      });
      connections.push({
        id: conn.id,
        institutionName: bank.institutionName,
        status: bank.status,
        lastSyncedAt,
      });
    }
  }
  const key = await createApiKey(db, user.id, "test key");
  connections.sort((a, b) => a.lastSyncedAt.getTime() - b.lastSyncedAt.getTime());
  return { userId: user.id, email, state, apiKey: key.key, apiKeyId: key.id, connections };
}

/** @modelcontextprotocol/sdk 1.x client, connected (initialize done). */
export async function connectSdkClient(url: string, apiKey: string) {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
  });
  const client = new Client({ name: "ledgerlink-test-sdk1", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport, close: () => client.close() };
}

/** @modelcontextprotocol/client 2.x client, connected; `versions` is what it offers (first = asked). */
export async function connectV2Client(url: string, apiKey: string, versions?: string[]) {
  const transport = new V2Transport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
  });
  const client = new V2Client(
    { name: "ledgerlink-test-v2", version: "1.0.0" },
    versions ? { supportedProtocolVersions: versions } : undefined,
  );
  await client.connect(transport);
  return { client, transport, close: () => client.close() };
}

/** How the 2.x client picks its protocol era (`ClientOptions.versionNegotiation.mode`). */
export type NegotiationMode = "legacy" | "auto" | { pin: string };

/** What a client sent and got on the wire: each POST's JSON-RPC method (or "batch") and HTTP status. */
export interface WireLog {
  exchanges: { method: string; status: number }[];
}

/**
 * @modelcontextprotocol/client 2.x in one of its negotiation modes, connected: `legacy` (the
 * 2025 `initialize`), `auto` (a `server/discover` probe, falling back to `initialize`) or
 * `{ pin: "2026-07-28" }` (the 2026-07-28 era or nothing). `wire` records every POST.
 */
export async function connectV2ClientIn(url: string, apiKey: string, mode: NegotiationMode) {
  const wire: WireLog = { exchanges: [] };
  const recording = async (input: string | URL | Request, init?: RequestInit) => {
    const response = await fetch(input, init);
    if ((init?.method ?? "GET") === "POST" && typeof init?.body === "string") {
      const body = JSON.parse(init.body) as { method?: string } | unknown[];
      wire.exchanges.push({
        method: Array.isArray(body) ? "batch" : (body.method ?? "response"),
        status: response.status,
      });
    }
    return response;
  };
  const transport = new V2Transport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
    fetch: recording,
  });
  const client = new V2Client(
    { name: "ledgerlink-test-v2", version: "1.0.0" },
    { versionNegotiation: { mode } },
  );
  await client.connect(transport);
  return { client, transport, wire, close: () => client.close() };
}

export interface RpcAnswer {
  status: number;
  headers: Headers;
  contentType: string;
  /** The JSON-RPC message (from a JSON body or the event stream), or the JSON body of an HTTP error. */
  body: unknown;
  text: string;
}

/** Parses the first JSON-RPC message out of an SSE body. */
export function parseSse(text: string): unknown {
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).replace(/^ /, ""))
      .join("\n");
    if (data) return JSON.parse(data);
  }
  return undefined;
}

/** One raw POST. `body` is sent as JSON unless it is already a string. */
export async function rpc(
  url: string,
  body: unknown,
  options: { apiKey?: string; headers?: Record<string, string>; accept?: string; signal?: AbortSignal } = {},
): Promise<RpcAnswer> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: options.accept ?? "application/json, text/event-stream",
    ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
    ...options.headers,
  };
  const res = await fetch(url, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
    signal: options.signal,
  });
  const text = await res.text();
  const contentType = res.headers.get("content-type") ?? "";
  let parsed: unknown;
  if (contentType.startsWith("text/event-stream")) parsed = parseSse(text);
  else if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
  }
  return { status: res.status, headers: res.headers, contentType, body: parsed, text };
}

/** The 2026-07-28 per-request `_meta` a client sends with every request. */
export const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "raw-test", version: "1.0.0" },
};

/**
 * A 2026-07-28 request as a client sends it: `_meta` in its params, and the headers that mirror
 * the body (`MCP-Protocol-Version`, `Mcp-Method`, and `Mcp-Name` for a named tool or prompt).
 */
export function modernRequest(
  method: string,
  params: Record<string, unknown> = {},
  id: number | string = 1,
): { body: unknown; headers: Record<string, string> } {
  const name = typeof params.name === "string" ? params.name : undefined;
  return {
    body: { jsonrpc: "2.0", id, method, params: { ...params, _meta: MODERN_META } },
    headers: {
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(name !== undefined && (method === "tools/call" || method === "prompts/get")
        ? { "mcp-name": name }
        : {}),
    },
  };
}

/** An initialize request asking for `protocolVersion`. */
export function initializeRequest(protocolVersion: string, id: number | string = 1) {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw-test", version: "1.0.0" } },
  };
}
