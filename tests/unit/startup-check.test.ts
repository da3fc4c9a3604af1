/**
 * What stops a production start: every problem is named at once, each with how to fix it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startupProblems } from "@/lib/billing/startup-check";
import { resetEnvCache } from "@/lib/env";

const saved = { ...process.env };

function withEnv(values: Record<string, string | undefined>): string[] {
  for (const key of [
    "STRIPE_SECRET_KEY",
    "ENCRYPTION_KEY",
    "AUTH_SECRET",
    "PLAID_CLIENT_ID",
    "PLAID_SECRET",
    "BILLING",
  ]) {
    delete process.env[key];
  }
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  resetEnvCache();
  return startupProblems();
}

afterEach(() => {
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  Object.assign(process.env, saved);
  resetEnvCache();
});

describe("startupProblems (production)", () => {
  const ready = {
    NODE_ENV: "production",
    BILLING: "local",
    AUTH_SECRET: "a".repeat(44),
    ENCRYPTION_KEY: "ab".repeat(32),
  };

  it("none when everything is set", () => {
    expect(withEnv(ready)).toEqual([]);
  });

  it("refuses a production start without ENCRYPTION_KEY, naming it and how to make one", () => {
    const problems = withEnv({ ...ready, ENCRYPTION_KEY: undefined });
    expect(problems).toEqual([expect.stringContaining("ENCRYPTION_KEY is not set")]);
    expect(problems[0]).toContain("openssl rand -hex 32");
  });

  it("refuses an unreadable ENCRYPTION_KEY", () => {
    expect(withEnv({ ...ready, ENCRYPTION_KEY: "short" })).toEqual([
      expect.stringContaining("ENCRYPTION_KEY key must be 32 bytes"),
    ]);
  });

  it("refuses Plaid half configured, naming the missing half", () => {
    expect(withEnv({ ...ready, PLAID_CLIENT_ID: "client" })).toEqual([
      expect.stringContaining("PLAID_SECRET is missing"),
    ]);
  });

  it("lists every problem at once", () => {
    const problems = withEnv({ NODE_ENV: "production", PLAID_SECRET: "secret" });
    expect(problems.join(" ")).toMatch(/STRIPE_SECRET_KEY/);
    expect(problems.join(" ")).toMatch(/AUTH_SECRET/);
    expect(problems.join(" ")).toMatch(/ENCRYPTION_KEY/);
    expect(problems.join(" ")).toMatch(/PLAID_CLIENT_ID is missing/);
  });
});
