import { createHmac, generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createPlaidWebhookVerifier } from "@/lib/banking/plaid/webhook-verify";
import { signPlaidWebhook } from "@/tests/fixtures/plaid-fake";

const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
const other = generateKeyPairSync("ec", { namedCurve: "P-256" });
const KID = "kid-test-1";
const jwk = { ...publicKey.export({ format: "jwk" }), kid: KID, alg: "ES256", use: "sig", expired_at: null };
const body = JSON.stringify({
  webhook_type: "TRANSACTIONS",
  webhook_code: "SYNC_UPDATES_AVAILABLE",
  item_id: "i1",
});
const b64url = (v: string | Buffer) => Buffer.from(v).toString("base64url");

function makeVerifier(options: { keys?: Record<string, unknown>; now?: () => number } = {}) {
  const fetched: string[] = [];
  const keys = options.keys ?? { [KID]: jwk };
  const verifier = createPlaidWebhookVerifier({
    fetchKey: async (kid) => {
      fetched.push(kid);
      return keys[kid] ?? null;
    },
    now: options.now,
  });
  return { verifier, fetched };
}

describe("Plaid webhook JWT verification", () => {
  it("accepts a correctly signed, fresh JWT over the exact body and caches the key", async () => {
    const { verifier, fetched } = makeVerifier();
    const jwt = signPlaidWebhook(body, { privateKey, kid: KID });
    const first = await verifier.verify(body, jwt);
    expect(first.ok).toBe(true);
    const second = await verifier.verify(body, signPlaidWebhook(body, { privateKey, kid: KID }));
    expect(second.ok).toBe(true);
    expect(fetched).toEqual([KID]);
  });

  it("refuses a missing or malformed header", async () => {
    const { verifier } = makeVerifier();
    expect(await verifier.verify(body, null)).toEqual({ ok: false, reason: "missing_header" });
    expect(await verifier.verify(body, "a.b")).toEqual({ ok: false, reason: "malformed_jwt" });
  });

  it("refuses alg none and HS256 without fetching a key", async () => {
    const { verifier, fetched } = makeVerifier();
    const payload = b64url(
      JSON.stringify({ iat: Math.floor(Date.now() / 1000), request_body_sha256: "0".repeat(64) }),
    );
    const none = `${b64url(JSON.stringify({ alg: "none", kid: KID }))}.${payload}.`;
    expect(await verifier.verify(body, none)).toEqual({ ok: false, reason: "unsupported_algorithm" });
    // HS256 "signed" with the public key as the HMAC secret: the classic key-confusion forgery.
    const hsHeader = b64url(JSON.stringify({ alg: "HS256", kid: KID }));
    const mac = createHmac("sha256", JSON.stringify(jwk)).update(`${hsHeader}.${payload}`).digest();
    expect(await verifier.verify(body, `${hsHeader}.${payload}.${b64url(mac)}`)).toEqual({
      ok: false,
      reason: "unsupported_algorithm",
    });
    expect(fetched).toEqual([]);
  });

  it("refuses an unknown key id, and a known kid signed by another key", async () => {
    const { verifier } = makeVerifier();
    const unknown = signPlaidWebhook(body, { privateKey, kid: "kid-nobody-knows" });
    expect(await verifier.verify(body, unknown)).toEqual({ ok: false, reason: "unknown_key" });
    const forged = signPlaidWebhook(body, { privateKey: other.privateKey, kid: KID });
    expect(await verifier.verify(body, forged)).toEqual({ ok: false, reason: "bad_signature" });
  });

  it("refuses an expired key", async () => {
    const expired = { ...jwk, expired_at: Math.floor(Date.now() / 1000) - 10 };
    const { verifier } = makeVerifier({ keys: { [KID]: expired } });
    const jwt = signPlaidWebhook(body, { privateKey, kid: KID });
    expect(await verifier.verify(body, jwt)).toEqual({ ok: false, reason: "expired_key" });
  });

  it("refuses an iat older than 5 minutes but accepts one just inside", async () => {
    const now = Date.now();
    const { verifier } = makeVerifier({ now: () => now });
    const nowSeconds = Math.floor(now / 1000);
    const old = signPlaidWebhook(body, { privateKey, kid: KID, iat: nowSeconds - 301 });
    expect(await verifier.verify(body, old)).toEqual({ ok: false, reason: "stale" });
    const future = signPlaidWebhook(body, { privateKey, kid: KID, iat: nowSeconds + 600 });
    expect(await verifier.verify(body, future)).toEqual({ ok: false, reason: "stale" });
    const edge = signPlaidWebhook(body, { privateKey, kid: KID, iat: nowSeconds - 299 });
    expect((await verifier.verify(body, edge)).ok).toBe(true);
  });

  it("refuses a body changed after signing (one byte, or whitespace)", async () => {
    const { verifier } = makeVerifier();
    const jwt = signPlaidWebhook(body, { privateKey, kid: KID });
    expect(await verifier.verify(body.replace("i1", "i2"), jwt)).toEqual({
      ok: false,
      reason: "body_mismatch",
    });
    expect(await verifier.verify(`${body} `, jwt)).toEqual({ ok: false, reason: "body_mismatch" });
  });

  it("refuses a payload swapped under a valid signature", async () => {
    const { verifier } = makeVerifier();
    const jwt = signPlaidWebhook(body, { privateKey, kid: KID });
    const [h, , s] = jwt.split(".");
    const otherBody = "{}";
    const payload = b64url(
      JSON.stringify({
        iat: Math.floor(Date.now() / 1000),
        request_body_sha256: (await import("node:crypto"))
          .createHash("sha256")
          .update(otherBody)
          .digest("hex"),
      }),
    );
    expect(await verifier.verify(otherBody, `${h}.${payload}.${s}`)).toEqual({
      ok: false,
      reason: "bad_signature",
    });
  });
});
