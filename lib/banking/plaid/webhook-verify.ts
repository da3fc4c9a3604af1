/**
 * Verification of Plaid webhooks, as Plaid documents it
 * (https://plaid.com/docs/api/webhooks/webhook-verification/):
 *
 * 1. The `Plaid-Verification` header is a JWT; its header must say `alg: "ES256"` (anything else,
 *    including `none` and HS256, is refused before any key is looked at) and name a `kid`.
 * 2. The public key (a JWK on P-256) is fetched by `kid` with `/webhook_verification_key/get` and
 *    cached; an expired key is refused.
 * 3. The ES256 signature is checked over `header.payload`.
 * 4. `iat` must be no older than 5 minutes (and not in the future beyond a small clock skew).
 * 5. SHA-256 of the raw request body must equal the claim `request_body_sha256`, compared in
 *    constant time.
 *
 * The module does no I/O itself: the key fetcher is injected (lib/banking/plaid/client.ts gives
 * the one that calls Plaid), so tests can serve keys they generated.
 */
import { createHash, createPublicKey, type KeyObject, timingSafeEqual, verify } from "node:crypto";
import { z } from "zod";

/** Plaid's JWK for webhook verification (`/webhook_verification_key/get` → `key`). */
export const plaidWebhookJwkSchema = z.object({
  alg: z.string().optional(),
  crv: z.literal("P-256"),
  kid: z.string(),
  kty: z.literal("EC"),
  use: z.string().optional(),
  x: z.string(),
  y: z.string(),
  created_at: z.number().optional(),
  expired_at: z.number().nullable().optional(),
});

/** Returns the JWK for `kid`, or null when Plaid does not know the key id. */
export type WebhookKeyFetcher = (kid: string) => Promise<unknown | null>;

export type WebhookVerification =
  | {
      ok: true;
      /** Hex SHA-256 of the raw body (equal to the signed claim). */
      bodySha256: string;
      /** The JWT's issued-at, seconds since the epoch. */
      iat: number;
    }
  | { ok: false; reason: WebhookRejection };

export type WebhookRejection =
  | "missing_header"
  | "malformed_jwt"
  | "unsupported_algorithm"
  | "unknown_key"
  | "expired_key"
  | "bad_signature"
  | "stale"
  | "body_mismatch";

/** Plaid's limit on a webhook JWT's age. */
export const MAX_WEBHOOK_AGE_SECONDS = 5 * 60;
/** Tolerance for a sender clock slightly ahead of ours. */
const MAX_CLOCK_SKEW_SECONDS = 60;
const KEY_CACHE_TTL_MS = 60 * 60 * 1000;
const UNKNOWN_KEY_TTL_MS = 60 * 1000;
const MAX_CACHED_KEYS = 100;

const jwtHeaderSchema = z.object({ alg: z.string(), kid: z.string().min(1).max(200) });
const jwtPayloadSchema = z.object({
  iat: z.number().int(),
  request_body_sha256: z.string().regex(/^[0-9a-f]{64}$/i),
});

function decodeJson(segment: string): unknown {
  try {
    return JSON.parse(Buffer.from(segment, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
}

interface CachedKey {
  key: KeyObject | null;
  expiredAt: number | null;
  fetchedAt: number;
}

export interface PlaidWebhookVerifier {
  verify(rawBody: string, verificationHeader: string | null): Promise<WebhookVerification>;
}

/**
 * A verifier with its own key cache. Keep one per process (the route keeps a module-level one)
 * so keys are fetched once per `kid`, not once per webhook. Unknown key ids are remembered for a
 * minute so a flood of forged kids does not become a flood of calls to Plaid.
 */
export function createPlaidWebhookVerifier(options: {
  fetchKey: WebhookKeyFetcher;
  /** Milliseconds since the epoch; tests pin it. */
  now?: () => number;
}): PlaidWebhookVerifier {
  const cache = new Map<string, CachedKey>();
  const now = options.now ?? Date.now;

  async function getKey(kid: string): Promise<CachedKey> {
    const cached = cache.get(kid);
    const ttl = cached?.key ? KEY_CACHE_TTL_MS : UNKNOWN_KEY_TTL_MS;
    if (cached && now() - cached.fetchedAt < ttl) return cached;
    const raw = await options.fetchKey(kid);
    const parsed = raw === null ? null : plaidWebhookJwkSchema.safeParse(raw);
    let entry: CachedKey;
    if (!parsed?.success || parsed.data.kid !== kid || (parsed.data.alg && parsed.data.alg !== "ES256")) {
      entry = { key: null, expiredAt: null, fetchedAt: now() };
    } else {
      const { kty, crv, x, y } = parsed.data;
      entry = {
        key: createPublicKey({ key: { kty, crv, x, y }, format: "jwk" }),
        expiredAt: parsed.data.expired_at ?? null,
        fetchedAt: now(),
      };
    }
    if (cache.size >= MAX_CACHED_KEYS) {
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) cache.delete(oldest);
    }
    cache.set(kid, entry);
    return entry;
  }

  return {
    async verify(rawBody, verificationHeader) {
      if (!verificationHeader) return { ok: false, reason: "missing_header" };
      const parts = verificationHeader.trim().split(".");
      if (parts.length !== 3) return { ok: false, reason: "malformed_jwt" };
      const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
      const header = jwtHeaderSchema.safeParse(decodeJson(headerPart));
      if (!header.success) return { ok: false, reason: "malformed_jwt" };
      // ES256 only: refuse `none`, HS256 (key confusion) and every other algorithm up front.
      if (header.data.alg !== "ES256") return { ok: false, reason: "unsupported_algorithm" };

      const key = await getKey(header.data.kid);
      if (!key.key) return { ok: false, reason: "unknown_key" };
      if (key.expiredAt !== null && key.expiredAt * 1000 <= now())
        return { ok: false, reason: "expired_key" };

      const signature = Buffer.from(signaturePart, "base64url");
      // ES256 signatures are the raw 64-byte r||s (RFC 7518 §3.4), not DER.
      if (signature.length !== 64) return { ok: false, reason: "bad_signature" };
      const signed = verify(
        "sha256",
        Buffer.from(`${headerPart}.${payloadPart}`),
        { key: key.key, dsaEncoding: "ieee-p1363" },
        signature,
      );
      if (!signed) return { ok: false, reason: "bad_signature" };

      const payload = jwtPayloadSchema.safeParse(decodeJson(payloadPart));
      if (!payload.success) return { ok: false, reason: "malformed_jwt" };
      const nowSeconds = Math.floor(now() / 1000);
      const age = nowSeconds - payload.data.iat;
      if (age > MAX_WEBHOOK_AGE_SECONDS || age < -MAX_CLOCK_SKEW_SECONDS)
        return { ok: false, reason: "stale" };

      const actual = createHash("sha256").update(rawBody, "utf8").digest();
      const claimed = Buffer.from(payload.data.request_body_sha256, "hex");
      if (claimed.length !== actual.length || !timingSafeEqual(actual, claimed)) {
        return { ok: false, reason: "body_mismatch" };
      }
      return { ok: true, bodySha256: actual.toString("hex"), iat: payload.data.iat };
    },
  };
}
