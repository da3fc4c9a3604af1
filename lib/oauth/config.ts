/**
 * OAuth settings derived from the environment in one place: the issuer is APP_URL, the one
 * protected resource is `${APP_URL}/api/mcp` (RFC 8707 audience), token lifetimes are settable.
 */
import { getEnv } from "@/lib/env";

/** Codes live at most 10 minutes (RFC 6749 §4.1.2, OAuth 2.1). */
export const CODE_TTL_SECONDS = 600;
/**
 * A grant ends this long after the person approved it (or last chose to keep it under Connected
 * apps); the app then asks for consent again.
 */
export const GRANT_MAX_AGE_DAYS = 365;

/** When a grant approved or kept at `from` ends. */
export function grantExpiry(from: Date): Date {
  return new Date(from.getTime() + GRANT_MAX_AGE_DAYS * 86_400_000);
}
/** A registered client that never completes a grant is forgotten after this long. */
export const UNUSED_CLIENT_TTL_SECONDS = 24 * 3600;

export interface OAuthConfig {
  issuer: string;
  resource: string;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
}

/**
 * The authorization server's settings, all derived from the environment: the issuer is APP_URL
 * (RFC 8414 §2) and the one resource tokens are bound to is `${APP_URL}/api/mcp` (RFC 8707).
 */
export function getOAuthConfig(): OAuthConfig {
  const env = getEnv();
  return {
    issuer: env.APP_URL,
    resource: `${env.APP_URL}/api/mcp`,
    accessTokenTtlSeconds: env.OAUTH_ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTtlSeconds: env.OAUTH_REFRESH_TOKEN_TTL_SECONDS,
  };
}

/** The endpoints, absolute, built from APP_URL (never from request headers). */
export function oauthEndpoints(issuer: string = getOAuthConfig().issuer) {
  return {
    authorization: `${issuer}/oauth/authorize`,
    consent: `${issuer}/api/oauth/authorize`,
    token: `${issuer}/api/oauth/token`,
    registration: `${issuer}/api/oauth/register`,
    revocation: `${issuer}/api/oauth/revoke`,
  };
}
