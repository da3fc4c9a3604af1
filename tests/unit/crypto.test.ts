/** AES-256-GCM encryption of provider tokens: round trip, tamper detection, key versions, env rules. */
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { decryptSecret, encryptSecret, getKeyring, needsReencryption, parseKeyring } from "@/lib/crypto";

const key = () => randomBytes(32).toString("base64");

describe("encryptSecret / decryptSecret", () => {
  const keyring = parseKeyring(key());

  it("round-trips, with a fresh IV each time and no plaintext in the ciphertext", () => {
    const secret = "access-sandbox-item-1234-abcdef";
    const a = encryptSecret(secret, "ctx", keyring);
    const b = encryptSecret(secret, "ctx", keyring);
    expect(a.ciphertext).not.toBe(b.ciphertext);
    expect(a.ciphertext).not.toContain("access");
    expect(Buffer.from(a.ciphertext, "base64url").toString("latin1")).not.toContain("sandbox");
    expect(a.keyVersion).toBe(1);
    expect(decryptSecret(a.ciphertext, a.keyVersion, "ctx", keyring)).toBe(secret);
    expect(decryptSecret(b.ciphertext, b.keyVersion, "ctx", keyring)).toBe(secret);
  });

  it("rejects altered data, another associated context and another key", () => {
    const { ciphertext, keyVersion } = encryptSecret("token", "connection-a", keyring);
    const raw = Buffer.from(ciphertext, "base64url");
    raw[raw.length - 1]! ^= 1;
    expect(() => decryptSecret(raw.toString("base64url"), keyVersion, "connection-a", keyring)).toThrow(
      /decrypted/,
    );
    expect(() => decryptSecret(ciphertext, keyVersion, "connection-b", keyring)).toThrow(/decrypted/);
    expect(() => decryptSecret(ciphertext, keyVersion, "connection-a", parseKeyring(key()))).toThrow(
      /decrypted/,
    );
    expect(() => decryptSecret("AAAA", keyVersion, "connection-a", keyring)).toThrow(/truncated/);
  });

  it("rotates keys: the newest version encrypts, older versions still decrypt", () => {
    const k1 = key();
    const k2 = key();
    const old = encryptSecret("token", "", parseKeyring(`v1:${k1}`));
    const rotated = parseKeyring(`v1:${k1},v2:${k2}`);
    expect(rotated.current.version).toBe(2);
    expect(decryptSecret(old.ciphertext, 1, "", rotated)).toBe("token");
    expect(needsReencryption(1, rotated)).toBe(true);
    const fresh = encryptSecret("token", "", rotated);
    expect(fresh.keyVersion).toBe(2);
    expect(needsReencryption(fresh.keyVersion, rotated)).toBe(false);
    expect(() => decryptSecret(fresh.ciphertext, 2, "", parseKeyring(`v1:${k1}`))).toThrow(/version 2/);
  });

  it("accepts hex keys and bare versions; refuses short keys and duplicates, naming ENCRYPTION_KEY", () => {
    const hex = randomBytes(32).toString("hex");
    expect(parseKeyring(hex).current.key.toString("hex")).toBe(hex);
    expect(parseKeyring(`3:${hex}`).current.version).toBe(3);
    expect(() => parseKeyring(randomBytes(16).toString("base64"))).toThrow(/ENCRYPTION_KEY/);
    expect(() => parseKeyring(`v1:${hex},v1:${hex}`)).toThrow(/ENCRYPTION_KEY/);
  });
});

describe("getKeyring (environment)", () => {
  afterEach(() => vi.restoreAllMocks());

  it("throws in production when ENCRYPTION_KEY is unset, naming it", () => {
    expect(() => getKeyring({ NODE_ENV: "production" })).toThrow(/ENCRYPTION_KEY/);
  });

  it("uses a stable development key (version 0) outside production, warning once", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const a = getKeyring({ NODE_ENV: "development", AUTH_SECRET: "s" });
    const b = getKeyring({ NODE_ENV: "development", AUTH_SECRET: "s" });
    expect(a.current.version).toBe(0);
    expect(a.current.key.equals(b.current.key)).toBe(true);
    expect(warn.mock.calls.length).toBeLessThanOrEqual(1);
    const sealed = encryptSecret("token", "", a);
    expect(decryptSecret(sealed.ciphertext, 0, "", b)).toBe("token");
  });

  it("uses the configured key and still reads development rows outside production", () => {
    const dev = getKeyring({ NODE_ENV: "development" });
    const devSealed = encryptSecret("old", "", dev);
    const configured = getKeyring({ NODE_ENV: "development", ENCRYPTION_KEY: `v1:${key()}` });
    expect(configured.current.version).toBe(1);
    expect(decryptSecret(devSealed.ciphertext, 0, "", configured)).toBe("old");
    const production = getKeyring({ NODE_ENV: "production", ENCRYPTION_KEY: `v1:${key()}` });
    expect(production.keys.map((k) => k.version)).toEqual([1]);
  });
});
