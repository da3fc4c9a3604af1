/**
 * The MCP endpoint as one web-standard handler, which the route file exports. Stateless
 * streamable HTTP: every POST is served by a fresh server for the authenticated caller, so any
 * instance can answer any request. Two protocol eras share it (request.ts decides which one a
 * request belongs to; era-2025.ts and era-2026.ts serve them); every step here is the same for
 * both.
 *
 * The steps, cheapest and least revealing first:
 *  1. `Origin` present and not APP_URL's origin → 403 (DNS rebinding; the spec's MUST), and for a
 *     loopback APP_URL a `Host` that is not loopback → 403.
 *  2. No usable bearer credential → 401 with the challenge. The database unreachable → 503.
 *  3. The body read (at most MAX_BODY_BYTES, no database work, within REQUEST_BODY_TIMEOUT_MS,
 *     else 408 and the connection closed) and the request described: its era, method, tool and
 *     protocol revision (`McpRequest`).
 *  4. A slot among the credential's requests on a pooled database → 503 Busy when none frees
 *     (taken only once the body is read: a slow sender holds none).
 *  5. What the era refuses before any database work: a 2025-era header naming no revision we
 *     know → 400.
 *  6. ONE statement (caller.ts) identifies the caller, counts the request (each message of a
 *     batch) and loads the subscription, connections and timezone: 401 for no live credential,
 *     503 when the database fails.
 *  7. Per-credential rate limit → 429 with Retry-After.
 *  8. Body over MAX_BODY_BYTES → 413; not JSON → -32700; a batch against the era's rules → 400.
 *  9. The era's answer: the SDK's, with the tools and prompts, for this caller.
 * https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#streamable-http
 */
import { hostHeaderValidationResponse, localhostAllowedHostnames } from "@modelcontextprotocol/server";
import { type Database, getDb, isPooled } from "@/db";
import { defer } from "@/lib/deferred";
import { getEnv } from "@/lib/env";
import { failureFields } from "@/lib/errors";
import { createKeyedSlots, type KeyedSlots } from "@/lib/keyed-slots";
import { log } from "@/lib/log";
import { sweepRateLimits } from "@/lib/rate-limit";
import { noteRequest } from "@/lib/request-context";
import { type JsonRpcId, jsonRpcError, toResponse } from "./answer";
import { authUnavailableResponse, bearerToken, mcpResourceUrl, unauthorizedResponse } from "./auth";
import { type Caller, loadCaller } from "./caller";
import type { ToolDefinition } from "./define-tool";
import type { Era } from "./era";
import { createEra2025 } from "./era-2025";
import { createEra2026 } from "./era-2026";
import { authInfoFor } from "./register";
import { type EraName, type McpRequest, readMcpRequest } from "./request";
import { mcpOperationsOf, traceMcpOperations } from "./telemetry";
import { allTools } from "./tools";

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

/** 429 for a credential over its per-minute limit. */
function rateLimited(limit: number, retryAfterSeconds: number, id: JsonRpcId): Response {
  return jsonRpcError(
    429,
    -32000,
    `Too many requests: the limit is ${limit} per minute for this credential.`,
    {
      id,
      headers: {
        "Retry-After": String(retryAfterSeconds),
        "RateLimit-Limit": String(limit),
        "RateLimit-Remaining": "0",
      },
    },
  );
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
  const eras: Record<EraName, Era> = { "2025": createEra2025(tools), "2026-07-28": createEra2026(tools) };

  /** Step 6: the caller from one statement, or the 401/503 that ends the request. */
  async function identifyCaller(db: Database, token: string, cost: number): Promise<Caller | Response> {
    try {
      return (
        (await loadCaller(db, token, { resource: mcpResourceUrl(), cost })) ?? unauthorizedResponse("invalid")
      );
    } catch (error) {
      // Never the message: driver errors can quote the failing query's parameters.
      log.error("mcp.caller_lookup_failed", failureFields(error));
      return authUnavailableResponse();
    }
  }

  /** Step 7: 429 once the credential is over its limit (and, now and then, old windows swept). */
  function rateLimit(db: Database, caller: Caller, cost: number, request: McpRequest): Response | undefined {
    const limit = getEnv().RATE_LIMIT_PER_MINUTE;
    if (caller.count === cost) sweepRateLimitsSometimes(db);
    return caller.count > limit ? rateLimited(limit, caller.retryAfterSeconds, request.errorId) : undefined;
  }

  /** Steps 5 to 9 for a request that carries a well-formed bearer token and whose body was read. */
  async function answer(req: Request, token: string, db: Database, request: McpRequest): Promise<Response> {
    const era = eras[request.era];
    const early = era.refuseEarly(req, request);
    if (early) return early;
    const { cost, refusal } = era.admit(req, request);

    const caller = await identifyCaller(db, token, cost);
    if (caller instanceof Response) return caller;
    noteRequest({ credential: caller.credential.kind });
    const limited = rateLimit(db, caller, cost, request);
    if (limited) return limited;
    if (request.bodyError) return request.bodyError;
    if (refusal) return refusal;

    // The SDK gives `authInfo` to every tool call (register.ts reads the caller from it), and
    // takes the body parsed above instead of reading it again.
    const authInfo = authInfoFor({
      db,
      credential: caller.credential,
      access: caller.access,
      scope: caller.scope,
      timezone: caller.timezone,
    });
    const operations = mcpOperationsOf(req, request.message, request.protocolVersion);
    return toResponse(await traceMcpOperations(operations, () => era.serve(req, request, authInfo)));
  }

  return async (req) => {
    const appUrl = getEnv().APP_URL;
    const rejected = originRejection(req, appUrl) ?? hostRejection(req, appUrl);
    if (rejected) return rejected;
    const authorization = req.headers.get("authorization");
    if (authorization === null) return unauthorizedResponse("missing");
    const token = bearerToken(authorization);
    if (!token) return unauthorizedResponse("invalid");
    const db = await openDb().catch(() => null);
    if (!db) return authUnavailableResponse();
    // The body before the credential's slot: a client sending it slowly holds no slot, and is
    // answered 408 (its connection closed) once REQUEST_BODY_TIMEOUT_MS has passed.
    const request = await readMcpRequest(req);
    if (request.timedOut) return request.timedOut;
    // Embedded PGlite has no pool to protect (one connection, statements queue in order).
    if (!isPooled(db)) return answer(req, token, db, request);
    const release = await credentialSlots().acquire(authorization);
    if (!release) {
      return jsonRpcError(
        503,
        -32000,
        "Busy: this credential's earlier requests are still running. Retry in a moment.",
        {
          headers: { "Retry-After": "1" },
        },
      );
    }
    // A client that goes away before reading the answer frees the slot too (and one that left
    // while waiting in line gets nothing done for it).
    if (req.signal.aborted) {
      release();
      return jsonRpcError(400, -32000, "The client closed the request.");
    }
    req.signal.addEventListener("abort", release, { once: true });
    // Both eras read the answer whole before it leaves, so the slot is free once it is made.
    try {
      return await answer(req, token, db, request);
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
  return jsonRpcError(405, -32000, "Method not allowed: this endpoint accepts POST only.", {
    headers: { Allow: "POST" },
  });
}
