/**
 * `private_key_jwt` client authentication (RFC 7523 §2.2 and §3, OpenID Connect Core §9) for
 * clients known by their metadata document that declare it, as ChatGPT's does:
 * - the assertion's signature verifies against the document's keys (`jwks`, or `jwks_uri`
 *   fetched under the untrusted-fetch rules; an unknown `kid` fetches the keys once more);
 *   asymmetric algorithms only, so `none` and HMAC-with-the-public-key are impossible;
 * - `iss` and `sub` are the client_id; `aud` is our token endpoint or our issuer (every value of
 *   it: an assertion also meant for someone else is refused);
 * - `exp` is present and at most 5 minutes ahead; `jti` is present and accepted once: it is kept
 *   in `oauth_client_assertions` until the assertion expires, so every server instance sharing the
 *   database refuses a replay.
 * JWT and JWK work is `jose`'s. Every refusal is `invalid_client` naming the reason.
 */
import { and, eq, lt } from "drizzle-orm";
import { createLocalJWKSet, decodeJwt, errors, type JWTPayload, jwtVerify } from "jose";
import type { Database } from "@/db";
import { type OAuthClient, oauthClientAssertions } from "@/db/schema";
import { getMetadataDocumentClient, isMetadataDocumentClientId, refreshClientJwks } from "./cimd";
import { getOAuthConfig, oauthEndpoints } from "./config";
import { OAuthError } from "./errors";

export const CLIENT_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/** The signing algorithms accepted (and advertised): asymmetric only. */
export const ASSERTION_SIGNING_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
];

/** An assertion may expire at most this far ahead (seconds). */
export const ASSERTION_MAX_LIFETIME_SECONDS = 300;
/** Clock skew tolerated on `exp`, `nbf` and `iat` (seconds). */
const CLOCK_TOLERANCE_SECONDS = 30;
const MAX_ASSERTION_LENGTH = 8192;

function refuse(reason: string): never {
  throw new OAuthError("invalid_client", `The client assertion was refused: ${reason}`);
}

/** The client an assertion claims to come from: the form's client_id, else its `sub`/`iss`. */
function claimedClientId(clientId: string | undefined, assertion: string): string {
  if (assertion.length > MAX_ASSERTION_LENGTH)
    refuse(`it is longer than ${MAX_ASSERTION_LENGTH} characters.`);
  let claims: JWTPayload;
  try {
    claims = decodeJwt(assertion);
  } catch {
    refuse("it is not a JWT.");
  }
  const id = clientId ?? claims.sub ?? claims.iss;
  if (!id) refuse("it names no client (no client_id, sub or iss).");
  return id;
}

async function verifySignature(db: Database, client: OAuthClient, assertion: string) {
  const options = {
    algorithms: ASSERTION_SIGNING_ALGORITHMS,
    issuer: client.clientId,
    subject: client.clientId,
    requiredClaims: ["exp", "jti", "aud"],
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
  };
  const attempt = (keys: OAuthClient["jwks"]) => {
    if (!keys) refuse("the client publishes no keys.");
    return jwtVerify(assertion, createLocalJWKSet(keys as Parameters<typeof createLocalJWKSet>[0]), options);
  };
  try {
    return await attempt(client.jwks);
  } catch (error) {
    // A key the client rotated in since we fetched its keys: fetch them once more.
    if (error instanceof errors.JWKSNoMatchingKey && client.jwksUri) {
      const refreshed = await refreshClientJwks(db, client);
      try {
        return await attempt(refreshed.jwks);
      } catch (again) {
        throw describeJoseError(again);
      }
    }
    throw describeJoseError(error);
  }
}

function describeJoseError(error: unknown): unknown {
  if (error instanceof OAuthError) return error;
  const reason = (() => {
    if (error instanceof errors.JWSSignatureVerificationFailed)
      return "its signature does not verify with the client's published keys.";
    if (error instanceof errors.JWKSNoMatchingKey) return "no published key of the client matches it.";
    if (error instanceof errors.JWKSMultipleMatchingKeys)
      return "several of the client's keys match it; send a kid.";
    if (error instanceof errors.JOSEAlgNotAllowed)
      return `its algorithm is not accepted (accepted: ${ASSERTION_SIGNING_ALGORITHMS.join(", ")}).`;
    if (error instanceof errors.JWTExpired) return "it has expired (exp).";
    if (error instanceof errors.JWTClaimValidationFailed) {
      if (error.claim === "iss" || error.claim === "sub") return `its ${error.claim} must be the client_id.`;
      return `its ${error.claim} claim is invalid (${error.reason}).`;
    }
    if (error instanceof errors.JOSEError) return "it is not a valid signed JWT.";
    return null;
  })();
  if (reason === null) return error;
  return new OAuthError("invalid_client", `The client assertion was refused: ${reason}`);
}

/**
 * Authenticates a token or revocation request that carries a `client_assertion`. Returns the
 * client; throws `invalid_client` naming what was wrong.
 */
export async function authenticateWithAssertion(
  db: Database,
  credentials: { clientId?: string; assertion: string; assertionType?: string },
  now = new Date(),
): Promise<OAuthClient> {
  if (credentials.assertionType !== CLIENT_ASSERTION_TYPE) {
    refuse(`client_assertion_type must be ${CLIENT_ASSERTION_TYPE}.`);
  }
  const clientId = claimedClientId(credentials.clientId, credentials.assertion);
  if (!isMetadataDocumentClientId(clientId)) {
    refuse("private_key_jwt is offered to clients known by a client metadata document (an https client_id).");
  }
  const client = await getMetadataDocumentClient(db, clientId, { now });
  if (client.tokenEndpointAuthMethod !== "private_key_jwt") {
    refuse("this client's metadata document declares token_endpoint_auth_method none; send no assertion.");
  }
  const { payload } = (await verifySignature(db, client, credentials.assertion)) as { payload: JWTPayload };

  const { issuer } = getOAuthConfig();
  const accepted = [oauthEndpoints(issuer).token, issuer];
  const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if (
    audiences.length === 0 ||
    !audiences.every((aud) => typeof aud === "string" && accepted.includes(aud))
  ) {
    refuse(`its aud must be ${accepted.join(" or ")} (it is ${JSON.stringify(payload.aud)}).`);
  }
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const exp = payload.exp as number;
  if (exp > nowSeconds + ASSERTION_MAX_LIFETIME_SECONDS + CLOCK_TOLERANCE_SECONDS) {
    refuse(`its exp is more than ${ASSERTION_MAX_LIFETIME_SECONDS / 60} minutes ahead.`);
  }
  const jti = payload.jti;
  if (typeof jti !== "string" || jti.length === 0 || jti.length > 256)
    refuse("its jti must be 1 to 256 characters.");

  // Kept until the assertion expires (plus the skew it could still be accepted in).
  const keepUntil = new Date((exp + CLOCK_TOLERANCE_SECONDS) * 1000);
  await db
    .delete(oauthClientAssertions)
    .where(and(eq(oauthClientAssertions.clientId, clientId), lt(oauthClientAssertions.expiresAt, now)));
  const stored = await db
    .insert(oauthClientAssertions)
    .values({ clientId, jti, expiresAt: keepUntil })
    .onConflictDoNothing()
    .returning({ jti: oauthClientAssertions.jti });
  if (stored.length === 0) refuse("its jti was already used; every assertion is accepted once.");
  return client;
}
