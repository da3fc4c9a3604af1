/**
 * The production build refuses to start when it would give subscriptions away (no
 * STRIPE_SECRET_KEY and no explicit BILLING=local), could not encrypt bank tokens (no
 * ENCRYPTION_KEY) or has Plaid half configured: `next start` stops and names each setting.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { baseEnv, freePort, NEXT_BIN } from "./global-setup";

const skipReason = inject("e2eSkipReason");

async function startAndWait(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [NEXT_BIN, "start", "-p", String(port)], {
    cwd: inject("e2eAppDir"),
    env: {
      ...baseEnv(),
      NODE_ENV: "production",
      NEXT_DIST_DIR: inject("e2eDistDir"),
      PGLITE_DIR: path.join(inject("e2eAppDir"), ".data", `e2e-startup-${randomBytes(4).toString("hex")}`),
      AUTH_SECRET: randomBytes(32).toString("base64"),
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (c: Buffer) => {
    output += c.toString();
  });
  child.stderr.on("data", (c: Buffer) => {
    output += c.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  // Whether register() runs at boot or on the first request, a request makes sure it ran.
  const deadline = Date.now() + 30_000;
  let code: number | null | undefined;
  while (Date.now() < deadline && code === undefined) {
    await fetch(`http://localhost:${port}/`).catch(() => undefined);
    code = await Promise.race([exited, new Promise<undefined>((r) => setTimeout(() => r(undefined), 500))]);
  }
  if (code === undefined) {
    child.kill("SIGKILL");
    await exited;
    return { code: null, output };
  }
  return { code, output };
}

describe.skipIf(Boolean(skipReason))("production start-up", () => {
  it("stops and names every missing setting at once: STRIPE_SECRET_KEY (no BILLING=local) and ENCRYPTION_KEY", async () => {
    const { code, output } = await startAndWait({ EMAIL_TRANSPORT: "log" });
    expect(code).toBe(1);
    expect(output).toContain("STRIPE_SECRET_KEY");
    expect(output).toContain("ENCRYPTION_KEY is not set");
  });

  it("stops when Plaid is half configured", async () => {
    const { code, output } = await startAndWait({
      EMAIL_TRANSPORT: "log",
      BILLING: "local",
      ENCRYPTION_KEY: randomBytes(32).toString("hex"),
      PLAID_CLIENT_ID: "client-without-secret",
    });
    expect(code).toBe(1);
    expect(output).toContain("PLAID_SECRET is missing");
  });
});
