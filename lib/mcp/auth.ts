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
import { KEY_PREFIX, verifyApiKey } from "@/lib/api-keys";
import { getOAuthConfig } from "@/lib/oauth/config";
import { protectedResourceMetadataUrl } from "@/lib/oauth/metadata";
import { verifyAccessToken } from "@/lib/oauth/verify";

/** Who is calling, as every later step (rate limit, tools, activity log) needs it. */
export type McpCredential =
  | { kind: "api_key"; userId: string; apiKeyId: string }
  | {
      kind: "oauth";
      userId: string;
      /** The public `client_id` of the OAuth client. */
      oauthClientId: string;
      grantId: string;
      scopes: string[];
      expiresAt: Date;
    };

/** The rate-limit bucket of a credential: one per API key, one per OAuth grant. */
export function rateLimitKey(credential: McpCredential): string {
  switch (credential.kind) {
    case "api_key":
      return `api_key:${credential.apiKeyId}`;
    case "oauth":
      return `oauth:${credential.grantId}`;
  }
}

export type BearerAuthResult =
  | { ok: true; credential: McpCredential }
  /** `missing`: no Authorization header at all; `invalid`: something was sent and it is no good. */
  | { ok: false; reason: "missing" | "invalid" };

// RFC 6750 §2.1: credentials = "Bearer" 1*SP b64token; we accept exactly one space.
const BEARER_PATTERN = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/;

/** The resource OAuth tokens must be issued for: `${APP_URL}/api/mcp` (one definition, lib/oauth/config.ts). */
export function mcpResourceUrl(): string {
  return getOAuthConfig().resource;
}

/**
 * Verifies one bearer token string. `llk_…` goes to the API-key store; anything else is treated
 * as an OAuth access token for `resource`. Null when the token is not a live credential; throws
 * when the backend cannot tell.
 */
export async function verifyBearerToken(
  db: Database,
  token: string,
  resource: string,
): Promise<McpCredential | null> {
  if (token.startsWith(`${KEY_PREFIX}_`)) {
    const key = await verifyApiKey(db, token);
    return key ? { kind: "api_key", userId: key.userId, apiKeyId: key.keyId } : null;
  }
  // verifyAccessToken already refuses expired, revoked and foreign-audience tokens.
  const access = await verifyAccessToken(db, token, resource);
  if (!access) return null;
  return {
    kind: "oauth",
    userId: access.userId,
    oauthClientId: access.clientId,
    grantId: access.grantId,
    scopes: access.scopes,
    expiresAt: access.expiresAt,
  };
}

/**
 * Authenticates an `Authorization` header value (null when absent). Throws when the backend
 * fails; the caller maps that to 503.
 */
export async function authenticateBearer(
  db: Database,
  authorization: string | null,
  resource: string = mcpResourceUrl(),
): Promise<BearerAuthResult> {
  if (authorization === null) return { ok: false, reason: "missing" };
  const match = BEARER_PATTERN.exec(authorization);
  const token = match?.[1];
  if (!token) return { ok: false, reason: "invalid" };
  const credential = await verifyBearerToken(db, token, resource);
  return credential ? { ok: true, credential } : { ok: false, reason: "invalid" };
}

/**
 * The 401 for a request without a usable credential. With no credential at all the challenge
 * carries no error code (RFC 6750 §3.1); with a bad one it says `invalid_token`. Both point at
 * the protected-resource metadata so clients can start OAuth (RFC 9728 §5.1).
 */
export function unauthorizedResponse(reason: "missing" | "invalid"): Response {
  const resourceMetadataUrl = protectedResourceMetadataUrl();
  if (reason === "invalid") {
    return bearerAuthChallengeResponse(
      new OAuthError(
        OAuthErrorCode.InvalidToken,
        "The access token or API key is missing, malformed, revoked or expired",
      ),
      { resourceMetadataUrl },
    );
  }
  return Response.json(
    {
      error: "unauthorized",
      error_description: "Send Authorization: Bearer <API key or OAuth access token>.",
    },
    { status: 401, headers: { "WWW-Authenticate": `Bearer resource_metadata="${resourceMetadataUrl}"` } },
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

/**
 * Wraps a handler that needs a credential: 401 (with the challenge) when there is none, 503 when
 * the database cannot say, otherwise calls `handler(req, credential)`.
 */
export function withBearerAuth(
  getDb: () => Promise<Database>,
  handler: (req: Request, credential: McpCredential) => Promise<Response>,
): (req: Request) => Promise<Response> {
  return async (req) => {
    let result: BearerAuthResult;
    try {
      result = await authenticateBearer(await getDb(), req.headers.get("authorization"));
    } catch (error) {
      // Log the failure's kind only: driver errors can quote the failing query's parameters.
      console.error("MCP auth back end failed:", error instanceof Error ? error.name : typeof error);
      return authUnavailableResponse();
    }
    if (!result.ok) return unauthorizedResponse(result.reason);
    return handler(req, result.credential);
  };
}
