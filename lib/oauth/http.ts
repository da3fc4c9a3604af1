/**
 * Small HTTP helpers for the OAuth endpoints: size-limited body reading and the CORS headers that
 * let browser-based MCP clients (e.g. the MCP Inspector) call discovery, registration, token and
 * revocation. No cookies are involved at those endpoints, so `*` is safe there.
 */
import { type Database, getDb } from "@/db";
import type { OAuthClient } from "@/db/schema";
import { getEnv } from "@/lib/env";
import { consumeRateLimit } from "@/lib/rate-limit";
import { findUnsafeText, hasUnsafeText } from "@/lib/safe-text";
import { authenticateClient, readClientCredentials } from "./clients";
import { OAuthError, oauthErrorResponse } from "./errors";

const MAX_BODY_BYTES = 64 * 1024;

const CORS_HEADERS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
  "Access-Control-Allow-Headers": "Authorization, Content-Type, MCP-Protocol-Version",
  "Access-Control-Max-Age": "86400",
} as const;

/** The answer to a CORS preflight. */
export function preflightResponse(): Response {
  return new Response(null, { status: 204, headers: CORS_HEADERS });
}

/** Adds the CORS headers to a response. */
export function withCors(response: Response): Response {
  for (const [name, value] of Object.entries(CORS_HEADERS)) response.headers.set(name, value);
  return response;
}

async function readBody(request: Request): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES)
    throw new OAuthError("invalid_request", "The request body is too large.", 413);
  const text = await request.text();
  if (text.length > MAX_BODY_BYTES)
    throw new OAuthError("invalid_request", "The request body is too large.", 413);
  return text;
}

/** Reads an `application/x-www-form-urlencoded` body (RFC 6749 §3.2). */
export async function readForm(request: Request): Promise<URLSearchParams> {
  const type = request.headers.get("content-type") ?? "";
  if (!type.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    throw new OAuthError("invalid_request", "Send the parameters as application/x-www-form-urlencoded.");
  }
  const form = new URLSearchParams(await readBody(request));
  for (const [name, value] of form) {
    if (hasUnsafeText(name) || hasUnsafeText(value))
      throw new OAuthError(
        "invalid_request",
        `Parameter ${JSON.stringify(name)} holds a NUL character or an unpaired surrogate.`,
      );
  }
  return form;
}

/** Reads a JSON body (RFC 7591 §3.1). */
export async function readJson(request: Request): Promise<unknown> {
  const type = request.headers.get("content-type") ?? "";
  if (!type.toLowerCase().startsWith("application/json")) {
    throw new OAuthError("invalid_client_metadata", "Send the client metadata as application/json.");
  }
  let body: unknown;
  try {
    body = JSON.parse(await readBody(request));
  } catch (error) {
    if (error instanceof OAuthError) throw error;
    throw new OAuthError("invalid_client_metadata", "The body is not valid JSON.");
  }
  const unsafe = findUnsafeText(body);
  if (unsafe !== null)
    throw new OAuthError(
      "invalid_client_metadata",
      `Field ${JSON.stringify(unsafe)} holds a NUL character or an unpaired surrogate.`,
    );
  return body;
}

/** What an authenticated client request hands to its endpoint's own step. */
export interface ClientRequest {
  db: Database;
  client: OAuthClient;
  form: URLSearchParams;
}

/**
 * The shared frame of the token and revocation endpoints: reads the form, authenticates the
 * client (RFC 6749 §2.3.1, RFC 7009 §2.1), runs `handle`, and maps every failure once to an
 * RFC 6749 §5.2 JSON error, with a `Basic` challenge when the client authenticated that way.
 * Every answer carries the CORS headers.
 */
export async function handleClientRequest(
  request: Request,
  handle: (call: ClientRequest) => Promise<Response>,
  options: { limit?: "token" } = {},
): Promise<Response> {
  let viaBasic = false;
  try {
    const form = await readForm(request);
    const credentials = readClientCredentials(request, form);
    viaBasic = credentials.viaBasic;
    const db = await getDb();
    if (options.limit) await limitByAddress(db, request, options.limit);
    const client = await authenticateClient(db, credentials);
    return withCors(await handle({ db, client, form }));
  } catch (error) {
    return withCors(oauthErrorResponse(error, { basicChallenge: viaBasic }));
  }
}

/**
 * The caller's address: the first `X-Forwarded-For` hop (set by the platform in front of the
 * app), else `X-Real-IP`; requests without either share one bucket.
 */
export function clientAddress(request: Request): string {
  const forwarded = request.headers.get("x-forwarded-for")?.split(",")[0]?.trim();
  return forwarded || request.headers.get("x-real-ip")?.trim() || "unknown";
}

/**
 * Counts the request against the per-address limit of `endpoint` (`register` or `token`);
 * beyond it, an OAuth error with 429 and Retry-After.
 */
export async function limitByAddress(
  db: Database,
  request: Request,
  endpoint: "register" | "token",
): Promise<void> {
  const env = getEnv();
  const limit = endpoint === "register" ? env.OAUTH_REGISTER_PER_MINUTE : env.OAUTH_TOKEN_PER_MINUTE;
  const decision = await consumeRateLimit(db, `oauth_${endpoint}:${clientAddress(request)}`, limit);
  if (!decision.allowed) {
    throw new OAuthError(
      "slow_down",
      `Too many requests: at most ${limit} per minute from one address. Retry after ${decision.retryAfterSeconds} s.`,
      429,
      decision.retryAfterSeconds,
    );
  }
}
