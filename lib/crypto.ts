/**
 * Encryption at rest of provider access tokens: AES-256-GCM (NIST SP 800-38D) with a random
 * 96-bit IV per message and a 128-bit tag. The key version is stored beside each ciphertext so
 * keys can rotate: `ENCRYPTION_KEY` holds one key (32 bytes as base64 or 64 hex characters) or
 * several as `v1:<key>,v2:<key>` (a bare `1:<key>` works too); the highest version encrypts, every
 * listed version decrypts.
 *
 * Unset outside production: a fixed development key (version 0) is used, with a one-time
 * warning, so `npm run db:seed` and `next dev` agree on it.
 * Unset in production: every call throws, naming ENCRYPTION_KEY.
 *
 * Ciphertext format (base64url): IV (12 bytes) ‖ tag (16 bytes) ‖ ciphertext. An optional
 * associated-data string binds a ciphertext to its row (e.g. the provider item id), so a value
 * copied into another row does not decrypt.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { log } from "@/lib/log";

export interface EncryptionKey {
  version: number;
  key: Buffer;
}

export interface Keyring {
  keys: EncryptionKey[];
  /** The key that encrypts: the highest version. */
  current: EncryptionKey;
}

export interface EncryptedSecret {
  ciphertext: string;
  keyVersion: number;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;
export const DEVELOPMENT_KEY_VERSION = 0;

function decodeKey(text: string, label: string): Buffer {
  const value = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, "hex") : Buffer.from(value, "base64");
  if (key.length !== 32) {
    throw new Error(`ENCRYPTION_KEY ${label} must be 32 bytes, as base64 or 64 hex characters.`);
  }
  return key;
}

/** Parses an ENCRYPTION_KEY value: one key, or `v1:<key>,v2:<key>`. Throws a sentence naming ENCRYPTION_KEY. */
export function parseKeyring(value: string): Keyring {
  const parts = value
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length === 0) throw new Error("ENCRYPTION_KEY is empty.");
  const keys: EncryptionKey[] = parts.map((part) => {
    const match = /^v?(\d+):(.+)$/.exec(part);
    if (!match) {
      if (parts.length > 1)
        throw new Error("ENCRYPTION_KEY with several keys must list them as v1:<key>,v2:<key>.");
      return { version: 1, key: decodeKey(part, "key") };
    }
    const version = Number(match[1]);
    if (version < 1) throw new Error("ENCRYPTION_KEY versions start at 1.");
    return { version, key: decodeKey(match[2]!, `version ${version}`) };
  });
  const versions = new Set(keys.map((k) => k.version));
  if (versions.size !== keys.length) throw new Error("ENCRYPTION_KEY lists a version twice.");
  const current = keys.reduce((a, b) => (b.version > a.version ? b : a));
  return { keys, current };
}

let warned = false;
let cache: { source: string; keyring: Keyring } | undefined;

/**
 * A fixed, public development key: the seed script (tsx, no .env loading) and `next dev` (which
 * loads .env) must derive the same key, so it depends on nothing in the environment. It protects
 * nothing, which is why production refuses to run without ENCRYPTION_KEY.
 */
function developmentKey(): EncryptionKey {
  return {
    version: DEVELOPMENT_KEY_VERSION,
    key: createHash("sha256").update("ledgerlink-development-encryption-key").digest(),
  };
}

/**
 * The keyring from the environment (read on each call, parsed once per value). Outside
 * production without ENCRYPTION_KEY: the development key, with a one-time warning.
 */
export function getKeyring(env: Record<string, string | undefined> = process.env): Keyring {
  const source = env.ENCRYPTION_KEY?.trim() ?? "";
  if (!source) {
    if (env.NODE_ENV === "production") {
      throw new Error("ENCRYPTION_KEY is not set: provider tokens cannot be encrypted in production.");
    }
    if (!warned) {
      warned = true;
      log.warn("crypto.development_key", {
        detail:
          "ENCRYPTION_KEY is not set: using a development key for provider tokens. Set ENCRYPTION_KEY in production.",
      });
    }
    const key = developmentKey();
    return { keys: [key], current: key };
  }
  if (cache?.source !== source) cache = { source, keyring: parseKeyring(source) };
  const keyring = cache.keyring;
  // Rows written in development stay readable outside production after a key is configured.
  if (env.NODE_ENV !== "production" && !keyring.keys.some((k) => k.version === DEVELOPMENT_KEY_VERSION)) {
    return { keys: [...keyring.keys, developmentKey()], current: keyring.current };
  }
  return keyring;
}

/** Encrypts `plaintext` with the newest key. `aad` binds the ciphertext to a context. */
export function encryptSecret(plaintext: string, aad = "", keyring: Keyring = getKeyring()): EncryptedSecret {
  const { version, key } = keyring.current;
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(aad, "utf8"));
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  const tag = cipher.getAuthTag();
  return { ciphertext: Buffer.concat([iv, tag, body]).toString("base64url"), keyVersion: version };
}

/** Decrypts a value from `encryptSecret`; throws when the key version is unknown or the data was altered. */
export function decryptSecret(
  ciphertext: string,
  keyVersion: number,
  aad = "",
  keyring: Keyring = getKeyring(),
): string {
  const entry = keyring.keys.find((k) => k.version === keyVersion);
  if (!entry) throw new Error(`No encryption key of version ${keyVersion} is configured in ENCRYPTION_KEY.`);
  const raw = Buffer.from(ciphertext, "base64url");
  if (raw.length < IV_BYTES + TAG_BYTES) throw new Error("The encrypted value is truncated.");
  const decipher = createDecipheriv("aes-256-gcm", entry.key, raw.subarray(0, IV_BYTES), {
    authTagLength: TAG_BYTES,
  });
  decipher.setAAD(Buffer.from(aad, "utf8"));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
      "utf8",
    );
  } catch {
    throw new Error("The encrypted value could not be decrypted (wrong key or altered data).");
  }
}

/** True when a ciphertext was made with an older key and should be re-encrypted. */
export function needsReencryption(keyVersion: number, keyring: Keyring = getKeyring()): boolean {
  return keyVersion !== keyring.current.version;
}
