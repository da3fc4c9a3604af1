import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { apiKeys } from "@/db/schema";
import {
  createApiKey,
  generateApiKey,
  hashSecret,
  isWellFormedApiKey,
  listApiKeys,
  revokeApiKey,
  rotateApiKey,
} from "@/lib/api-keys";
import { verifyBearerToken } from "@/lib/mcp/auth";
import { useTestDatabase } from "../helpers/db";
import { createTestUser } from "../helpers/fixtures";

const db = useTestDatabase();

const newUser = () => createTestUser(db(), "keys");

describe("API key format", () => {
  it("is llk_ followed by at least 32 random bytes of base62 and a checksum", () => {
    const key = generateApiKey();
    expect(key).toMatch(/^llk_[0-9A-Za-z]{49}$/);
    // 43 base62 characters carry log2(62^43) ≈ 256 bits.
    expect(43 * Math.log2(62)).toBeGreaterThanOrEqual(256);
    expect(isWellFormedApiKey(key)).toBe(true);
    expect(generateApiKey()).not.toBe(key);
  });

  it("rejects a mistyped, truncated or re-prefixed key by its checksum alone", () => {
    const key = generateApiKey();
    const last = key.at(-1)!;
    const mistyped = key.slice(0, 10) + (key[10] === "a" ? "b" : "a") + key.slice(11);
    expect(isWellFormedApiKey(mistyped)).toBe(false);
    expect(isWellFormedApiKey(key.slice(0, -1))).toBe(false);
    expect(isWellFormedApiKey(`${key.slice(0, -1)}${last === "0" ? "1" : "0"}`)).toBe(false);
    expect(isWellFormedApiKey(key.replace(/^llk_/, "sk_"))).toBe(false);
    expect(isWellFormedApiKey(` ${key}`)).toBe(false);
  });

  it("hashes with SHA-256 hex", () => {
    expect(hashSecret("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});

describe("API key lifecycle", () => {
  it("stores only the hash and a preview, and verifies to its user", async () => {
    const user = await newUser();
    const created = await createApiKey(db(), user.id, "Claude Desktop");
    const [row] = await db().select().from(apiKeys).where(eq(apiKeys.id, created.id));
    expect(row?.keyHash).toBe(hashSecret(created.key));
    expect(Object.values(row ?? {}).map(String)).not.toContain(created.key);
    expect(row?.preview.startsWith("llk_")).toBe(true);
    expect(created.key.includes(row!.preview.replace("…", ""))).toBe(false);

    const verified = await verifyBearerToken(db(), created.key);
    expect(verified).toEqual({ kind: "api_key", apiKeyId: created.id, userId: user.id });
    const [used] = await db().select().from(apiKeys).where(eq(apiKeys.id, created.id));
    expect(used?.lastUsedAt).toBeInstanceOf(Date);
  });

  it("rejects a well-formed key that was never issued", async () => {
    expect(await verifyBearerToken(db(), generateApiKey())).toBeNull();
  });

  it("rotate: the new key works and the old one fails at once", async () => {
    const user = await newUser();
    const first = await createApiKey(db(), user.id, "Cursor");
    const second = await rotateApiKey(db(), user.id, first.id);
    expect(second.name).toBe("Cursor");
    expect(await verifyBearerToken(db(), first.key)).toBeNull();
    expect((await verifyBearerToken(db(), second.key))?.userId).toBe(user.id);
    expect((await listApiKeys(db(), user.id)).map((k) => k.id)).toEqual([second.id]);
    await expect(rotateApiKey(db(), user.id, first.id)).rejects.toMatchObject({ code: "not_found" });
  });

  it("revoke: the key fails afterwards; another user cannot revoke or rotate it", async () => {
    const owner = await newUser();
    const stranger = await newUser();
    const key = await createApiKey(db(), owner.id, "VS Code");
    await expect(revokeApiKey(db(), stranger.id, key.id)).rejects.toMatchObject({ code: "not_found" });
    await expect(rotateApiKey(db(), stranger.id, key.id)).rejects.toMatchObject({ code: "not_found" });
    expect((await verifyBearerToken(db(), key.key))?.userId).toBe(owner.id);
    await revokeApiKey(db(), owner.id, key.id);
    expect(await verifyBearerToken(db(), key.key)).toBeNull();
  });

  it("refuses an empty or overlong name", async () => {
    const user = await newUser();
    await expect(createApiKey(db(), user.id, "  ")).rejects.toMatchObject({ code: "invalid_input" });
    await expect(createApiKey(db(), user.id, "x".repeat(65))).rejects.toMatchObject({
      code: "invalid_input",
    });
  });
});
