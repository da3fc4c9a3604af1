import { describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/env";

describe("parseEnv", () => {
  it("has working defaults with no settings at all", () => {
    const env = parseEnv({});
    expect(env.APP_URL).toBe("http://localhost:3000");
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.PGLITE_DIR).toBe(".data/pglite");
    expect(env.SYNC_BATCH_SIZE).toBe(25);
    expect(env.DB_PREPARED_STATEMENTS).toBe(true);
    expect(parseEnv({ DB_PREPARED_STATEMENTS: "0" }).DB_PREPARED_STATEMENTS).toBe(false);
  });

  it("strips a trailing slash from APP_URL", () => {
    expect(parseEnv({ APP_URL: "https://ledgerlink.example/" }).APP_URL).toBe("https://ledgerlink.example");
  });

  it.each([
    ["APP_URL", "ledgerlink.example"],
    ["DATABASE_URL", "mysql://x"],
    ["BILLING", "free"],
    ["RATE_LIMIT_PER_MINUTE", "lots"],
    ["DB_PREPARED_STATEMENTS", "yes"],
  ])("names %s when it is malformed", (name, value) => {
    expect(() => parseEnv({ [name]: value })).toThrow(
      new RegExp(`^Setting ${name} is invalid: expected .+\\.$`),
    );
  });

  it("names every bad setting at once", () => {
    expect(() => parseEnv({ APP_URL: "nope", BILLING: "free", RATE_LIMIT_PER_MINUTE: "lots" })).toThrow(
      /^Setting APP_URL is invalid: .+\. Setting BILLING is invalid: .+\. Setting RATE_LIMIT_PER_MINUTE is invalid: .+\.$/,
    );
  });
});
