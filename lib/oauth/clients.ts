/**
 * OAuth clients: Dynamic Client Registration (RFC 7591), clients known by their metadata document
 * (cimd.ts), and client authentication at the token and revocation endpoints (RFC 6749 §2.3,
 * RFC 7523 for private_key_jwt). Client secrets are stored as SHA-256 only.
 */
import { timingSafeEqual } from "node:crypto";
import { and, eq, gt, isNotNull, isNull, lt, or } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "@/db";
import { type OAuthClient, oauthClients } from "@/db/schema";
import { hashSecret } from "@/lib/api-keys";
import { getMetadataDocumentClient, isMetadataDocumentClientId } from "./cimd";
import { authenticateWithAssertion } from "./client-assertion";
import { UNUSED_CLIENT_TTL_SECONDS } from "./config";
import { OAuthError } from "./errors";
import { redirectUriProblem } from "./redirect-uri";
import { DEFAULT_SCOPE, isSupportedScope, parseScope } from "./scopes";
import { generateSecret, SECRET_PREFIX } from "./secrets";

const AUTH_METHODS = ["none", "client_secret_post", "client_secret_basic"] as const;

const optionalUrl = z
  .string()
  .max(2000)
  .refine((v) => /^https?:\/\//i.test(v) && URL.canParse(v), "must be an http(s) URL")
  .optional();

/** The registration request body (RFC 7591 §2); unknown members are ignored as §3.1 allows. */
export const clientRegistrationSchema = z.object({
  redirect_uris: z.array(z.string()).min(1, "redirect_uris must list at least one URI").max(10),
  token_endpoint_auth_method: z.enum(AUTH_METHODS).default("client_secret_basic"),
  grant_types: z
    .array(z.enum(["authorization_code", "refresh_token"]))
    .min(1)
    .default(["authorization_code"]),
  response_types: z.array(z.literal("code")).min(1).default(["code"]),
  client_name: z.string().trim().min(1).max(100).optional(),
  client_uri: optionalUrl,
  logo_uri: optionalUrl,
  scope: z.string().max(1000).optional(),
  /** OpenID Connect Registration §2: accepted (native apps send it); nothing depends on it. */
  application_type: z.enum(["native", "web"]).optional(),
});

export interface RegisteredClient {
  client: OAuthClient;
  /** Confidential clients only: the secret in full, returned once and never stored. */
  clientSecret?: string;
}

/**
 * Registers a client. Throws OAuthError `invalid_redirect_uri` or `invalid_client_metadata`
 * (RFC 7591 §3.2.2). The registration expires unless a grant is completed.
 */
export async function registerClient(db: Database, body: unknown): Promise<RegisteredClient> {
  const parsed = clientRegistrationSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join(".") || "body";
    const error = field.startsWith("redirect_uris") ? "invalid_redirect_uri" : "invalid_client_metadata";
    throw new OAuthError(error, `${field}: ${issue?.message ?? "invalid"}`);
  }
  const meta = parsed.data;
  for (const uri of meta.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError("invalid_redirect_uri", problem);
  }
  // A scope we do not have is dropped, not refused (RFC 6749 §3.3: the server may grant less than
  // asked); the answer states the scope registered.
  const scopes = parseScope(meta.scope).filter(isSupportedScope);

  const clientSecret =
    meta.token_endpoint_auth_method === "none" ? undefined : generateSecret(SECRET_PREFIX.clientSecret);
  const now = Date.now();
  // Opportunistic clean-up of registrations that never completed a grant.
  await db
    .delete(oauthClients)
    .where(and(isNotNull(oauthClients.expiresAt), lt(oauthClients.expiresAt, new Date(now))));
  const [client] = await db
    .insert(oauthClients)
    .values({
      clientId: generateSecret(SECRET_PREFIX.clientId),
      clientSecretHash: clientSecret ? hashSecret(clientSecret) : null,
      clientName: meta.client_name ?? null,
      clientUri: meta.client_uri ?? null,
      logoUri: meta.logo_uri ?? null,
      redirectUris: meta.redirect_uris,
      tokenEndpointAuthMethod: meta.token_endpoint_auth_method,
      grantTypes: meta.grant_types,
      scope: scopes.length > 0 ? scopes.join(" ") : null,
      expiresAt: new Date(now + UNUSED_CLIENT_TTL_SECONDS * 1000),
    })
    .returning();
  if (!client) throw new OAuthError("server_error", "The client could not be saved.");
  return { client, clientSecret };
}

/** The RFC 7591 §3.2.1 response body for a registered client. */
export function clientInformationResponse({ client, clientSecret }: RegisteredClient) {
  return {
    client_id: client.clientId,
    client_id_issued_at: Math.floor(client.createdAt.getTime() / 1000),
    ...(clientSecret ? { client_secret: clientSecret, client_secret_expires_at: 0 } : {}),
    redirect_uris: client.redirectUris,
    token_endpoint_auth_method: client.tokenEndpointAuthMethod,
    grant_types: client.grantTypes,
    response_types: ["code"],
    ...(client.clientName ? { client_name: client.clientName } : {}),
    ...(client.clientUri ? { client_uri: client.clientUri } : {}),
    ...(client.logoUri ? { logo_uri: client.logoUri } : {}),
    scope: client.scope ?? DEFAULT_SCOPE,
  };
}

/**
 * The client named by `clientId`: for a URL, the client its metadata document describes (throws
 * `invalid_client` naming why a document is refused); otherwise a registration that has not
 * expired, or null.
 */
export async function getClient(db: Database, clientId: string): Promise<OAuthClient | null> {
  if (isMetadataDocumentClientId(clientId)) return getMetadataDocumentClient(db, clientId);
  return getActiveClient(db, clientId);
}

/** A registered client that has not expired, or null. */
export async function getActiveClient(db: Database, clientId: string): Promise<OAuthClient | null> {
  if (clientId.length === 0 || clientId.length > 200) return null;
  const [client] = await db
    .select()
    .from(oauthClients)
    .where(
      and(
        eq(oauthClients.clientId, clientId),
        or(isNull(oauthClients.expiresAt), gt(oauthClients.expiresAt, new Date())),
      ),
    )
    .limit(1);
  return client ?? null;
}

/** Marks a client as having completed a grant, so it no longer expires. */
export async function keepClient(db: Pick<Database, "update">, clientId: string): Promise<void> {
  await db
    .update(oauthClients)
    .set({ expiresAt: null })
    .where(and(eq(oauthClients.clientId, clientId), isNotNull(oauthClients.expiresAt)));
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export interface ClientCredentials {
  clientId?: string;
  clientSecret?: string;
  /** A private_key_jwt `client_assertion` (RFC 7523 §2.2) and its `client_assertion_type`. */
  assertion?: string;
  assertionType?: string;
  /** True when the credentials came in an `Authorization: Basic` header. */
  viaBasic: boolean;
}

/**
 * Reads client credentials from `Authorization: Basic` (RFC 6749 §2.3.1, form-urlencoded parts)
 * or from the body. Using both at once is an error.
 */
export function readClientCredentials(request: Request, form: URLSearchParams): ClientCredentials {
  const header = request.headers.get("authorization");
  const bodyId = form.get("client_id") ?? undefined;
  const bodySecret = form.get("client_secret") ?? undefined;
  const assertion = form.get("client_assertion") ?? undefined;
  if (assertion !== undefined) {
    if (header || bodySecret) {
      throw new OAuthError("invalid_request", "Use one client authentication method, not two.");
    }
    return {
      clientId: bodyId,
      assertion,
      assertionType: form.get("client_assertion_type") ?? undefined,
      viaBasic: false,
    };
  }
  if (header) {
    const match = /^Basic ([A-Za-z0-9+/=]+)$/.exec(header);
    if (!match?.[1]) throw new OAuthError("invalid_client", "Malformed Authorization header.");
    if (bodySecret) throw new OAuthError("invalid_request", "Use one client authentication method, not two.");
    const decoded = Buffer.from(match[1], "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon < 0) throw new OAuthError("invalid_client", "Malformed Authorization header.");
    let clientId: string;
    let clientSecret: string;
    try {
      clientId = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, " "));
      clientSecret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, " "));
    } catch {
      throw new OAuthError("invalid_client", "Malformed Authorization header.");
    }
    if (bodyId && bodyId !== clientId) throw new OAuthError("invalid_request", "client_id does not match.");
    return { clientId, clientSecret, viaBasic: true };
  }
  return { clientId: bodyId, clientSecret: bodySecret, viaBasic: false };
}

/**
 * Authenticates the client of a token or revocation request. Public clients (`none`) present
 * only their client_id; confidential clients must present their secret (post or basic), or a
 * signed assertion when their metadata document declares `private_key_jwt`.
 * Throws `invalid_client` (401).
 */
export async function authenticateClient(db: Database, credentials: ClientCredentials): Promise<OAuthClient> {
  if (credentials.assertion !== undefined) {
    return authenticateWithAssertion(db, { ...credentials, assertion: credentials.assertion });
  }
  if (!credentials.clientId) throw new OAuthError("invalid_client", "Client authentication failed.");
  const client = await getClient(db, credentials.clientId);
  if (!client) throw new OAuthError("invalid_client", "Client authentication failed.");
  if (client.tokenEndpointAuthMethod === "private_key_jwt") {
    throw new OAuthError(
      "invalid_client",
      "This client authenticates with private_key_jwt: send client_assertion and client_assertion_type.",
    );
  }
  if (client.tokenEndpointAuthMethod === "none") {
    if (credentials.clientSecret) {
      throw new OAuthError("invalid_client", "This public client has no secret.");
    }
    return client;
  }
  if (
    !credentials.clientSecret ||
    !client.clientSecretHash ||
    !safeEqual(hashSecret(credentials.clientSecret), client.clientSecretHash)
  ) {
    throw new OAuthError("invalid_client", "Client authentication failed.");
  }
  return client;
}
