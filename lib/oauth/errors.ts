/**
 * OAuth protocol errors. They are expected outcomes with a code from the RFCs, not AppErrors:
 * the token, registration and revocation endpoints answer them as JSON
 * `{ error, error_description }` (RFC 6749 §5.2, RFC 7591 §3.2.2), the authorize step as a
 * redirect or an error page (RFC 6749 §4.1.2.1).
 */
import { failureFields, isDatabaseUnavailable } from "@/lib/errors";
import { log } from "@/lib/log";

export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "unsupported_response_type"
  | "invalid_scope"
  | "invalid_target"
  | "access_denied"
  | "consent_required"
  | "server_error"
  | "invalid_redirect_uri"
  | "invalid_client_metadata"
  /** Too many requests from this address (429 with Retry-After). */
  | "slow_down";

export class OAuthError extends Error {
  readonly error: OAuthErrorCode;
  readonly status: number;

  /** Seconds for `Retry-After` (rate limits). */
  readonly retryAfter: number | undefined;

  constructor(error: OAuthErrorCode, description: string, status?: number, retryAfter?: number) {
    super(description);
    this.name = "OAuthError";
    this.error = error;
    this.status = status ?? (error === "invalid_client" ? 401 : error === "server_error" ? 500 : 400);
    this.retryAfter = retryAfter;
  }
}

/** Headers every response that may carry a credential must have (RFC 6749 §5.1). */
export const NO_STORE_HEADERS = { "Cache-Control": "no-store", Pragma: "no-cache" } as const;

/**
 * Logs an unexpected failure without its message (`failureFields`): a failed query's message
 * carries its parameters, which here can be a session token or a hash of a secret.
 */
export function logOAuthFailure(where: string, error: unknown): void {
  log.error("oauth.failed", { where, ...failureFields(error) });
}

/** RFC 6749 §5.2 JSON error; unknown failures become a generic `server_error`. */
export function oauthErrorResponse(error: unknown, init?: { basicChallenge?: boolean }): Response {
  if (!(error instanceof OAuthError) && isDatabaseUnavailable(error)) {
    logOAuthFailure("request (database unavailable)", error);
    return Response.json(
      {
        error: "temporarily_unavailable",
        error_description: "The service is briefly unavailable. Please retry in a few seconds.",
      },
      { status: 503, headers: { ...NO_STORE_HEADERS, "Retry-After": "5" } },
    );
  }
  if (!(error instanceof OAuthError)) {
    logOAuthFailure("request", error);
    return Response.json(
      { error: "server_error", error_description: "Something went wrong on our side. Please try again." },
      { status: 500, headers: NO_STORE_HEADERS },
    );
  }
  const headers: Record<string, string> = { ...NO_STORE_HEADERS };
  if (error.status === 401 && init?.basicChallenge) headers["WWW-Authenticate"] = 'Basic realm="ledgerlink"';
  if (error.retryAfter !== undefined) headers["Retry-After"] = String(error.retryAfter);
  return Response.json(
    { error: error.error, error_description: error.message },
    { status: error.status, headers },
  );
}
