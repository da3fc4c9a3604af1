/**
 * API keys: `llk_<secret>`. The secret is 32 CSPRNG bytes in base62 (43 characters) followed by a
 * 6-character base62 CRC-32 checksum, so a mistyped or truncated key is rejected before any
 * database look-up and secret scanners can recognise a leaked key (the GitHub token design:
 * https://github.blog/2021-04-05-behind-githubs-new-authentication-token-formats/).
 * Only the SHA-256 hash and a short preview are stored; the key is shown once.
 */
import { createHash, randomBytes } from "node:crypto";
import { and, eq, isNull, type SQL } from "drizzle-orm";
import type { Database } from "@/db";
import { apiKeys } from "@/db/schema";
import { AppError } from "@/lib/errors";

export const KEY_PREFIX = "llk";
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const BODY_LENGTH = 43; // ceil(256 / log2(62))
const CHECKSUM_LENGTH = 6; // 62^6 > 2^32
const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}_[0-9A-Za-z]{${BODY_LENGTH + CHECKSUM_LENGTH}}$`);

function toBase62(value: bigint, length: number): string {
  let out = "";
  let n = value;
  for (let i = 0; i < length; i++) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[i] = c >>> 0;
  }
  return table;
})();

function crc32(text: string): number {
  let crc = 0xffffffff;
  for (const byte of Buffer.from(text, "utf8")) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function checksumOf(body: string): string {
  return toBase62(BigInt(crc32(`${KEY_PREFIX}_${body}`)), CHECKSUM_LENGTH);
}

/** A fresh key string (not stored anywhere). */
export function generateApiKey(): string {
  const body = toBase62(BigInt(`0x${randomBytes(32).toString("hex")}`), BODY_LENGTH);
  return `${KEY_PREFIX}_${body}${checksumOf(body)}`;
}

/** Cheap local check: prefix, length, alphabet and checksum. No database involved. */
export function isWellFormedApiKey(key: string): boolean {
  if (!KEY_PATTERN.test(key)) return false;
  const secret = key.slice(KEY_PREFIX.length + 1);
  const body = secret.slice(0, BODY_LENGTH);
  return secret.slice(BODY_LENGTH) === checksumOf(body);
}

/** Hex SHA-256, the only form in which keys (and other bearer secrets) are stored. */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

/** `llk_AbCd…wxyz`: enough to recognise a key, useless to an attacker. */
export function previewApiKey(key: string): string {
  return `${key.slice(0, KEY_PREFIX.length + 5)}…${key.slice(-4)}`;
}

export interface CreatedApiKey {
  id: string;
  name: string;
  /** The full key: show it once, never store or log it. */
  key: string;
  preview: string;
  createdAt: Date;
  /** The accounts it may read; null for all of them (lib/account-access.ts). */
  accountIds: string[] | null;
}

const nameOf = (name: string) => {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > 64) {
    throw new AppError("invalid_input", "A key name must be 1 to 64 characters.", { field: "name" });
  }
  return trimmed;
};

/**
 * Stores a fresh key named `name` (already checked) for `userId`, reading `accountIds` (already
 * checked to be the person's; null for all); the secret leaves here once.
 */
async function insertApiKey(
  db: Database,
  userId: string,
  name: string,
  accountIds: string[] | null,
): Promise<CreatedApiKey> {
  const key = generateApiKey();
  const [row] = await db
    .insert(apiKeys)
    .values({ userId, name, keyHash: hashSecret(key), preview: previewApiKey(key), accountIds })
    .returning();
  if (!row) throw new AppError("internal", "The key could not be saved.");
  return {
    id: row.id,
    name: row.name,
    key,
    preview: row.preview,
    createdAt: row.createdAt,
    accountIds: row.accountIds,
  };
}

/** SQL: key `keyId` of `userId`, still live (neither revoked nor rotated). */
function liveKeyOf(userId: string, keyId: string): SQL | undefined {
  return and(eq(apiKeys.id, keyId), liveKeysOf(userId));
}

/** SQL: the live keys of `userId`. */
function liveKeysOf(userId: string): SQL | undefined {
  return and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt), isNull(apiKeys.rotatedAt));
}

/**
 * Creates a named key for `userId` reading `accountIds` (null, the default, for all accounts, the
 * ones linked later included; else ids checked by lib/account-access.ts) and returns it in full, once.
 */
export async function createApiKey(
  db: Database,
  userId: string,
  name: string,
  accountIds: string[] | null = null,
): Promise<CreatedApiKey> {
  return insertApiKey(db, userId, nameOf(name), accountIds);
}

/**
 * Replaces key `keyId` of `userId` with a new key of the same name and accounts. The old key stops
 * working in the same transaction. Throws `not_found` for a key that is not this user's or not live.
 */
export async function rotateApiKey(db: Database, userId: string, keyId: string): Promise<CreatedApiKey> {
  return db.transaction(async (tx) => {
    const [old] = await tx
      .update(apiKeys)
      .set({ rotatedAt: new Date() })
      .where(liveKeyOf(userId, keyId))
      .returning({ name: apiKeys.name, accountIds: apiKeys.accountIds });
    if (!old) throw new AppError("not_found", "No such active key.");
    return insertApiKey(tx, userId, old.name, old.accountIds);
  });
}

/** Revokes key `keyId` of `userId`; throws `not_found` when it is not this user's live key. */
export async function revokeApiKey(db: Database, userId: string, keyId: string): Promise<void> {
  const rows = await db
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(liveKeyOf(userId, keyId))
    .returning({ id: apiKeys.id });
  if (rows.length === 0) throw new AppError("not_found", "No such active key.");
}

/**
 * Sets the accounts live key `keyId` of `userId` may read (null for all; ids checked by
 * lib/account-access.ts). The next call with the key reads them. Throws `not_found` when it is
 * not this user's live key.
 */
export async function setApiKeyAccounts(
  db: Database,
  userId: string,
  keyId: string,
  accountIds: string[] | null,
): Promise<void> {
  const rows = await db
    .update(apiKeys)
    .set({ accountIds })
    .where(liveKeyOf(userId, keyId))
    .returning({ id: apiKeys.id });
  if (rows.length === 0) throw new AppError("not_found", "No such active key.");
}

/** The user's live keys, oldest first (never the secret). */
export async function listApiKeys(db: Database, userId: string) {
  return db
    .select({
      id: apiKeys.id,
      name: apiKeys.name,
      preview: apiKeys.preview,
      createdAt: apiKeys.createdAt,
      lastUsedAt: apiKeys.lastUsedAt,
      accountIds: apiKeys.accountIds,
    })
    .from(apiKeys)
    .where(liveKeysOf(userId))
    .orderBy(apiKeys.createdAt);
}
