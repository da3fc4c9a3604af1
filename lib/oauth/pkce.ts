/**
 * PKCE with S256 only (RFC 7636; OAuth 2.1 §4.1.1 forbids `plain` here).
 * https://www.rfc-editor.org/rfc/rfc7636#section-4.6
 */
import { createHash, timingSafeEqual } from "node:crypto";

/** A verifier is 43–128 characters of [A-Z a-z 0-9 - . _ ~] (RFC 7636 §4.1). */
const VERIFIER_PATTERN = /^[A-Za-z0-9\-._~]{43,128}$/;
/** An S256 challenge is the base64url SHA-256 of the verifier: exactly 43 characters. */
const S256_CHALLENGE_PATTERN = /^[A-Za-z0-9\-_]{43}$/;

/** True for a syntactically valid S256 `code_challenge` (RFC 7636 §4.2). */
export function isWellFormedS256Challenge(challenge: string): boolean {
  return S256_CHALLENGE_PATTERN.test(challenge);
}

/** `BASE64URL(SHA256(ASCII(code_verifier)))`, the S256 transformation (RFC 7636 §4.2). */
export function s256Challenge(verifier: string): string {
  return createHash("sha256").update(verifier, "ascii").digest("base64url");
}

export type PkceCheck = "ok" | "missing_verifier" | "unexpected_verifier" | "mismatch";

/**
 * Checks a token request's `code_verifier` against the code's challenge. A code issued without
 * a challenge (`challenge` empty) must not be redeemed with a verifier, or an attacker could
 * pass off a code obtained without PKCE as a PKCE one (RFC 9700 §4.8.2).
 */
export function checkPkce(challenge: string | null, verifier: string | undefined): PkceCheck {
  if (!challenge) return verifier === undefined ? "ok" : "unexpected_verifier";
  if (verifier === undefined || verifier === "") return "missing_verifier";
  if (!VERIFIER_PATTERN.test(verifier)) return "mismatch";
  const expected = Buffer.from(challenge, "ascii");
  const actual = Buffer.from(s256Challenge(verifier), "ascii");
  return expected.length === actual.length && timingSafeEqual(expected, actual) ? "ok" : "mismatch";
}
