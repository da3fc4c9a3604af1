/**
 * Secrets never reach logs or the client bundle (security.md, "Money and data"): a key created in
 * the browser and used at /api/mcp, right and wrong, appears nowhere in the server's log; and no
 * server-only setting is compiled into the JavaScript the browser downloads.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { hashSecret } from "@/lib/api-keys";
import { e2eServer, launchBrowser, signIn } from "./helpers";

const server = e2eServer();

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith(".js"))
    .map((e) => path.join(e.parentPath, e.name));
}

describe.skipIf(server.skipReason)("secrets stay secret", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("an API key, used right and wrong, is never written to the server log", async () => {
    const page = await browser.newPage();
    await signIn(page, `secrets-${Date.now()}@example.test`);
    await page.goto(`${server.baseUrl}/dashboard/keys`);
    await page.getByLabel("Key name").fill("log check");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = (await page.getByTestId("new-key-value").textContent()) ?? "";
    expect(key).toMatch(/^llk_/);

    const mistyped = `${key.slice(0, -1)}${key.endsWith("x") ? "y" : "x"}`;
    for (const bearer of [key, mistyped]) {
      const response = await fetch(`${server.baseUrl}/api/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${bearer}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "list_accounts" },
        }),
      });
      await response.arrayBuffer();
    }
    const log = await fs.readFile(server.logPath, "utf8");
    expect(log.length).toBeGreaterThan(0);
    expect(log).not.toContain(key);
    expect(log).not.toContain(key.slice(4, 20));
    expect(log).not.toContain(hashSecret(key));
  });

  it("the browser bundle names no server-only setting", async () => {
    const staticDir = path.join(inject("e2eAppDir"), inject("e2eDistDir"), "static");
    const files = await filesUnder(staticDir);
    expect(files.length).toBeGreaterThan(0);
    const serverOnly = [
      "ENCRYPTION_KEY",
      "AUTH_SECRET",
      "STRIPE_SECRET_KEY",
      "STRIPE_WEBHOOK_SECRET",
      "PLAID_SECRET",
      "CRON_SECRET",
      "DATABASE_URL",
    ];
    for (const file of files) {
      const text = await fs.readFile(file, "utf8");
      for (const name of serverOnly) {
        if (text.includes(name)) throw new Error(`${name} appears in the client bundle file ${file}`);
      }
    }
  });
});
