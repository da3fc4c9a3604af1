/**
 * The MCP endpoint's HTTP contract, over real HTTP against the real route module
 * (app/api/mcp/route.ts) and, for the gate/envelope/activity behaviour, the same endpoint factory
 * with small throwaway tools: negotiation, every 401 case, 403/400/405/413/-32700/503/429,
 * JSON vs SSE answers, discovery documents, the access gate and the activity log.
 */
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { rateLimits, toolCalls } from "@/db/schema";
import { listRecentToolCalls } from "@/lib/activity";
import { createApiKey, generateApiKey, revokeApiKey, rotateApiKey } from "@/lib/api-keys";
import { resetEnvCache } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { defineTool, type ToolDefinition } from "@/lib/mcp/define-tool";
import { createMcpEndpoint, methodNotAllowed } from "@/lib/mcp/server";
import { useTestDatabase, whileDatabaseDown } from "../helpers/db";
import { withEnv } from "../helpers/env";
import {
  createUserInState,
  DEMO_STATES,
  initializeRequest,
  rpc,
  type StateUser,
  warningSchema,
} from "../helpers/mcp-client";
import { type ServedRoutes, serveRoutes } from "../helpers/serve";

const getDb = useTestDatabase();

const PERIODS = ["this_month", "last_month", "last_30_days"] as const;

// Throwaway tools: they exercise registerTools without depending on the real twelve.
const echoTool = defineTool({
  name: "echo_context",
  title: "Echo context",
  description: "Returns what the tool context says (test only).",
  input: z.strictObject({
    period: z.enum(PERIODS).default("this_month"),
    limit: z.number().int().min(1).max(250).default(50),
  }),
  data: z.object({
    period: z.string(),
    limit: z.number(),
    userId: z.string(),
    timezone: z.string(),
    banks: z.number(),
  }),
  run: async (args, ctx) => ({
    data: {
      period: args.period,
      limit: args.limit,
      userId: ctx.userId,
      timezone: ctx.timezone,
      banks: ctx.access.connections.length,
    },
    warnings: [{ code: "TOOL_NOTE", message: "a tool's own warning" }],
    page: { has_more: false, total_count: 1 },
  }),
});
const badInputTool = defineTool({
  name: "rejects_input",
  title: "Rejects input",
  description: "Always throws invalid_input (test only).",
  input: z.strictObject({}),
  data: z.object({}),
  run: async () => {
    throw new AppError("invalid_input", 'Argument "cursor" is not a cursor this tool issued.');
  },
});
const crashingTool = defineTool({
  name: "crashes",
  title: "Crashes",
  description: "Always throws an unexpected error (test only).",
  input: z.strictObject({}),
  data: z.object({}),
  run: async () => {
    throw new Error("secret internal detail: connection string postgres://user:pw@host");
  },
});
const needsQueryTool = defineTool({
  name: "needs_query",
  title: "Needs a query",
  description: "Has a required argument (test only).",
  input: z.strictObject({ query: z.string().min(1), types: z.array(z.enum(["credit", "loan"])).optional() }),
  data: z.object({ query: z.string() }),
  run: async (args) => ({ data: { query: args.query } }),
});
const testTools = [echoTool, badInputTool, crashingTool, needsQueryTool] as unknown as ToolDefinition[];

let server: ServedRoutes;
let mcpUrl: string;
let toolsUrl: string;
const users: Partial<Record<StateUser["state"], StateUser>> = {};

beforeAll(async () => {
  server = await serveRoutes({
    "/api/mcp": () => import("@/app/api/mcp/route"),
    "/test/mcp": async () => ({ POST: createMcpEndpoint({ tools: testTools }), GET: methodNotAllowed }),
    "/.well-known/oauth-protected-resource": () => import("@/app/.well-known/oauth-protected-resource/route"),
    "/.well-known/oauth-protected-resource/api/mcp": () =>
      import("@/app/.well-known/oauth-protected-resource/api/mcp/route"),
  });
  mcpUrl = server.url("/api/mcp");
  toolsUrl = server.url("/test/mcp");
  for (const state of DEMO_STATES) users[state] = await createUserInState(getDb(), state);
});

afterAll(async () => {
  await server?.close();
});

function user(state: StateUser["state"]): StateUser {
  const u = users[state];
  if (!u) throw new Error(`no ${state} user`);
  return u;
}

const listTools = { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} };
const callTool = (name: string, args: Record<string, unknown> = {}, id = 3) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

const resultOf = (body: unknown) =>
  z.object({ result: z.record(z.string(), z.unknown()) }).parse(body).result;
const errorOf = (body: unknown) =>
  z.object({ error: z.object({ code: z.number(), message: z.string() }) }).parse(body).error;

describe("protocol revision negotiation", () => {
  for (const version of ["2025-06-18", "2025-03-26", "2024-11-05"]) {
    it(`answers ${version} to a client asking for ${version}`, async () => {
      const answer = await rpc(mcpUrl, initializeRequest(version), { apiKey: user("active").apiKey });
      expect(answer.status).toBe(200);
      expect(resultOf(answer.body).protocolVersion).toBe(version);
    });
  }
  for (const version of ["2025-11-25", "2026-07-28", "1999-01-01", "banana"]) {
    it(`answers 2025-06-18 to a client asking for ${version}`, async () => {
      const answer = await rpc(mcpUrl, initializeRequest(version), { apiKey: user("active").apiKey });
      expect(answer.status).toBe(200);
      expect(resultOf(answer.body).protocolVersion).toBe("2025-06-18");
    });
  }

  it("starts over cleanly when initialize is sent again, and needs no session", async () => {
    const key = user("active").apiKey;
    const first = await rpc(mcpUrl, initializeRequest("2024-11-05"), { apiKey: key });
    expect(resultOf(first.body).protocolVersion).toBe("2024-11-05");
    expect(first.headers.get("mcp-session-id")).toBeNull();
    const again = await rpc(mcpUrl, initializeRequest("2025-06-18", 9), { apiKey: key });
    expect(resultOf(again.body).protocolVersion).toBe("2025-06-18");
    const list = await rpc(mcpUrl, listTools, {
      apiKey: key,
      headers: { "mcp-protocol-version": "2025-06-18" },
    });
    expect(list.status).toBe(200);
    expect(Array.isArray(resultOf(list.body).tools)).toBe(true);
  });

  for (const header of ["2099-01-01", "nonsense", "2025-06-18x", ""]) {
    it(`refuses MCP-Protocol-Version: ${JSON.stringify(header)} with 400`, async () => {
      const answer = await rpc(mcpUrl, listTools, {
        apiKey: user("active").apiKey,
        headers: { "mcp-protocol-version": header },
      });
      expect(answer.status).toBe(400);
      expect(answer.text).toContain("2025-06-18");
    });
  }

  it("serves a 2025-era request whose MCP-Protocol-Version names any revision we know", async () => {
    // Some clients send the newest revision they know after negotiating 2025-06-18.
    for (const header of ["2025-06-18", "2025-03-26", "2024-11-05", "2025-11-25", "2026-07-28"]) {
      const answer = await rpc(mcpUrl, listTools, {
        apiKey: user("active").apiKey,
        headers: { "mcp-protocol-version": header },
      });
      expect(answer.status, header).toBe(200);
    }
  });
});

describe("answers as Accept asks", () => {
  it("streams (text/event-stream) when the client accepts both", async () => {
    const answer = await rpc(mcpUrl, listTools, { apiKey: user("active").apiKey });
    expect(answer.status).toBe(200);
    expect(answer.contentType).toMatch(/^text\/event-stream/);
    expect(resultOf(answer.body).tools).toBeDefined();
  });

  it("answers one JSON body when the client accepts only application/json", async () => {
    const answer = await rpc(mcpUrl, initializeRequest("2025-03-26"), {
      apiKey: user("active").apiKey,
      accept: "application/json",
    });
    expect(answer.status).toBe(200);
    expect(answer.contentType).toMatch(/^application\/json/);
    expect(JSON.parse(answer.text)).toMatchObject({
      jsonrpc: "2.0",
      id: 1,
      result: { protocolVersion: "2025-03-26" },
    });
  });

  it("a plain tools/list, answered from the listing made once, is byte for byte the SDK's own answer", async () => {
    // `_meta` makes the request not plain: the SDK answers it in full, and ignores `_meta` here.
    const apiKey = user("active").apiKey;
    for (const accept of ["application/json, text/event-stream", "application/json"])
      for (const version of ["2025-06-18", "2024-11-05"])
        for (const id of [41, "list-42", 0]) {
          const options = { apiKey, accept, headers: { "mcp-protocol-version": version } };
          const plain = await rpc(mcpUrl, { ...listTools, id }, options);
          const bare = await rpc(mcpUrl, { jsonrpc: "2.0", id, method: "tools/list" }, options);
          const full = await rpc(mcpUrl, { ...listTools, id, params: { _meta: {} } }, options);
          expect(plain.status).toBe(200);
          expect(plain.text).toBe(full.text);
          expect(bare.text).toBe(full.text);
          expect(plain.contentType).toBe(full.contentType);
          expect(z.object({ id: z.unknown() }).parse(plain.body).id).toBe(id);
          expect(plain.text).not.toContain("placeholder");
        }
  });

  it("answers 202 with no body to a notification", async () => {
    const answer = await rpc(
      mcpUrl,
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { apiKey: user("active").apiKey },
    );
    expect(answer.status).toBe(202);
    expect(answer.text).toBe("");
  });
});

describe("401 with a challenge for every unusable credential", () => {
  const metadata = () => `resource_metadata="${server.origin}/.well-known/oauth-protected-resource/api/mcp"`;

  async function expectInvalid(headers: Record<string, string>, url = mcpUrl) {
    const answer = await rpc(url, initializeRequest("2025-06-18"), { headers });
    expect(answer.status).toBe(401);
    const challenge = answer.headers.get("www-authenticate") ?? "";
    expect(challenge.startsWith("Bearer ")).toBe(true);
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain(metadata());
    expect(challenge).toContain('scope="finance:read"');
    return answer;
  }

  it("absent: challenge without an error code", async () => {
    const answer = await rpc(mcpUrl, initializeRequest("2025-06-18"));
    expect(answer.status).toBe(401);
    const challenge = answer.headers.get("www-authenticate") ?? "";
    expect(challenge).toBe(`Bearer ${metadata()}, scope="finance:read"`);
    expect(challenge).not.toContain("error=");
  });

  it("scheme in lower case (bearer)", async () => {
    await expectInvalid({ authorization: `bearer ${user("active").apiKey}` });
  });

  it("two spaces after Bearer", async () => {
    await expectInvalid({ authorization: `Bearer  ${user("active").apiKey}` });
  });

  it("Basic scheme", async () => {
    await expectInvalid({
      authorization: `Basic ${Buffer.from(`x:${user("active").apiKey}`).toString("base64")}`,
    });
  });

  it("the key without a scheme", async () => {
    await expectInvalid({ authorization: user("active").apiKey });
  });

  it("malformed llk_ key", async () => {
    await expectInvalid({ authorization: "Bearer llk_tooShort" });
  });

  it("bad checksum (one character changed)", async () => {
    const key = user("active").apiKey;
    const last = key.at(-1) === "A" ? "B" : "A";
    await expectInvalid({ authorization: `Bearer ${key.slice(0, -1)}${last}` });
  });

  it("well-formed key that was never issued", async () => {
    await expectInvalid({ authorization: `Bearer ${generateApiKey()}` });
  });

  it("revoked key", async () => {
    const db = getDb();
    const key = await createApiKey(db, user("active").userId, "to revoke");
    expect((await rpc(mcpUrl, initializeRequest("2025-06-18"), { apiKey: key.key })).status).toBe(200);
    await revokeApiKey(db, user("active").userId, key.id);
    await expectInvalid({ authorization: `Bearer ${key.key}` });
  });

  it("rotated key (and the new one works)", async () => {
    const db = getDb();
    const key = await createApiKey(db, user("active").userId, "to rotate");
    const rotated = await rotateApiKey(db, user("active").userId, key.id);
    await expectInvalid({ authorization: `Bearer ${key.key}` });
    expect((await rpc(mcpUrl, initializeRequest("2025-06-18"), { apiKey: rotated.key })).status).toBe(200);
  });

  it("an OAuth-style token that does not verify", async () => {
    await expectInvalid({ authorization: "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.sig" });
  });

  it("ignores a key in the query string", async () => {
    const key = user("active").apiKey;
    const answer = await rpc(
      `${mcpUrl}?access_token=${key}&api_key=${key}&key=${key}`,
      initializeRequest("2025-06-18"),
    );
    expect(answer.status).toBe(401);
    expect(answer.headers.get("www-authenticate")).toBe(`Bearer ${metadata()}, scope="finance:read"`);
  });
});

describe("other refusals", () => {
  it("403 for a foreign Origin, before auth", async () => {
    for (const origin of ["https://evil.example", "null", `http://localhost:${server.port + 1}`]) {
      const answer = await rpc(mcpUrl, initializeRequest("2025-06-18"), {
        apiKey: user("active").apiKey,
        headers: { origin },
      });
      expect(answer.status, origin).toBe(403);
    }
  });

  it("our own Origin is allowed", async () => {
    const answer = await rpc(mcpUrl, initializeRequest("2025-06-18"), {
      apiKey: user("active").apiKey,
      headers: { origin: server.origin },
    });
    expect(answer.status).toBe(200);
  });

  it("405 for GET and DELETE", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(mcpUrl, {
        method,
        headers: { authorization: `Bearer ${user("active").apiKey}`, accept: "text/event-stream" },
      });
      expect(res.status, method).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
    }
  });

  it("413 for an oversized body", async () => {
    const big = JSON.stringify({ ...callTool("echo_context"), padding: "x".repeat(300 * 1024) });
    const answer = await rpc(mcpUrl, big, { apiKey: user("active").apiKey });
    expect(answer.status).toBe(413);
  });

  it("-32700 for malformed JSON", async () => {
    const answer = await rpc(mcpUrl, '{"jsonrpc": "2.0", "id": 1, "method": ', {
      apiKey: user("active").apiKey,
    });
    expect(answer.status).toBe(400);
    expect(errorOf(answer.body).code).toBe(-32700);
  });

  it("a JSON-RPC error for an unknown tool", async () => {
    const answer = await rpc(mcpUrl, callTool("no_such_tool"), { apiKey: user("active").apiKey });
    expect(answer.status).toBe(200);
    const error = errorOf(answer.body);
    expect(error.code).toBe(-32602);
    expect(error.message).toContain("no_such_tool");
  });

  it("503 with Retry-After, a generic body and no stack when the database fails during auth", async () => {
    // A database that is down: every query fails to connect.
    await whileDatabaseDown(async () => {
      const answer = await rpc(mcpUrl, initializeRequest("2025-06-18"), { apiKey: user("active").apiKey });
      expect(answer.status).toBe(503);
      expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(answer.headers.get("www-authenticate")).toBeNull();
      expect(answer.text).not.toMatch(/at .*\.ts|Error:|PGlite|closed|select/i);
      expect(JSON.parse(answer.text)).toEqual({
        error: "temporarily_unavailable",
        error_description: "Authentication is temporarily unavailable. Please retry.",
      });
    });
    const healed = await rpc(mcpUrl, initializeRequest("2025-06-18"), { apiKey: user("active").apiKey });
    expect(healed.status).toBe(200);
  });

  it("429 with Retry-After once a credential passes RATE_LIMIT_PER_MINUTE, other keys unaffected", async () => {
    const db = getDb();
    const key = await createApiKey(db, user("active").userId, "rate limited");
    await withEnv({ RATE_LIMIT_PER_MINUTE: "3" }, async () => {
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      for (let i = 0; i < 5; i++) {
        const answer = await rpc(mcpUrl, initializeRequest("2025-06-18", i), { apiKey: key.key });
        statuses.push(answer.status);
        if (answer.status === 429) retryAfter = answer.headers.get("retry-after");
      }
      // A window boundary may fall between requests; at least the 4th or 5th must be refused.
      expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(1);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(retryAfter)).toBeLessThanOrEqual(60);
      const other = await rpc(mcpUrl, initializeRequest("2025-06-18"), { apiKey: user("none").apiKey });
      expect(other.status).toBe(200);
    });
  });
  it("a burst of parallel requests with one key never passes the limit (the count is one atomic upsert)", async () => {
    const db = getDb();
    const key = await createApiKey(db, user("active").userId, "burst");
    await withEnv({ RATE_LIMIT_PER_MINUTE: "6" }, async () => {
      // Sent together, in one minute window (skipped to the next one when too close to its end).
      if (Date.now() % 60_000 > 55_000)
        await new Promise((r) => setTimeout(r, 60_000 - (Date.now() % 60_000) + 50));
      const answers = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          rpc(mcpUrl, initializeRequest("2025-06-18", i), { apiKey: key.key }),
        ),
      );
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(6);
      expect(statuses.filter((s) => s === 429)).toHaveLength(10);
      const [row] = await db
        .select({ count: rateLimits.count })
        .from(rateLimits)
        .where(eq(rateLimits.key, `api_key:${key.id}`));
      expect(row?.count).toBe(16);
    });
  });
});

describe("JSON-RPC batches", () => {
  const ping = (id: number) => ({ jsonrpc: "2.0", id, method: "ping" });
  const batchOf = (n: number) => Array.from({ length: n }, (_, i) => ping(i + 1));

  it("under 2025-06-18 a batch is an invalid request (-32600), whatever its size", async () => {
    for (const size of [1, 2]) {
      const answer = await rpc(mcpUrl, batchOf(size), {
        apiKey: user("active").apiKey,
        headers: { "mcp-protocol-version": "2025-06-18" },
      });
      expect(answer.status).toBe(400);
      expect(errorOf(answer.body)).toMatchObject({
        code: -32600,
        message: expect.stringContaining("2025-06-18"),
      });
    }
  });

  it("under older revisions at most 20 messages, each counted against the rate limit", async () => {
    const key = await createApiKey(getDb(), user("active").userId, "batches");
    const headers = { "mcp-protocol-version": "2025-03-26" };
    const tooMany = await rpc(mcpUrl, batchOf(21), { apiKey: key.key, headers });
    expect(tooMany.status).toBe(400);
    expect(errorOf(tooMany.body)).toMatchObject({
      code: -32600,
      message: expect.stringContaining("at most 20"),
    });

    const previous = process.env.RATE_LIMIT_PER_MINUTE;
    process.env.RATE_LIMIT_PER_MINUTE = "40";
    resetEnvCache();
    try {
      const answer = await rpc(mcpUrl, batchOf(3), { apiKey: key.key, headers, accept: "application/json" });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual([1, 2, 3].map((id) => ({ jsonrpc: "2.0", id, result: {} })));
      const rows = await getDb()
        .select({ count: rateLimits.count })
        .from(rateLimits)
        .where(eq(rateLimits.key, `api_key:${key.id}`));
      // The refused batch counted once (as a request), the three pings three times; summed over
      // windows in case a minute boundary fell between the requests.
      expect(rows.reduce((n, r) => n + r.count, 0)).toBe(4);
    } finally {
      if (previous === undefined) delete process.env.RATE_LIMIT_PER_MINUTE;
      else process.env.RATE_LIMIT_PER_MINUTE = previous;
      resetEnvCache();
    }
  });
});

describe("discovery (RFC 9728)", () => {
  for (const path of [
    "/.well-known/oauth-protected-resource",
    "/.well-known/oauth-protected-resource/api/mcp",
  ]) {
    it(`GET ${path}`, async () => {
      const res = await fetch(server.url(path), { headers: { origin: "https://claude.ai" } });
      expect(res.status).toBe(200);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      const doc = z
        .object({
          resource: z.string(),
          authorization_servers: z.array(z.string()),
          bearer_methods_supported: z.array(z.string()),
        })
        .parse(await res.json());
      expect(doc.resource).toBe(`${server.origin}/api/mcp`);
      expect(doc.authorization_servers).toEqual([server.origin]);
      expect(doc.bearer_methods_supported).toEqual(["header"]);
    });

    it(`OPTIONS ${path} (CORS preflight)`, async () => {
      const res = await fetch(server.url(path), {
        method: "OPTIONS",
        headers: { origin: "https://claude.ai", "access-control-request-method": "GET" },
      });
      expect(res.status).toBeLessThan(300);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.headers.get("access-control-allow-methods")).toContain("GET");
    });
  }
});

describe("registerTools: listing, gate, envelope, errors, activity", () => {
  it("lists each tool with title, readOnlyHint, input and output schema", async () => {
    const answer = await rpc(toolsUrl, listTools, { apiKey: user("active").apiKey });
    const tools = z
      .array(
        z.object({
          name: z.string(),
          title: z.string(),
          inputSchema: z.object({ type: z.literal("object"), properties: z.record(z.string(), z.unknown()) }),
          outputSchema: z.object({
            type: z.literal("object"),
            properties: z.record(z.string(), z.unknown()),
          }),
          annotations: z.object({ readOnlyHint: z.literal(true) }),
        }),
      )
      .parse(resultOf(answer.body).tools);
    expect(tools.map((t) => t.name)).toEqual(["echo_context", "rejects_input", "crashes", "needs_query"]);
    const echo = tools[0];
    expect(Object.keys(echo?.inputSchema.properties ?? {})).toEqual(["period", "limit"]);
    expect(Object.keys(echo?.outputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(["status", "setup_url", "data", "warnings", "as_of", "page"]),
    );
  });

  it("one endpoint serves many callers at once: each call runs as its own caller", async () => {
    const callers = [user("active"), user("no_connections"), user("reauth_required")];
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) => {
        const caller = callers[i % callers.length]!;
        return rpc(toolsUrl, callTool("echo_context"), { apiKey: caller.apiKey }).then((a) => ({
          caller,
          a,
        }));
      }),
    );
    for (const { caller, a } of answers) {
      const data = (resultOf(a.body).structuredContent as { data: { userId: string; banks: number } }).data;
      expect(data.userId).toBe(caller.userId);
      expect(data.banks).toBe(caller.connections.length);
    }
  });

  it("active: runs the tool with defaults and the user's context; structuredContent equals the text", async () => {
    const u = user("active");
    const answer = await rpc(toolsUrl, callTool("echo_context"), { apiKey: u.apiKey });
    const result = resultOf(answer.body);
    expect(result.isError).toBeFalsy();
    const structured = z
      .object({
        status: z.literal("ok"),
        data: z.object({
          period: z.string(),
          limit: z.number(),
          userId: z.string(),
          timezone: z.string(),
          banks: z.number(),
        }),
        warnings: z.array(z.object({ code: z.string() })),
        as_of: z.string(),
        page: z.object({ has_more: z.boolean(), total_count: z.number() }),
      })
      .parse(result.structuredContent);
    expect(structured.data).toEqual({
      period: "this_month",
      limit: 50,
      userId: u.userId,
      timezone: "UTC",
      banks: 2,
    });
    expect(structured.warnings.map((w) => w.code)).toEqual(["TOOL_NOTE"]);
    // as_of is the OLDEST sync among the banks (3 hours ago), not the newest.
    expect(structured.as_of).toBe(u.connections[0]?.lastSyncedAt.toISOString());
    const content = z.array(z.object({ type: z.literal("text"), text: z.string() })).parse(result.content);
    expect(content).toHaveLength(1);
    expect(JSON.parse(content[0]?.text ?? "")).toEqual(result.structuredContent);
  });

  for (const state of ["none", "canceled", "past_due"] as const) {
    it(`${state}: setup_required with setup_url, without running the tool`, async () => {
      const answer = await rpc(toolsUrl, callTool("crashes"), { apiKey: user(state).apiKey });
      const result = resultOf(answer.body);
      expect(result.isError).toBeFalsy();
      const structured = z
        .object({
          status: z.literal("setup_required"),
          setup_url: z.string(),
          message: z.string(),
          warnings: z.array(z.unknown()),
        })
        .parse(result.structuredContent);
      expect(structured.setup_url).toBe(`${server.origin}/dashboard/billing`);
      expect(structured.message).toContain(structured.setup_url);
      expect(structured.warnings).toEqual([]);
      expect(structured).not.toHaveProperty("data");
    });
  }

  it("no_connections: ok with NO_CONNECTIONS and the link to add a bank", async () => {
    const answer = await rpc(toolsUrl, callTool("echo_context"), { apiKey: user("no_connections").apiKey });
    const structured = z
      .object({
        status: z.literal("ok"),
        warnings: z.array(
          z.object({ code: z.string(), message: z.string(), action_url: z.string().optional() }),
        ),
      })
      .parse(resultOf(answer.body).structuredContent);
    expect(structured.warnings[0]).toMatchObject({
      code: "NO_CONNECTIONS",
      action_url: `${server.origin}/dashboard/banks`,
    });
    expect(resultOf(answer.body).structuredContent).not.toHaveProperty("as_of");
  });

  it("reauth_required: ok, data from every bank, one REAUTH_REQUIRED naming the bank", async () => {
    const u = user("reauth_required");
    const answer = await rpc(toolsUrl, callTool("echo_context"), { apiKey: u.apiKey });
    const structured = z
      .object({
        status: z.literal("ok"),
        data: z.object({ banks: z.number() }),
        warnings: z.array(warningSchema),
      })
      .parse(resultOf(answer.body).structuredContent);
    expect(structured.data.banks).toBe(2);
    const reauth = structured.warnings.filter((w) => w.code === "REAUTH_REQUIRED");
    const broken = u.connections.find((c) => c.status === "reauth_required");
    expect(reauth).toEqual([
      {
        code: "REAUTH_REQUIRED",
        message: expect.stringContaining("Tartan Credit Union"),
        institution: "Tartan Credit Union",
        connection_id: broken?.id,
        action_url: `${server.origin}/dashboard/banks?reconnect=${broken?.id}`,
      },
    ]);
  });

  it("invalid arguments: isError naming the argument and the allowed values", async () => {
    const answer = await rpc(toolsUrl, callTool("echo_context", { period: "someday", limit: 999 }), {
      apiKey: user("active").apiKey,
    });
    const result = resultOf(answer.body);
    expect(result.isError).toBe(true);
    const text = JSON.stringify(result.content);
    expect(text).toContain('\\"period\\" must be one of: this_month, last_month, last_30_days');
    expect(text).toContain('\\"limit\\" must be at most 250');
    const wrongType = resultOf(
      (await rpc(toolsUrl, callTool("echo_context", { limit: "ten" }), { apiKey: user("active").apiKey }))
        .body,
    );
    expect(wrongType.isError).toBe(true);
    expect(JSON.stringify(wrongType.content)).toContain('\\"limit\\" must be a number');
    // null means "not given" (strict function-calling clients send it for every unset field).
    const unset = resultOf(
      (
        await rpc(toolsUrl, callTool("echo_context", { period: null, limit: null }), {
          apiKey: user("active").apiKey,
        })
      ).body,
    );
    expect(unset.isError).toBeUndefined();
    expect(unset.structuredContent).toMatchObject({
      status: "ok",
      data: { period: "this_month", limit: 50 },
    });
    const required = resultOf(
      (
        await rpc(toolsUrl, callTool("needs_query", { types: ["credit", "cash"] }), {
          apiKey: user("active").apiKey,
        })
      ).body,
    );
    expect(required.isError).toBe(true);
    expect(JSON.stringify(required.content)).toContain('\\"query\\" is required (string)');
    expect(JSON.stringify(required.content)).toContain('\\"types.1\\" must be one of: credit, loan');
  });

  it("a misnamed argument is an error naming it and listing the tool's arguments, never ignored", async () => {
    const listed = (
      await rpc(toolsUrl, { jsonrpc: "2.0", id: 1, method: "tools/list" }, { apiKey: user("active").apiKey })
    ).body as { result: { tools: { inputSchema: { additionalProperties?: unknown } }[] } };
    for (const tool of listed.result.tools) expect(tool.inputSchema.additionalProperties).toBe(false);
    const result = resultOf(
      (await rpc(toolsUrl, callTool("echo_context", { limt: 1 }), { apiKey: user("active").apiKey })).body,
    );
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([
      {
        type: "text",
        text: "Invalid arguments for echo_context. Unknown argument: limt. echo_context takes: period, limit.",
      },
    ]);
  });

  it("text with a NUL character or a lone surrogate is an argument error naming the field", async () => {
    for (const query of ["coffee\u0000", "caf\ud800"]) {
      const result = resultOf(
        (await rpc(toolsUrl, callTool("needs_query", { query }), { apiKey: user("active").apiKey })).body,
      );
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain(
        'Argument \\"query\\" holds a NUL character or an unpaired surrogate',
      );
    }
  });

  it("AppError(invalid_input) from run: isError with its message", async () => {
    const result = resultOf(
      (await rpc(toolsUrl, callTool("rejects_input"), { apiKey: user("active").apiKey })).body,
    );
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain("is not a cursor this tool issued");
  });

  it("unexpected error: isError with a generic sentence, no internals", async () => {
    const result = resultOf(
      (await rpc(toolsUrl, callTool("crashes"), { apiKey: user("active").apiKey })).body,
    );
    expect(result.isError).toBe(true);
    const text = JSON.stringify(result.content);
    expect(text).toContain("failed on our side");
    expect(text).not.toMatch(/secret|postgres:|Error/);
  });

  it("records one activity row per call: status, credential, duration; never the key", async () => {
    const db = getDb();
    const u = await createUserInState(db, "active");
    const opts = { apiKey: u.apiKey };
    await rpc(toolsUrl, callTool("echo_context"), opts);
    await rpc(toolsUrl, callTool("echo_context", { period: "nope" }), opts);
    await rpc(toolsUrl, callTool("rejects_input"), opts);
    await rpc(toolsUrl, callTool("crashes"), opts);
    await rpc(toolsUrl, listTools, opts); // not a tool call: no row
    const rows = await db.select().from(toolCalls).where(eq(toolCalls.userId, u.userId));
    expect(rows.map((r) => `${r.tool}:${r.status}`).sort()).toEqual(
      [
        "crashes:error",
        "echo_context:invalid_arguments",
        "echo_context:ok",
        "rejects_input:invalid_arguments",
      ].sort(),
    );
    for (const row of rows) {
      expect(row.credentialKind).toBe("api_key");
      expect(row.apiKeyId).toBe(u.apiKeyId);
      expect(row.oauthClientId).toBeNull();
      expect(row.durationMs).toBeGreaterThanOrEqual(0);
      expect(JSON.stringify(row)).not.toContain(u.apiKey);
    }
    const recent = await listRecentToolCalls(db, u.userId, 3);
    expect(recent).toHaveLength(3);
    expect(recent[0]?.credentialLabel).toMatch(/^test key \(llk_/);
    expect(recent.every((r, i) => i === 0 || (recent[i - 1]?.createdAt ?? r.createdAt) >= r.createdAt)).toBe(
      true,
    );
    // Scoped by owner: another user sees none of these.
    expect(await listRecentToolCalls(db, user("none").userId, 50)).toEqual(
      expect.not.arrayContaining([expect.objectContaining({ id: rows[0]?.id })]),
    );
    const setup = await createUserInState(db, "past_due");
    await rpc(toolsUrl, callTool("echo_context"), { apiKey: setup.apiKey });
    const [setupRow] = await db
      .select()
      .from(toolCalls)
      .where(and(eq(toolCalls.userId, setup.userId), eq(toolCalls.tool, "echo_context")));
    expect(setupRow?.status).toBe("setup_required");
  });
});
