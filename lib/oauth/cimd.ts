/**
 * Client ID Metadata Documents (CIMD): a `client_id` that is an https URL with a path names the
 * client's metadata document, which we fetch instead of asking the client to register.
 * https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#client-id-metadata-documents
 * https://datatracker.ietf.org/doc/draft-ietf-oauth-client-id-metadata-document/
 *
 * - The URL: https, a path (not just "/"), no fragment, no user info, no dot segments.
 * - The document: JSON whose `client_id` equals the URL exactly, with `client_name` and
 *   `redirect_uris` (each one acceptable as a redirect URI); a public client (`none`) or one that
 *   authenticates with `private_key_jwt` (its keys inline as `jwks` or at `jwks_uri`, fetched
 *   under the same guards). Shared secrets cannot exist without registration and are refused.
 * - The fetch is a request to an attacker-chosen URL (untrusted-fetch.ts).
 * - Cached as a row of `oauth_clients` (the grants reference it) until `documentExpiresAt`, from
 *   the answer's Cache-Control max-age or Expires, held within 5 minutes to 24 hours.
 * - Every refusal is `invalid_client` whose description names the reason; nothing is stored
 *   for a refused document (a cached row whose refetch is refused is left as it was, unused).
 */
import { and, eq, isNotNull, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { type OAuthClient, oauthClients } from "@/db/schema";
import { getEnv } from "@/lib/env";
import { findUnsafeText } from "@/lib/safe-text";
import { UNUSED_CLIENT_TTL_SECONDS } from "./config";
import { OAuthError } from "./errors";
import { isLoopbackRedirectUri, redirectUriProblem } from "./redirect-uri";
import { isSupportedScope, parseScope } from "./scopes";
import { fetchUntrustedJson, UntrustedFetchError, type UntrustedFetchOptions } from "./untrusted-fetch";

/** A document is kept at least this long, whatever its headers say (seconds). */
export const DOCUMENT_MIN_CACHE_SECONDS = 5 * 60;
/** … and at most this long. */
export const DOCUMENT_MAX_CACHE_SECONDS = 24 * 3600;

const MAX_CLIENT_ID_LENGTH = 2000;
const MAX_REDIRECT_URIS = 20;
const MAX_KEYS = 20;

/** True when `clientId` is a URL, so it names a metadata document rather than a registration. */
export function isMetadataDocumentClientId(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

/** True for a client known from its metadata document (not registered through /register). */
export function isMetadataDocumentClient(client: Pick<OAuthClient, "documentExpiresAt">): boolean {
  return client.documentExpiresAt !== null;
}

/** The host that published a metadata-document client's name (`chatgpt.com`). */
export function documentHost(client: Pick<OAuthClient, "clientId">): string {
  return new URL(client.clientId).host;
}

/** True when every redirect URI of the client returns to this computer (loopback http). */
export function redirectsOnlyToLoopback(client: Pick<OAuthClient, "redirectUris">): boolean {
  return client.redirectUris.length > 0 && client.redirectUris.every(isLoopbackRedirectUri);
}

/** A refused client metadata document: `invalid_client` with the reason. */
export class ClientMetadataRefused extends OAuthError {
  constructor(
    readonly clientId: string,
    readonly reason: string,
  ) {
    super("invalid_client", `The client metadata document ${clientId} was refused: ${reason}`);
    this.name = "ClientMetadataRefused";
  }
}

function testOrigins(): readonly string[] {
  return getEnv().OAUTH_CIMD_TEST_ORIGINS;
}

/** Null when `clientId` may name a metadata document, else the reason it may not. */
export function clientIdUrlProblem(
  clientId: string,
  allowed: readonly string[] = testOrigins(),
): string | null {
  if (clientId.length > MAX_CLIENT_ID_LENGTH) return `It is longer than ${MAX_CLIENT_ID_LENGTH} characters.`;
  if (!URL.canParse(clientId)) return "It is not an absolute URL.";
  const url = new URL(clientId);
  if (url.protocol !== "https:" && !allowed.includes(url.origin)) {
    return `It uses ${url.protocol.slice(0, -1)}; a client_id URL must use https.`;
  }
  if (clientId.includes("#")) return "It has a fragment; a client_id URL must not.";
  if (url.username || url.password) return "It carries a user name or password.";
  if (url.pathname === "/" || url.pathname === "") {
    return "It has no path; a client_id URL names a document, such as https://example.com/oauth/client.json.";
  }
  const rawPath = clientId.slice(clientId.indexOf("//") + 2).split(/[?#]/)[0] ?? "";
  const segments = rawPath.split("/").slice(1);
  if (segments.some((s) => [".", ".."].includes(s.replace(/%2e/gi, ".")))) {
    return "Its path has a . or .. segment.";
  }
  return null;
}

/** The client as its document describes it, ready for the `oauth_clients` row. */
export interface ClientMetadata {
  clientName: string;
  clientUri: string | null;
  logoUri: string | null;
  redirectUris: string[];
  tokenEndpointAuthMethod: "none" | "private_key_jwt";
  grantTypes: string[];
  scope: string | null;
  jwksUri: string | null;
  jwks: { keys: Record<string, unknown>[] } | null;
}

type Refuse = (reason: string) => never;

/** `value` when it is an https URL (or one on a test origin, when `origins` are given). */
function optionalHttpsUrl(
  value: unknown,
  name: string,
  refuse: Refuse,
  origins: readonly string[] = [],
): string | null {
  if (value === undefined || value === null) return null;
  const url = typeof value === "string" && URL.canParse(value) ? new URL(value) : null;
  if (!url || (url.protocol !== "https:" && !origins.includes(url.origin))) {
    refuse(`${name} must be an https URL.`);
  }
  return value as string;
}

/** Checks a JWK Set: public keys only (a private member is refused outright). */
export function parseJwks(value: unknown, name: string, refuse: Refuse): { keys: Record<string, unknown>[] } {
  const keys = (value as { keys?: unknown } | null)?.keys;
  if (typeof value !== "object" || value === null || !Array.isArray(keys) || keys.length === 0) {
    refuse(`${name} must be a JWK Set with at least one key.`);
  }
  const list = keys as unknown[];
  if (list.length > MAX_KEYS) refuse(`${name} holds more than ${MAX_KEYS} keys.`);
  for (const key of list) {
    if (typeof key !== "object" || key === null || typeof (key as { kty?: unknown }).kty !== "string") {
      refuse(`${name} holds something that is not a JWK.`);
    }
    if (["d", "p", "q", "dp", "dq", "qi", "k"].some((member) => Object.hasOwn(key as object, member))) {
      refuse(`${name} holds private or symmetric key material; publish public keys only.`);
    }
  }
  return { keys: list as Record<string, unknown>[] };
}

/**
 * Validates a fetched document for `clientId`. Throws `ClientMetadataRefused` naming the first
 * problem. `jwks_uri` is checked here and fetched by the caller.
 */
export function parseClientMetadataDocument(clientId: string, body: unknown): ClientMetadata {
  const refuse: Refuse = (reason) => {
    throw new ClientMetadataRefused(clientId, reason);
  };
  if (typeof body !== "object" || body === null || Array.isArray(body)) refuse("It is not a JSON object.");
  const doc = body as Record<string, unknown>;
  const unsafe = findUnsafeText(doc);
  if (unsafe !== null)
    refuse(`Its member ${JSON.stringify(unsafe)} holds a NUL character or an unpaired surrogate.`);
  if (doc.client_id !== clientId) {
    refuse(
      `Its client_id (${JSON.stringify(doc.client_id ?? null)}) is not the URL it was fetched from; they must be equal.`,
    );
  }
  const name = typeof doc.client_name === "string" ? doc.client_name.trim() : "";
  if (!name) refuse("It has no client_name.");
  if (name.length > 100) refuse("Its client_name is longer than 100 characters.");
  const redirects = doc.redirect_uris;
  if (!Array.isArray(redirects) || redirects.length === 0) refuse("It has no redirect_uris.");
  const redirectUris = redirects as unknown[];
  if (redirectUris.length > MAX_REDIRECT_URIS)
    refuse(`It lists more than ${MAX_REDIRECT_URIS} redirect_uris.`);
  for (const [i, uri] of redirectUris.entries()) {
    if (typeof uri !== "string") refuse(`redirect_uris[${i}] is not a string.`);
    const problem = redirectUriProblem(uri as string);
    if (problem) refuse(`redirect_uris[${i}]: ${problem}`);
  }
  if (doc.client_secret !== undefined) refuse("It carries a client_secret; a metadata document must not.");

  const method = doc.token_endpoint_auth_method ?? "none";
  if (method !== "none" && method !== "private_key_jwt") {
    refuse(
      `Its token_endpoint_auth_method ${JSON.stringify(method)} is not offered: a client known by its metadata document uses none (PKCE) or private_key_jwt.`,
    );
  }
  let jwksUri: string | null = null;
  let jwks: ClientMetadata["jwks"] = null;
  if (method === "private_key_jwt") {
    if (doc.jwks !== undefined) jwks = parseJwks(doc.jwks, "jwks", refuse);
    else if (doc.jwks_uri !== undefined)
      jwksUri = optionalHttpsUrl(doc.jwks_uri, "jwks_uri", refuse, testOrigins());
    else refuse("It declares private_key_jwt but publishes no keys (jwks or jwks_uri).");
  }

  const declaredGrants = doc.grant_types ?? ["authorization_code"];
  if (!Array.isArray(declaredGrants)) refuse("Its grant_types is not a list.");
  // Grants we do not offer (device_code …) are simply not used.
  const grantTypes = (declaredGrants as unknown[]).filter(
    (g): g is string => g === "authorization_code" || g === "refresh_token",
  );
  if (!grantTypes.includes("authorization_code"))
    refuse("Its grant_types do not include authorization_code.");
  const responseTypes = doc.response_types ?? ["code"];
  if (!Array.isArray(responseTypes) || !responseTypes.includes("code")) {
    refuse("Its response_types do not include code.");
  }
  const scopes = parseScope(typeof doc.scope === "string" ? doc.scope : undefined).filter(isSupportedScope);

  return {
    clientName: name,
    clientUri: optionalHttpsUrl(doc.client_uri, "client_uri", refuse),
    logoUri: optionalHttpsUrl(doc.logo_uri, "logo_uri", refuse),
    redirectUris: redirectUris as string[],
    tokenEndpointAuthMethod: method,
    grantTypes,
    scope: scopes.length > 0 ? scopes.join(" ") : null,
    jwksUri,
    jwks,
  };
}

/**
 * How long a fetched document may be used (seconds): Cache-Control `max-age` (`no-store` and
 * `no-cache` mean as little as allowed), else `Expires` against `Date`, else the minimum; always
 * within 5 minutes to 24 hours.
 */
export function cacheLifetimeSeconds(headers: {
  cacheControl: string | null;
  expires: string | null;
  date: string | null;
}): number {
  const clamp = (seconds: number) =>
    Math.min(DOCUMENT_MAX_CACHE_SECONDS, Math.max(DOCUMENT_MIN_CACHE_SECONDS, Math.floor(seconds)));
  const directives = (headers.cacheControl ?? "").toLowerCase();
  if (/(^|[\s,])(no-store|no-cache)([\s,=]|$)/.test(directives)) return DOCUMENT_MIN_CACHE_SECONDS;
  const maxAge = /(?:^|[\s,])max-age\s*=\s*"?(\d+)"?/.exec(directives)?.[1];
  if (maxAge !== undefined) return clamp(Number(maxAge));
  if (headers.expires) {
    const expires = Date.parse(headers.expires);
    const date = headers.date ? Date.parse(headers.date) : Date.now();
    if (Number.isFinite(expires) && Number.isFinite(date)) return clamp((expires - date) / 1000);
  }
  return DOCUMENT_MIN_CACHE_SECONDS;
}

/** Fetches under the untrusted-fetch rules, turning a refusal into `ClientMetadataRefused`. */
async function fetchForClient(
  clientId: string,
  url: string,
  what: string | null,
  options: UntrustedFetchOptions,
) {
  try {
    return await fetchUntrustedJson(url, { testOrigins: testOrigins(), ...options });
  } catch (error) {
    if (error instanceof UntrustedFetchError) {
      throw new ClientMetadataRefused(clientId, what ? `${what}: ${error.message}` : error.message);
    }
    throw error;
  }
}

/** Fetches `jwksUri` (same guards) and checks it is a public JWK Set. */
export async function fetchClientJwks(
  clientId: string,
  jwksUri: string,
  options: UntrustedFetchOptions = {},
): Promise<{ keys: Record<string, unknown>[] }> {
  const fetched = await fetchForClient(clientId, jwksUri, `Its jwks_uri ${jwksUri}`, options);
  return parseJwks(fetched.body, `The JWK Set at ${jwksUri}`, (reason) => {
    throw new ClientMetadataRefused(clientId, reason);
  });
}

export interface MetadataDocumentOptions extends UntrustedFetchOptions {
  now?: Date;
  /** Fetch even when the cached document is fresh. */
  refresh?: boolean;
}

/**
 * The client named by the metadata document at `clientId`: the cached row while it is fresh,
 * else the document fetched, validated and stored. Throws `ClientMetadataRefused`.
 */
export async function getMetadataDocumentClient(
  db: Database,
  clientId: string,
  options: MetadataDocumentOptions = {},
): Promise<OAuthClient> {
  const now = options.now ?? new Date();
  const problem = clientIdUrlProblem(clientId);
  if (problem) throw new ClientMetadataRefused(clientId, problem);
  if (!options.refresh) {
    const [cached] = await db
      .select()
      .from(oauthClients)
      .where(and(eq(oauthClients.clientId, clientId), isNotNull(oauthClients.documentExpiresAt)))
      .limit(1);
    if (cached?.documentExpiresAt && cached.documentExpiresAt > now) return cached;
  }

  const fetched = await fetchForClient(clientId, clientId, null, options);
  const metadata = parseClientMetadataDocument(clientId, fetched.body);
  if (metadata.jwksUri) metadata.jwks = await fetchClientJwks(clientId, metadata.jwksUri, options);
  const documentExpiresAt = new Date(now.getTime() + cacheLifetimeSeconds(fetched) * 1000);
  const unusedExpiry = new Date(now.getTime() + UNUSED_CLIENT_TTL_SECONDS * 1000);
  const fields = { ...metadata, clientSecretHash: null, documentExpiresAt };
  const [row] = await db
    .insert(oauthClients)
    .values({ clientId, ...fields, expiresAt: unusedExpiry })
    .onConflictDoUpdate({
      target: oauthClients.clientId,
      // A client with a grant never expires; one without gets the same day as a new one.
      set: {
        ...fields,
        expiresAt: sql`case when ${oauthClients.expiresAt} is null then null else ${unusedExpiry.toISOString()}::timestamptz end`,
      },
      setWhere: isNotNull(oauthClients.documentExpiresAt),
    })
    .returning();
  if (!row)
    throw new ClientMetadataRefused(clientId, "Its client_id is already taken by a registered client.");
  return row;
}

/** Replaces the stored keys of a `jwks_uri` client with a fresh fetch (a key it rotated in). */
export async function refreshClientJwks(
  db: Database,
  client: OAuthClient,
  options: UntrustedFetchOptions = {},
): Promise<OAuthClient> {
  if (!client.jwksUri) return client;
  const jwks = await fetchClientJwks(client.clientId, client.jwksUri, options);
  const [row] = await db
    .update(oauthClients)
    .set({ jwks })
    .where(eq(oauthClients.clientId, client.clientId))
    .returning();
  return row ?? client;
}
