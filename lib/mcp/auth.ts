/**
 * Bearer authentication of the MCP endpoint. One function decides who is calling, for both kinds
 * of credential:
 * - a static API key `llk_…` (lib/api-keys.ts), and
 * - an OAuth 2.1 access token (lib/oauth/verify.ts), which must be bound to this resource
 *   (RFC 8707 audience `${APP_URL}/api/mcp`).
 *
 * Only `Authorization: Bearer <token>` counts: the exact word `Bearer`, one space, a token
 * (RFC 6750 §2.1 b64token). Tokens in the query string are never read (RFC 6750 §2.3 is not
 * offered: URLs end up in logs). A backend failure throws instead of answering "no", so the route
 * answers 503, never a pass and never a misleading 401.
 *
 * Why not mcp-handler's `withMcpAuth`: it accepts any case of "bearer" and any number of spaces,
 * and turns a verifier failure (database down) into a 401. Both are promises we must not break,
 * so `withBearerAuth` below does the same job with the SDK's own challenge builder.
 * https://modelcontextprotocol.io/specification/2025-06-18/basic/authorization
 */
import { bearerAuthChallengeResponse, OAuthError, OAuthErrorCode } from "@modelcontextprotocol/server";
import type { Database } from "@/db";
import { getOAuthConfig } from "@/lib/oauth/config";
import { protectedResourceMetadataUrl } from "@/lib/oauth/metadata";
import { DEFAULT_SCOPE } from "@/lib/oauth/scopes";
import { loadCaller } from "./caller";
import type { McpCredential } from "./credential";

// RFC 6750 §2.1: credentials = "Bearer" 1*SP b64token; we accept exactly one space.
const BEARER_PATTERN = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/;

/** The resource OAuth tokens must be issued for: `${APP_URL}/api/mcp` (one definition, lib/oauth/config.ts). */
export function mcpResourceUrl(): string {
  return getOAuthConfig().resource;
}

/** The token of an `Authorization` value, or null unless it is exactly `Bearer <token>`. */
export function bearerToken(authorization: string): string | null {
  return BEARER_PATTERN.exec(authorization)?.[1] ?? null;
}

/**
 * The credential a bearer token stands for, or null when it is no live credential (unknown,
 * revoked, rotated, expired, for another resource). Throws when the database cannot tell. The
 * MCP endpoint gets the same answer from its one context statement (caller.ts); this counts
 * nothing against the rate limit.
 */
export async function verifyBearerToken(
  db: Database,
  token: string,
  resource: string = mcpResourceUrl(),
): Promise<McpCredential | null> {
  return (await loadCaller(db, token, { resource, cost: 0 }))?.credential ?? null;
}

/**
 * The 401 for a request without a usable credential. With no credential at all the challenge
 * carries no error code (RFC 6750 §3.1); with a bad one it says `invalid_token`. Both point at
 * the protected-resource metadata so clients can start OAuth (RFC 9728 §5.1), and name the
 * scope to ask for (`scope="finance:read"`, MCP authorization "Scope Selection Strategy").
 */
export function unauthorizedResponse(reason: "missing" | "invalid"): Response {
  const resourceMetadataUrl = protectedResourceMetadataUrl();
  if (reason === "invalid") {
    return bearerAuthChallengeResponse(
      new OAuthError(
        OAuthErrorCode.InvalidToken,
        "The access token or API key is missing, malformed, revoked or expired",
      ),
      { resourceMetadataUrl, requiredScopes: [DEFAULT_SCOPE] },
    );
  }
  return Response.json(
    {
      error: "unauthorized",
      error_description: "Send Authorization: Bearer <API key or OAuth access token>.",
    },
    {
      status: 401,
      headers: {
        "WWW-Authenticate": `Bearer resource_metadata="${resourceMetadataUrl}", scope="${DEFAULT_SCOPE}"`,
      },
    },
  );
}

/** 503 for an auth back end that could not answer: generic, retryable, no internals. */
export function authUnavailableResponse(retryAfterSeconds = 5): Response {
  return Response.json(
    {
      error: "temporarily_unavailable",
      error_description: "Authentication is temporarily unavailable. Please retry.",
    },
    { status: 503, headers: { "Retry-After": String(retryAfterSeconds), "Cache-Control": "no-store" } },
  );
}
