/**
 * Validation of an authorization request (RFC 6749 §4.1.1 with OAuth 2.1 and RFC 8707), shared
 * by the consent page (GET) and the consent decision (POST), which re-validates everything.
 *
 * Until the client and its redirect URI are trusted, an error is shown as a page and never
 * redirected (RFC 6749 §4.1.2.1); after that, errors go back to the client by redirect.
 */
import type { Database } from "@/db";
import type { OAuthClient } from "@/db/schema";
import { isMetadataDocumentClient } from "./cimd";
import { getClient } from "./clients";
import { getOAuthConfig } from "./config";
import { OAuthError, type OAuthErrorCode } from "./errors";
import { isWellFormedS256Challenge } from "./pkce";
import { matchRedirectUri } from "./redirect-uri";
import { DEFAULT_SCOPE, isSupportedScope, parseScope } from "./scopes";

/** The parameters of an authorization request that the consent form carries back. */
export const AUTHORIZATION_PARAMS = [
  "response_type",
  "client_id",
  "redirect_uri",
  "scope",
  "state",
  "code_challenge",
  "code_challenge_method",
  "resource",
  "prompt",
] as const;

export interface ValidAuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  scope: string;
  resource: string;
  codeChallenge: string;
  state: string | undefined;
}

export type AuthorizationValidation =
  | { kind: "ok"; request: ValidAuthorizationRequest }
  /** Shown to the user; the redirect URI is not trusted. */
  | { kind: "page_error"; message: string }
  /** Sent back to the trusted redirect URI. */
  | { kind: "redirect_error"; redirectUrl: string };

/** Builds `redirectUri?…&state=…&iss=…` (RFC 6749 §4.1.2, RFC 9207 `iss`). */
export function buildRedirect(
  redirectUri: string,
  params: Record<string, string | undefined>,
  state: string | undefined,
): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params))
    if (value !== undefined) url.searchParams.set(name, value);
  if (state !== undefined) url.searchParams.set("state", state);
  url.searchParams.set("iss", getOAuthConfig().issuer);
  return url.href;
}

/** Validates an authorization request given as URL search parameters (or form fields). */
export async function validateAuthorizationRequest(
  db: Database,
  params: URLSearchParams,
): Promise<AuthorizationValidation> {
  // RFC 6749 §3.1: parameters must not be included more than once.
  for (const name of AUTHORIZATION_PARAMS) {
    if (params.getAll(name).length > 1) {
      return { kind: "page_error", message: `The parameter ${name} appears more than once.` };
    }
  }
  const get = (name: (typeof AUTHORIZATION_PARAMS)[number]) => params.get(name) ?? undefined;

  const clientId = get("client_id");
  if (!clientId)
    return { kind: "page_error", message: "The request names no client (client_id is missing)." };
  let client: OAuthClient | null;
  try {
    client = await getClient(db, clientId);
  } catch (error) {
    // A refused client metadata document: say why, on the page (its redirect URIs are untrusted).
    if (error instanceof OAuthError)
      return { kind: "page_error", message: `${error.error}: ${error.message}` };
    throw error;
  }
  if (!client) {
    return {
      kind: "page_error",
      message: "This app is not registered with Ledgerlink, or its registration expired.",
    };
  }
  const requestedRedirect = get("redirect_uri");
  if (!requestedRedirect) return { kind: "page_error", message: "The request has no redirect_uri." };
  const redirectUri = matchRedirectUri(client.redirectUris, requestedRedirect);
  if (!redirectUri) {
    const message = isMetadataDocumentClient(client)
      ? `The redirect_uri is not listed in this app's client metadata document (${client.clientId}).`
      : "The redirect_uri is not one this app registered.";
    return { kind: "page_error", message };
  }

  // From here on the redirect URI is trusted: errors go back to the client.
  const state = get("state");
  const fail = (error: OAuthErrorCode, description: string): AuthorizationValidation => ({
    kind: "redirect_error",
    redirectUrl: buildRedirect(redirectUri, { error, error_description: description }, state),
  });

  const responseType = get("response_type");
  if (responseType !== "code") {
    return responseType === undefined
      ? fail("invalid_request", "response_type is required and must be code.")
      : fail("unsupported_response_type", "Only response_type=code is supported.");
  }
  const challenge = get("code_challenge");
  const method = get("code_challenge_method");
  if (!challenge) return fail("invalid_request", "PKCE is required: send code_challenge with method S256.");
  if (method !== "S256") {
    return fail("invalid_request", "code_challenge_method must be S256 (plain is not allowed).");
  }
  if (!isWellFormedS256Challenge(challenge)) {
    return fail("invalid_request", "code_challenge must be a base64url SHA-256 (43 characters).");
  }

  const { resource } = getOAuthConfig();
  const requestedResource = get("resource");
  if (requestedResource !== undefined && requestedResource !== resource) {
    return fail("invalid_target", `The only resource served here is ${resource}.`);
  }

  // A scope we do not have (openid, offline_access, a client's own names) is dropped, not refused
  // (RFC 6749 §3.3); the token answer states what was granted. Nothing left: the client's scope.
  const allowed = client.scope ? parseScope(client.scope) : parseScope(DEFAULT_SCOPE);
  const requestedScopes = parseScope(get("scope")).filter((s) => isSupportedScope(s) && allowed.includes(s));
  const scopes = requestedScopes.length > 0 ? requestedScopes : allowed;

  // Every grant needs the user's consent, so a request that forbids any interaction cannot succeed.
  if (parseScope(get("prompt")).includes("none")) {
    return fail("consent_required", "The user must approve this app first.");
  }

  return {
    kind: "ok",
    request: { client, redirectUri, scope: scopes.join(" "), resource, codeChallenge: challenge, state },
  };
}
