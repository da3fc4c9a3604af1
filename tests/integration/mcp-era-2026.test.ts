/**
 * The 2026-07-28 era of the MCP endpoint, request by request over real HTTP against the real
 * route: `server/discover`, the per-request `_meta` (-32602), the headers that mirror the body
 * (400, -32020), removed methods (404, -32601), an unknown revision (400, -32022 with the
 * supported list), `resultType` and cache hints, the request's id on every error, and where the
 * era boundary lies: the body decides, so a 2025 client's header never moves it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createApiKey } from "@/lib/api-keys";
import { useTestDatabase } from "../helpers/db";
import { withEnv } from "../helpers/env";
import {
  createUserInState,
  initializeRequest,
  MODERN_META,
  modernRequest,
  rpc,
  type StateUser,
  TOOL_NAMES,
} from "../helpers/mcp-client";
import { type ServedRoutes, serveRoutes } from "../helpers/serve";

const getDb = useTestDatabase();

let server: ServedRoutes;
let url: string;
let active: StateUser;

beforeAll(async () => {
  server = await serveRoutes({ "/api/mcp": () => import("@/app/api/mcp/route") });
  url = server.url("/api/mcp");
  active = await createUserInState(getDb(), "active");
});

afterAll(async () => {
  await server?.close();
});

const errorSchema = z.object({
  jsonrpc: z.literal("2.0"),
  id: z.union([z.string(), z.number(), z.null()]),
  error: z.object({ code: z.number(), message: z.string(), data: z.unknown().optional() }),
});
const resultSchema = z.object({
  jsonrpc: z.literal("2.0"),
  id: z.unknown(),
  result: z.record(z.string(), z.unknown()),
});

/** POSTs a 2026-07-28 request (its `_meta` and mirrored headers), with `headers` laid over them. */
function send(
  method: string,
  params: Record<string, unknown> = {},
  options: { id?: number | string; headers?: Record<string, string>; meta?: unknown; apiKey?: string } = {},
) {
  const request = modernRequest(method, params, options.id ?? 7);
  const body = request.body as { params: Record<string, unknown> };
  if (options.meta !== undefined) body.params._meta = options.meta;
  return rpc(url, body, {
    apiKey: options.apiKey ?? active.apiKey,
    accept: "application/json",
    headers: { ...request.headers, ...options.headers },
  });
}

describe("server/discover", () => {
  it("names the supported revision, the tools and prompts capabilities and the server (with its icons) in _meta", async () => {
    const answer = await send("server/discover");
    expect(answer.status).toBe(200);
    const { result, id } = resultSchema.parse(answer.body);
    expect(id).toBe(7);
    expect(result.supportedVersions).toEqual(["2026-07-28"]);
    expect(result.capabilities).toEqual({ tools: { listChanged: false }, prompts: { listChanged: false } });
    expect(result.resultType).toBe("complete");
    expect(result._meta).toMatchObject({
      "io.modelcontextprotocol/serverInfo": {
        name: "ledgerlink",
        version: "1.0.0",
        title: "Ledgerlink",
        icons: [
          { src: `${server.origin}/icons/ledgerlink.svg`, mimeType: "image/svg+xml" },
          { src: `${server.origin}/icons/ledgerlink.png`, mimeType: "image/png" },
        ],
      },
    });
    expect(result.instructions).toContain("get_financial_overview");
  });

  it("needs the bearer credential like every request (401 with the challenge)", async () => {
    const { body, headers } = modernRequest("server/discover");
    const answer = await rpc(url, body, { headers, accept: "application/json" });
    expect(answer.status).toBe(401);
    expect(answer.headers.get("www-authenticate")).toContain("resource_metadata=");
  });

  it("without _meta it is still this era's: 400 naming what is missing or the supported revision, never 2025's -32601", async () => {
    const bare = { jsonrpc: "2.0", id: 11, method: "server/discover", params: {} };
    const withHeader = await rpc(url, bare, {
      apiKey: active.apiKey,
      accept: "application/json",
      headers: { "mcp-protocol-version": "2026-07-28", "mcp-method": "server/discover" },
    });
    expect(withHeader.status).toBe(400);
    expect(errorSchema.parse(withHeader.body)).toMatchObject({ id: 11, error: { code: -32602 } });
    const noHeader = await rpc(url, bare, { apiKey: active.apiKey, accept: "application/json" });
    expect(noHeader.status).toBe(400);
    expect(errorSchema.parse(noHeader.body)).toMatchObject({
      id: 11,
      error: { code: -32022, data: { supported: ["2026-07-28"] } },
    });
  });
});

describe("lists and calls", () => {
  it("tools/list: the 12 tools in their fixed order, resultType, ttlMs and cacheScope private", async () => {
    for (const id of [1, 2]) {
      const answer = await send("tools/list", {}, { id });
      expect(answer.status).toBe(200);
      const { result } = resultSchema.parse(answer.body);
      expect((result.tools as { name: string }[]).map((t) => t.name)).toEqual(TOOL_NAMES);
      expect(result).toMatchObject({ resultType: "complete", ttlMs: 3_600_000, cacheScope: "private" });
    }
  });

  it("prompts/list: the 6 prompts, resultType, ttlMs and cacheScope private", async () => {
    const { result } = resultSchema.parse((await send("prompts/list")).body);
    expect((result.prompts as unknown[]).length).toBe(6);
    expect(result).toMatchObject({ resultType: "complete", ttlMs: 3_600_000, cacheScope: "private" });
  });

  it("tools/call answers the envelope with resultType complete", async () => {
    const answer = await send("tools/call", { name: "get_connection_status", arguments: {} });
    expect(answer.status).toBe(200);
    const { result } = resultSchema.parse(answer.body);
    expect(result.resultType).toBe("complete");
    expect(result.structuredContent).toMatchObject({ status: "ok" });
  });
});

describe("refusals, each with the request's id", () => {
  it("a bad _meta: 400 with -32602", async () => {
    const cases: unknown[] = [
      { "io.modelcontextprotocol/clientCapabilities": {} },
      { "io.modelcontextprotocol/protocolVersion": "2026-07-28" },
      { ...MODERN_META, "io.modelcontextprotocol/clientCapabilities": "all of them" },
    ];
    for (const [i, meta] of cases.entries()) {
      const answer = await send("tools/list", {}, { id: 100 + i, meta });
      expect(answer.status, JSON.stringify(meta)).toBe(400);
      expect(errorSchema.parse(answer.body), JSON.stringify(meta)).toMatchObject({
        id: 100 + i,
        error: { code: -32602 },
      });
    }
  });

  it("Mcp-Method or Mcp-Name disagreeing with the body, or missing: 400 with -32020", async () => {
    const cases: [string, Record<string, unknown>, Record<string, string>][] = [
      ["tools/list", {}, { "mcp-method": "prompts/list" }],
      ["tools/call", { name: "list_accounts", arguments: {} }, { "mcp-name": "get_net_worth" }],
      ["tools/call", { name: "list_accounts", arguments: {} }, { "mcp-protocol-version": "2025-06-18" }],
    ];
    for (const [i, [method, params, headers]] of cases.entries()) {
      const answer = await send(method, params, { id: `mismatch-${i}`, headers });
      expect(answer.status, JSON.stringify(headers)).toBe(400);
      expect(errorSchema.parse(answer.body), JSON.stringify(headers)).toMatchObject({
        id: `mismatch-${i}`,
        error: { code: -32020 },
      });
    }
    const { body, headers } = modernRequest("tools/call", { name: "list_accounts", arguments: {} }, 9);
    const { "mcp-name": _name, ...withoutName } = headers;
    const missing = await rpc(url, body, {
      apiKey: active.apiKey,
      accept: "application/json",
      headers: withoutName,
    });
    expect(missing.status).toBe(400);
    expect(errorSchema.parse(missing.body)).toMatchObject({ id: 9, error: { code: -32020 } });
  });

  it("the methods this era removed, and unknown ones: 404 with -32601", async () => {
    for (const method of [
      "initialize",
      "ping",
      "logging/setLevel",
      "resources/subscribe",
      "resources/unsubscribe",
      "no/such",
    ]) {
      const answer = await send(method, {}, { id: method });
      expect(answer.status, method).toBe(404);
      expect(errorSchema.parse(answer.body), method).toMatchObject({ id: method, error: { code: -32601 } });
    }
  });

  it("a revision we do not serve: 400 with -32022, the supported list and the one asked", async () => {
    const meta = { ...MODERN_META, "io.modelcontextprotocol/protocolVersion": "2099-01-01" };
    const answer = await send(
      "tools/list",
      {},
      { id: 5, meta, headers: { "mcp-protocol-version": "2099-01-01" } },
    );
    expect(answer.status).toBe(400);
    expect(errorSchema.parse(answer.body)).toMatchObject({
      id: 5,
      error: { code: -32022, data: { supported: ["2026-07-28"], requested: "2099-01-01" } },
    });
  });

  it("an unknown tool: a JSON-RPC error naming it, with the id", async () => {
    const answer = await send("tools/call", { name: "no_such_tool", arguments: {} }, { id: 31 });
    const error = errorSchema.parse(answer.body);
    expect(error.id).toBe(31);
    expect(error.error.code).toBe(-32602);
    expect(error.error.message).toContain("no_such_tool");
  });

  it("the rate limit: 429 with Retry-After and the request's id", async () => {
    const key = await createApiKey(getDb(), active.userId, "2026 rate limit");
    await withEnv({ RATE_LIMIT_PER_MINUTE: "2" }, async () => {
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await send("tools/list", {}, { id: 40 + i, apiKey: key.key }));
      const limited = answers.filter((a) => a.status === 429);
      expect(limited.length).toBeGreaterThanOrEqual(1);
      for (const answer of limited) {
        expect(Number(answer.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
        const error = errorSchema.parse(answer.body);
        expect(error.id).toBe(40 + answers.indexOf(answer));
      }
    });
  });
});

describe("the era boundary: the body decides", () => {
  it("a 2025 client sending MCP-Protocol-Version: 2026-07-28 after negotiating 2025-06-18 is served in the 2025 era", async () => {
    const plain = { jsonrpc: "2.0", id: 3, method: "tools/list" };
    const as2025 = await rpc(url, plain, {
      apiKey: active.apiKey,
      accept: "application/json",
      headers: { "mcp-protocol-version": "2025-06-18" },
    });
    const withModernHeader = await rpc(url, plain, {
      apiKey: active.apiKey,
      accept: "application/json",
      headers: { "mcp-protocol-version": "2026-07-28" },
    });
    expect(withModernHeader.status).toBe(200);
    // The 2025 answer, byte for byte: no resultType, no cache hints, no icons.
    expect(withModernHeader.text).toBe(as2025.text);
    expect(withModernHeader.text).not.toContain("resultType");
    const call = await rpc(
      url,
      {
        jsonrpc: "2.0",
        id: 4,
        method: "tools/call",
        params: { name: "get_connection_status", arguments: {} },
      },
      {
        apiKey: active.apiKey,
        accept: "application/json",
        headers: { "mcp-protocol-version": "2025-11-25" },
      },
    );
    expect(call.status).toBe(200);
    expect(resultSchema.parse(call.body).result).not.toHaveProperty("resultType");
  });

  it("initialize with the 2026-07-28 _meta belongs to this era, which removed it: 404", async () => {
    const answer = await send("initialize", initializeRequest("2025-06-18").params, { id: 12 });
    expect(answer.status).toBe(404);
    expect(errorSchema.parse(answer.body)).toMatchObject({ id: 12, error: { code: -32601 } });
  });

  it("initialize without it is the 2025 handshake, whatever header comes with it", async () => {
    for (const header of [undefined, "2026-07-28"]) {
      const answer = await rpc(url, initializeRequest("2026-07-28"), {
        apiKey: active.apiKey,
        accept: "application/json",
        headers: header ? { "mcp-protocol-version": header } : {},
      });
      expect(answer.status, header).toBe(200);
      expect(resultSchema.parse(answer.body).result.protocolVersion, header).toBe("2025-06-18");
    }
  });
});
