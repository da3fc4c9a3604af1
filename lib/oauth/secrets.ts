/**
 * Opaque OAuth secrets: a short prefix naming the kind (so secret scanners and logs can tell
 * them apart, and the MCP gate can tell them from `llk_` API keys) and 32 CSPRNG bytes in
 * base64url. Only `hashSecret` (SHA-256) of each is stored.
 */
import { randomBytes } from "node:crypto";

export const SECRET_PREFIX = {
  accessToken: "llat_",
  refreshToken: "llrt_",
  code: "llac_",
  clientSecret: "llcs_",
  clientId: "llci_",
} as const;

/** A fresh bearer secret: `prefix` + 32 CSPRNG bytes in base64url. Store only its hash (`hashSecret`). */
export function generateSecret(prefix: (typeof SECRET_PREFIX)[keyof typeof SECRET_PREFIX]): string {
  return `${prefix}${randomBytes(32).toString("base64url")}`;
}

/** Cheap shape check before any database look-up. */
export function looksLike(prefix: string, value: string): boolean {
  return value.length === prefix.length + 43 && value.startsWith(prefix) && /^[A-Za-z0-9_-]+$/.test(value);
}
