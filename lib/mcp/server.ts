/**
 * The MCP endpoint as one web-standard handler, `handleMcpRequest(req)`, which the route file
 * exports. Stateless streamable HTTP (@modelcontextprotocol/server 2.x, the entry mcp-handler wraps):
 * every POST builds a fresh server for the authenticated caller, so any instance can answer any
 * request and re-sending `initialize` simply starts over.
 *
 * The order of checks, cheapest and least revealing first:
 *  1. `Origin` present and not APP_URL's origin → 403 (DNS rebinding; the spec's MUST), and for a
 *     loopback APP_URL a `Host` that is not loopback → 403.
 *  2. `MCP-Protocol-Version` naming a revision we do not speak → 400.
 *  3. Bearer credential → 401 with the challenge; auth back end down → 503. The body is read
 *     first (no database work), before the credential's slot is taken, within
 *     REQUEST_BODY_TIMEOUT_MS (else 408 and the connection closed), so ONE statement (caller.ts)
 *     identifies the caller, counts the request (each message of a batch) and loads the
 *     subscription, connections and timezone.
 *  4. Per-credential rate limit → 429 with Retry-After.
 *  5. Body over MAX_BODY_BYTES → 413; not JSON → -32700; a JSON-RPC batch under 2025-06-18 →
 *     400 with -32600 (older revisions: at most MAX_BATCH_MESSAGES, each counted by the limit).
 *  6. The SDK: negotiation, tools and prompts. The answer is an event stream when `Accept` lists
 *     text/event-stream, and one JSON body when it lists only application/json.
 * https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#streamable-http
 */
import {
  type AuthInfo,
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  McpServer,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { type Database, getDb, isPooled } from "@/db";
import { defer } from "@/lib/deferred";
import { getEnv } from "@/lib/env";
import { createKeyedSlots, type KeyedSlots } from "@/lib/keyed-slots";
import { sweepRateLimits } from "@/lib/rate-limit";
import { type BodyRead, REQUEST_TIMEOUT_HEADERS, readBodyWithin } from "@/lib/request-body";
import { authUnavailableResponse, bearerToken, mcpResourceUrl, unauthorizedResponse } from "./auth";
import { type Caller, loadCaller } from "./caller";
import type { ToolDefinition } from "./define-tool";
import { registerPrompts } from "./prompts";
import { authInfoFor, registerTools } from "./register";
import { allTools } from "./tools";

/**
 * The revisions we speak, preferred first. A client asking for one of them gets it back; any other
 * request gets the first (2025-06-18). The SDK would otherwise also offer 2025-11-25 and the
 * 2026 stateless era, which this service does not implement (service-interface.md §9).
 */
export const SUPPORTED_PROTOCOL_VERSIONS = ["2025-06-18", "2025-03-26", "2024-11-05"] as const;

/** Largest request body accepted (a tools/call is a few hundred bytes). */
export const MAX_BODY_BYTES = 256 * 1024;

const SERVER_INFO = { name: "ledgerlink", version: "1.0.0" };

const INSTRUCTIONS =
  "Ledgerlink gives read-only access to the user's linked bank accounts. Amounts are decimals in the account's currency; money out is negative. Dates are read in the user's timezone with both ends included: a period (this_month and year_to_date run to today) or start_date/end_date (YYYY-MM-DD). Every tool answers an envelope: status ok or setup_required (with setup_url to finish setup), data, warnings [{code, message, institution?, connection_id?, action_url?}] (NO_CONNECTIONS, REAUTH_REQUIRED, MIXED_CURRENCIES …), as_of (the oldest sync the data rests on) and, for lists with more rows, page {has_more, total_count, next_cursor?}. Fields that would be null are left out. Start with get_financial_overview or get_connection_status.";

function jsonRpcError(status: number, code: number, message: string, headers?: HeadersInit): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status, headers });
}

/** 403 unless `Origin` is absent or exactly APP_URL's origin (scheme, host and port). */
export function originRejection(req: Request, appUrl: string): Response | undefined {
  const origin = req.headers.get("origin");
  if (origin === null || origin === "") return undefined;
  if (origin === new URL(appUrl).origin) return undefined;
  return jsonRpcError(403, -32000, "Forbidden: this Origin may not call the MCP endpoint.");
}

function hostRejection(req: Request, appUrl: string): Response | undefined {
  // A loopback deployment is what DNS rebinding targets; a public one sits behind its own domain
  // (and preview URLs), so it is not pinned to one Host.
  const appHost = new URL(appUrl).hostname;
  const loopback = localhostAllowedHostnames();
  if (!loopback.includes(appHost)) return undefined;
  return hostHeaderValidationResponse(req, loopback);
}

function versionRejection(req: Request): Response | undefined {
  const version = req.headers.get("mcp-protocol-version")?.trim();
  if (version === undefined || (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(version))
    return undefined;
  return jsonRpcError(
    400,
    -32000,
    `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(version)} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`,
  );
}

/** Most messages in one JSON-RPC batch (revisions before 2025-06-18 only). */
export const MAX_BATCH_MESSAGES = 20;

/**
 * 2025-06-18 removed JSON-RPC batching: a batch under it is an invalid request. Older revisions
 * allow it, bounded here so one request cannot carry an unbounded amount of work. A request
 * without the version header is `initialize` or a client of 2025-03-26 (the spec's default).
 */
function batchRejection(req: Request, size: number): Response | undefined {
  const invalid = (message: string) => jsonRpcError(400, -32600, `Invalid Request: ${message}`);
  if (req.headers.get("mcp-protocol-version")?.trim() === "2025-06-18")
    return invalid("JSON-RPC batches are not part of MCP 2025-06-18; send one message per request.");
  if (size === 0) return invalid("the batch is empty.");
  if (size > MAX_BATCH_MESSAGES)
    return invalid(`a batch holds at most ${MAX_BATCH_MESSAGES} messages; this one has ${size}.`);
  return undefined;
}

/** 429 for a credential over its per-minute limit. */
function rateLimited(limit: number, retryAfterSeconds: number): Response {
  return jsonRpcError(
    429,
    -32000,
    `Too many requests: the limit is ${limit} per minute for this credential.`,
    {
      "Retry-After": String(retryAfterSeconds),
      "RateLimit-Limit": String(limit),
      "RateLimit-Remaining": "0",
    },
  );
}

/** True when `Accept` admits JSON but not an event stream (e.g. `application/json`). */
export function acceptsJsonOnly(accept: string | null): boolean {
  if (!accept) return false;
  const types = accept
    .split(",")
    .map((part) => part.split(";"))
    .filter(([, ...params]) => !params.some((p) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(p)))
    .map(([type]) => (type ?? "").trim().toLowerCase());
  const json = types.includes("application/json") || types.includes("application/*") || types.includes("*/*");
  return json && !types.includes("text/event-stream");
}

/** An answer read whole: a stateless exchange's event stream ends once its responses are written. */
interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

/**
 * Collapses an SSE answer into one JSON body: the JSON-RPC response it carries (for a batch, the
 * array of its responses). Stateless requests here never stream notifications, so the stream
 * holds only those responses.
 */
function sseToJson(answer: Answer, batch: boolean): Answer {
  const type = answer.headers.get("content-type") ?? "";
  if (!type.startsWith("text/event-stream")) return answer;
  const answers: unknown[] = [];
  for (const event of answer.text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).replace(/^ /, ""))
      .join("\n");
    if (!data) continue;
    try {
      const message: unknown = JSON.parse(data);
      if (message && typeof message === "object" && ("result" in message || "error" in message))
        answers.push(message);
    } catch {
      // not a JSON-RPC message (keep-alive comment or similar)
    }
  }
  if (answers.length === 0)
    return {
      status: 500,
      headers: new Headers({ "content-type": "application/json" }),
      text: JSON.stringify({
        jsonrpc: "2.0",
        error: { code: -32603, message: "Internal error: no response was produced" },
        id: null,
      }),
    };
  const headers = new Headers(answer.headers);
  headers.set("content-type", "application/json");
  headers.delete("content-length");
  return { status: answer.status, headers, text: JSON.stringify(batch ? answers : answers.at(-1)) };
}

/**
 * Serves one request through the SDK's stateless streamable HTTP transport (what its
 * `createMcpHandler` does for 2025-era traffic) and reads the answer whole: the stream of a
 * stateless exchange ends once every response is written, so the answer leaves as one body
 * instead of passing through layers of streams. Nothing is left to close afterwards: the
 * transport ended its stream and cleared its timers when it wrote the last response, and the
 * server and transport live for this exchange only. A client that leaves closes the transport,
 * which aborts the running handlers.
 */
async function exchange(
  server: McpServer,
  req: Request,
  message: unknown,
  authInfo: AuthInfo,
): Promise<Answer> {
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  const leave = () => void transport.close().catch(() => undefined);
  req.signal.addEventListener("abort", leave, { once: true });
  try {
    const response = await transport.handleRequest(req, { authInfo, parsedBody: message });
    return { status: response.status, headers: response.headers, text: await response.text() };
  } finally {
    req.signal.removeEventListener("abort", leave);
  }
}

/**
 * `tools/list` answers the same to every caller: the SDK's answer for a revision, made once per
 * endpoint with a placeholder id, is split at that id and given to later requests with theirs.
 * Only a plain request takes this path (one message, `jsonrpc` 2.0, a string or integer id, no
 * params but an empty object); anything else goes to the SDK, which validates it.
 */
const LISTING_ID = "ledgerlink-listing-placeholder-id";
interface Listing {
  status: number;
  headers: Headers;
  parts: [string, string];
}
function isPlainToolsList(message: unknown): message is { id: string | number } {
  if (message === null || typeof message !== "object" || Array.isArray(message)) return false;
  const { jsonrpc, id, method, params, ...rest } = message as Record<string, unknown>;
  return (
    jsonrpc === "2.0" &&
    method === "tools/list" &&
    Object.keys(rest).length === 0 &&
    (typeof id === "string" || Number.isSafeInteger(id)) &&
    (params === undefined ||
      (params !== null && typeof params === "object" && Object.keys(params).length === 0))
  );
}

function fromListing(listing: Listing, id: string | number): Answer {
  return {
    status: listing.status,
    headers: new Headers(listing.headers),
    text: listing.parts.join(JSON.stringify(id)),
  };
}

/** The listing made from one answer of the SDK with the placeholder id, when it is one. */
function listingOf(answer: Answer): Listing | undefined {
  const parts = answer.text.split(JSON.stringify(LISTING_ID));
  if (answer.status !== 200 || parts.length !== 2 || !answer.text.includes('"result"')) return undefined;
  return { status: answer.status, headers: answer.headers, parts: parts as [string, string] };
}

export interface McpHandlerOptions {
  /** The tools to serve (default: the registry `allTools`). Tests pass their own. */
  tools?: readonly ToolDefinition[];
  /** The database (default: the process-wide `getDb()`). */
  getDb?: () => Promise<Database>;
}

/** Builds the endpoint's POST handler. */
export function createMcpEndpoint(options: McpHandlerOptions = {}): (req: Request) => Promise<Response> {
  const tools = options.tools ?? allTools;
  const openDb = options.getDb ?? getDb;
  // Each request gets a server with the tool and prompt definitions registered from pre-built
  // parts (register.ts); the caller travels with the request (authInfoFor), never in a closure.
  const buildServer = () => {
    const server = new McpServer(SERVER_INFO, {
      instructions: INSTRUCTIONS,
      supportedProtocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
    });
    registerTools(server, tools);
    registerPrompts(server);
    return server;
  };

  /** The listings of this endpoint's tools, per revision and answer type. */
  const listings = new Map<string, Listing>();

  /** The SDK's answer to `message`; a plain `tools/list` from the listing of its revision. */
  async function serve(req: Request, message: unknown, authInfo: AuthInfo, key: string): Promise<Answer> {
    if (!isPlainToolsList(message)) return exchange(buildServer(), req, message, authInfo);
    const known = listings.get(key);
    if (known) return fromListing(known, message.id);
    const answer = await exchange(buildServer(), req, { ...message, id: LISTING_ID }, authInfo);
    const listing = listingOf(answer);
    if (!listing) return exchange(buildServer(), req, message, authInfo);
    listings.set(key, listing);
    return fromListing(listing, message.id);
  }

  /** Steps 3 to 6 for a request that carries a well-formed bearer token and whose body was read. */
  async function answer(req: Request, token: string, db: Database, read: BodyRead): Promise<Response> {
    // The body was read first (no database work): a batch counts each of its messages in the
    // same statement that identifies the caller.
    let message: unknown;
    let bodyError: Response | undefined;
    if (read.kind !== "read" && read.kind !== "too_large")
      bodyError = jsonRpcError(400, -32700, "Parse error: the request body could not be read");
    else if (read.kind === "too_large")
      bodyError = jsonRpcError(
        413,
        -32000,
        `Payload Too Large: the body must not exceed ${MAX_BODY_BYTES} bytes`,
      );
    else {
      try {
        message = JSON.parse(read.text);
      } catch {
        bodyError = jsonRpcError(400, -32700, "Parse error: the request body is not valid JSON");
      }
    }
    const batchError = Array.isArray(message) ? batchRejection(req, message.length) : undefined;
    const cost = Array.isArray(message) && !batchError ? message.length : 1;

    let caller: Caller | null;
    try {
      caller = await loadCaller(db, token, { resource: mcpResourceUrl(), cost });
    } catch (error) {
      // Log the failure's kind only: driver errors can quote the failing query's parameters.
      console.error("MCP caller look-up failed:", error instanceof Error ? error.name : typeof error);
      return authUnavailableResponse();
    }
    if (!caller) return unauthorizedResponse("invalid");
    const limit = getEnv().RATE_LIMIT_PER_MINUTE;
    if (caller.count === cost) sweepRateLimitsSometimes(db);
    if (caller.count > limit) return rateLimited(limit, caller.retryAfterSeconds);
    if (bodyError) return bodyError;
    if (batchError) return batchError;

    const wantsJsonOnly = acceptsJsonOnly(req.headers.get("accept"));
    // The SDK's stateless transport always streams and insists on both types; a JSON-only client
    // gets the same single answer unwrapped from the stream.
    let forwarded = req;
    if (wantsJsonOnly) {
      const headers = new Headers(req.headers);
      headers.set("accept", "application/json, text/event-stream");
      forwarded = new Request(req.url, { method: "POST", headers, signal: req.signal });
    }
    // The SDK gives `authInfo` to every tool call (register.ts reads the caller from it), and
    // takes the body parsed above (`parsedBody`) instead of reading it again.
    const authInfo = authInfoFor({
      db,
      credential: caller.credential,
      access: caller.access,
      timezone: caller.timezone,
    });
    const version = req.headers.get("mcp-protocol-version")?.trim() ?? "";
    const served = await serve(forwarded, message, authInfo, `${version} ${wantsJsonOnly}`);
    const answered = wantsJsonOnly ? sseToJson(served, Array.isArray(message)) : served;
    return new Response(answered.text, { status: answered.status, headers: answered.headers });
  }

  return async (req) => {
    const appUrl = getEnv().APP_URL;
    const rejected = originRejection(req, appUrl) ?? hostRejection(req, appUrl) ?? versionRejection(req);
    if (rejected) return rejected;
    const authorization = req.headers.get("authorization");
    if (authorization === null) return unauthorizedResponse("missing");
    const token = bearerToken(authorization);
    if (!token) return unauthorizedResponse("invalid");
    const db = await openDb().catch(() => null);
    if (!db) return authUnavailableResponse();
    // The body before the credential's slot: a client sending it slowly holds no slot, and is
    // answered 408 (its connection closed) once REQUEST_BODY_TIMEOUT_MS has passed.
    const timeoutMs = getEnv().REQUEST_BODY_TIMEOUT_MS;
    const read = await readBodyWithin(req, { maxBytes: MAX_BODY_BYTES, timeoutMs });
    if (read.kind === "timed_out")
      return jsonRpcError(
        408,
        -32000,
        `Request Timeout: the body must arrive within ${timeoutMs / 1000} s`,
        REQUEST_TIMEOUT_HEADERS,
      );
    // Embedded PGlite has no pool to protect (one connection, statements queue in order).
    if (!isPooled(db)) return answer(req, token, db, read);
    const release = await credentialSlots().acquire(authorization);
    if (!release) {
      return jsonRpcError(
        503,
        -32000,
        "Busy: this credential's earlier requests are still running. Retry in a moment.",
        { "Retry-After": "1" },
      );
    }
    // A client that goes away before reading the answer frees the slot too (and one that left
    // while waiting in line gets nothing done for it).
    if (req.signal.aborted) {
      release();
      return jsonRpcError(400, -32000, "The client closed the request.");
    }
    req.signal.addEventListener("abort", release, { once: true });
    // The answer is read whole before it leaves (exchange), so the slot is free once it is made.
    try {
      return await answer(req, token, db, read);
    } finally {
      req.signal.removeEventListener("abort", release);
      release();
    }
  };
}

/** Old rate-limit windows are useless: about one new window in a hundred sweeps them, after the answer. */
function sweepRateLimitsSometimes(db: Database): void {
  if (Math.random() < 0.01) defer("rate-limit sweep", () => sweepRateLimits(db));
}

/**
 * One credential may hold at most half the request pool (and waits in its own line for at most
 * DB_ACQUIRE_TIMEOUT_MS), so one caller's slow requests never take every connection from the
 * others. Keyed by the Authorization header, before any database work; held until the answer
 * has been made (or the client has left).
 */
let slots: { limit: number; wait: number; value: KeyedSlots } | undefined;
function credentialSlots(): KeyedSlots {
  const env = getEnv();
  const limit = Math.max(1, Math.floor(env.PG_POOL_MAX / 2));
  const wait = env.DB_ACQUIRE_TIMEOUT_MS;
  if (slots?.limit !== limit || slots.wait !== wait)
    slots = { limit, wait, value: createKeyedSlots(limit, wait) };
  return slots.value;
}

/** 405 for GET (no server-initiated stream: the service is stateless) and DELETE (no sessions). */
export function methodNotAllowed(): Response {
  return jsonRpcError(405, -32000, "Method not allowed: this endpoint accepts POST only.", { Allow: "POST" });
}
