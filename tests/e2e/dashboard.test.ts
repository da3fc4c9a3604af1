/**
 * The dashboard end to end, in Debian's Chromium against the production build (global-setup.ts):
 * sign in through the logged magic link; create a key and call /api/mcp with it (setup_required);
 * subscribe through the local test checkout; call again (data); rotate (old key 401, new works);
 * revoke (401); link a sandbox bank and see its accounts; force re-authorization, see Reconnect,
 * reconnect, see it gone. Screenshots go to tests/e2e/screenshots/.
 */
import { randomUUID } from "node:crypto";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { e2eServer, launchBrowser, screenshot, signIn, watchCspViolations } from "./helpers";

const server = e2eServer();
const email = `e2e-${randomUUID().slice(0, 8)}@example.test`;

interface McpAnswer {
  status: number;
  body: { result?: { structuredContent?: { status?: string; warnings?: { code: string }[] } } } | undefined;
}

/** One JSON-RPC call to /api/mcp with a bearer key; SSE or JSON answers both parsed. */
async function callTool(apiKey: string, tool = "get_connection_status"): Promise<McpAnswer> {
  const response = await fetch(`${server.baseUrl}/api/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${apiKey}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: tool, arguments: {} },
    }),
  });
  const text = await response.text();
  const json = text.startsWith("{")
    ? text
    : text
        .split("\n")
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).trim())
        .pop();
  return { status: response.status, body: json ? JSON.parse(json) : undefined };
}

describe.skipIf(Boolean(server.skipReason))(
  `dashboard (production build)${server.skipReason ? `: ${server.skipReason}` : ""}`,
  () => {
    let browser: Browser;
    let page: Page;
    let cspViolations: string[] = [];
    let firstKey = "";
    let rotatedKey = "";
    const shots: string[] = [];
    const started = Date.now();

    beforeAll(async () => {
      browser = await launchBrowser();
      page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
      cspViolations = watchCspViolations(page);
    });
    afterAll(async () => {
      await browser?.close();
      console.log(
        `[e2e] dashboard scenario took ${Math.round((Date.now() - started) / 100) / 10}s; screenshots:\n${shots.join("\n")}`,
      );
    });

    it("signs in through the logged magic link; the header shows who", async () => {
      await signIn(page, email);
      await expect.poll(() => page.getByTestId("signed-in-as").textContent()).toBe(email);
      // A newcomer's overview is a checklist whose one call to action is the first step.
      const current = page.getByTestId("setup-checklist").locator('[aria-current="step"]');
      await expect.poll(() => current.textContent()).toContain("Subscribe");
      expect(await page.getByTestId("setup-checklist").locator('[data-state="todo"]').count()).toBe(3);
      expect(await page.getByText("Connect your AI client").count()).toBe(0);
      shots.push(await screenshot(page, "01-overview"));
    });

    it("creates a key, shown once; /api/mcp answers setup_required", async () => {
      await page.getByRole("link", { name: "API keys" }).first().click();
      await page.waitForURL("**/dashboard/keys");
      await page.getByLabel("Key name").fill("e2e laptop");
      await page.getByRole("button", { name: "Create key" }).click();
      const value = page.getByTestId("new-key-value");
      await value.waitFor();
      firstKey = (await value.textContent()) ?? "";
      expect(firstKey).toMatch(/^llk_[0-9A-Za-z]{49}$/);
      await expect.poll(() => page.getByText("you will not see this again").count()).toBeGreaterThan(0);
      // The Claude Code command, ready with this key (shown once, like the key).
      expect(await page.getByTestId("new-key").textContent()).toContain(
        `claude mcp add --transport http ledgerlink ${server.baseUrl}/api/mcp --header "Authorization: Bearer ${firstKey}"`,
      );
      shots.push(await screenshot(page, "02-key-created"));

      const answer = await callTool(firstKey);
      expect(answer.status).toBe(200);
      expect(answer.body?.result?.structuredContent?.status).toBe("setup_required");
      expect((await callTool(`${firstKey.slice(0, -1)}${firstKey.endsWith("x") ? "y" : "x"}`)).status).toBe(
        401,
      );
    });

    it("subscribes through the labelled local checkout; tools then answer with data", async () => {
      await page.getByRole("link", { name: "Billing" }).first().click();
      await page.waitForURL("**/dashboard/billing");
      await page.getByRole("button", { name: "Subscribe" }).click();
      await page.waitForURL("**/dashboard/billing/local-checkout");
      await expect
        .poll(() => page.getByRole("note").textContent())
        .toContain("TEST CHECKOUT: no money moves");
      shots.push(await screenshot(page, "03-local-checkout"));
      await page.getByRole("button", { name: "Pay: subscription active" }).click();
      await page.waitForURL("**/dashboard/billing?checkout=success");
      await expect
        .poll(() => page.getByTestId("subscription-state").getAttribute("data-state"))
        .toBe("active");
      shots.push(await screenshot(page, "04-billing-active"));

      // Key made, subscribed: the checklist moves on to linking a bank.
      await page.getByRole("link", { name: "Overview" }).first().click();
      await page.waitForURL(/\/dashboard$/);
      const checklist = page.getByTestId("setup-checklist");
      await expect
        .poll(() => checklist.locator('[aria-current="step"]').textContent())
        .toContain("Link a bank");
      expect(await checklist.locator('[data-state="done"]').count()).toBe(2);

      const answer = await callTool(firstKey);
      expect(answer.status).toBe(200);
      expect(answer.body?.result?.structuredContent?.status).toBe("ok");
      // The first answer with data ends set-up: the overview shows health and recent activity.
      await page.reload();
      await page.getByTestId("recent-activity").waitFor();
      expect(await page.getByTestId("setup-checklist").count()).toBe(0);
      // One-click installs carry the MCP URL alone: the editor signs in with OAuth.
      await page.getByText("Connect another AI client").click();
      const cursor = new URL(
        (await page.getByRole("link", { name: "Add to Cursor" }).getAttribute("href")) ?? "",
      );
      expect(JSON.parse(Buffer.from(cursor.searchParams.get("config") ?? "", "base64").toString())).toEqual({
        url: `${server.baseUrl}/api/mcp`,
      });
      const vscode = (await page.getByRole("link", { name: "Add to VS Code" }).getAttribute("href")) ?? "";
      expect(JSON.parse(decodeURIComponent(vscode.replace(/^vscode:mcp\/install\?/, "")))).toEqual({
        name: "ledgerlink",
        type: "http",
        url: `${server.baseUrl}/api/mcp`,
      });
    });

    it("rotates: the old key answers 401 at once, the new one works", async () => {
      await page.goto(`${server.baseUrl}/dashboard/keys`);
      await page.getByRole("button", { name: "Rotate" }).click();
      const value = page.getByTestId("new-key-value");
      await expect.poll(async () => value.textContent()).toMatch(/^llk_/);
      rotatedKey = (await value.textContent()) ?? "";
      expect(rotatedKey).not.toBe(firstKey);
      expect((await callTool(firstKey)).status).toBe(401);
      expect((await callTool(rotatedKey)).status).toBe(200);
      shots.push(await screenshot(page, "05-key-rotated"));
    });

    it("revokes with confirmation: the key answers 401", async () => {
      await page.getByRole("button", { name: "Revoke" }).click();
      await page.getByRole("button", { name: "Yes, revoke" }).click();
      await expect.poll(() => page.getByTestId("api-key-row").count()).toBe(0);
      expect((await callTool(rotatedKey)).status).toBe(401);
      shots.push(await screenshot(page, "06-key-revoked"));
    });

    let connectionId = "";

    it("links a sandbox bank through the connect flow and shows its accounts", async () => {
      await page.getByRole("link", { name: "Banks" }).first().click();
      await page.waitForURL("**/dashboard/banks");
      await page.getByRole("button", { name: "Link a bank" }).click();
      await page.getByRole("radio").first().check();
      await page.getByRole("button", { name: "Continue" }).click();
      await page.getByLabel("Username").waitFor();
      await page.getByRole("button", { name: "Sign in" }).click();
      const linkStarted = Date.now();
      await page.getByRole("button", { name: "Link and sync" }).click();
      await page.getByTestId("sync-progress").waitFor();
      shots.push(await screenshot(page, "07-first-sync-progress"));
      await page.getByTestId("link-done").waitFor({ timeout: 60_000 });
      const linkSeconds = (Date.now() - linkStarted) / 1000;
      console.log(`[e2e] link + first sync took ${linkSeconds.toFixed(1)}s in the browser`);
      expect(linkSeconds).toBeLessThan(30);
      const row = page.getByTestId("bank-connection").first();
      await expect.poll(() => row.getAttribute("data-status")).toBe("healthy");
      await expect.poll(() => row.getByTestId("bank-account").count()).toBeGreaterThan(0);
      // Account kinds in people's words, not the provider's ("depository").
      const accountTexts = (await row.getByTestId("bank-account").allTextContents()).join(" | ");
      expect(accountTexts).toMatch(/Checking|Savings|Credit card/);
      expect(accountTexts).not.toMatch(/depository/);
      connectionId = ((await row.getAttribute("id")) ?? "").replace(/^connection-/, "");
      expect(connectionId).not.toBe("");
      shots.push(await screenshot(page, "08-bank-linked"));
    });

    it("forced re-authorization shows Reconnect; reconnecting clears it", async () => {
      const row = page.getByTestId("bank-connection").first();
      await row.getByRole("button", { name: "Development: force re-authorization" }).click();
      await expect.poll(() => row.getAttribute("data-status")).toBe("reauth_required");

      // The link MCP tools give for this bank highlights its row.
      await page.goto(`${server.baseUrl}/dashboard/banks?reconnect=${encodeURIComponent(connectionId)}`);
      const highlighted = page.locator(`#connection-${connectionId}`);
      await expect.poll(() => highlighted.getAttribute("class")).toContain("ring-2");
      const reconnect = highlighted.getByRole("button", { name: "Reconnect" });
      await reconnect.waitFor();
      shots.push(await screenshot(page, "09-reauth-required"));

      await reconnect.click();
      await highlighted.getByTestId("reconnect-flow").getByRole("button", { name: "Reconnect" }).click();
      await expect.poll(() => highlighted.getAttribute("data-status"), { timeout: 60_000 }).toBe("healthy");
      await expect.poll(() => highlighted.getByRole("button", { name: "Reconnect" }).count()).toBe(0);
      shots.push(await screenshot(page, "10-reconnected"));
    });

    it("the activity page lists the tool calls made above", async () => {
      await page.getByRole("link", { name: "Activity" }).first().click();
      await page.waitForURL("**/dashboard/activity");
      // setup_required, ok (first key), ok (rotated key): at least three calls were logged.
      await expect.poll(() => page.locator("tbody tr").count()).toBeGreaterThanOrEqual(3);
      await expect.poll(() => page.getByText("get_connection_status").count()).toBeGreaterThanOrEqual(3);
      shots.push(await screenshot(page, "11-activity"));
    });

    it("Settings: the timezone is picked from a list, saved, and the dashboard's times follow it", async () => {
      await page.getByRole("link", { name: "Settings" }).first().click();
      await page.waitForURL("**/dashboard/settings");
      await page.getByLabel("Timezone").selectOption("Pacific/Auckland");
      await page.getByRole("button", { name: "Save" }).click();
      await page.getByRole("status").filter({ hasText: "Pacific/Auckland" }).waitFor();
      await page.getByRole("link", { name: "Activity" }).first().click();
      await page.waitForURL("**/dashboard/activity");
      // New Zealand is at UTC+12 or +13 depending on the season.
      await expect.poll(() => page.getByText(/GMT\+1[23]/).count()).toBeGreaterThan(0);
      shots.push(await screenshot(page, "12-settings-timezone"));
    });

    it("a new person's timezone comes from their browser at the first visit", async () => {
      const context = await browser.newContext({ timezoneId: "America/Los_Angeles" });
      try {
        const fresh = await context.newPage();
        await signIn(fresh, `tz-${Date.now()}@example.test`);
        await fresh.goto(`${server.baseUrl}/dashboard/settings`);
        await expect
          .poll(async () => {
            await fresh.reload();
            return fresh.getByLabel("Timezone").inputValue();
          })
          .toBe("America/Los_Angeles");
      } finally {
        await context.close();
      }
    });

    it("deletes the account after the email is typed: signed out, told so, nothing left to sign in to", async () => {
      await page.goto(`${server.baseUrl}/dashboard/settings`);
      const confirm = page.getByLabel(/to confirm/);
      await confirm.fill("not-my-email@example.test");
      await page.getByRole("button", { name: "Delete my account" }).click();
      await page.getByRole("alert").filter({ hasText: "Type your email address exactly" }).waitFor();
      await confirm.fill(email);
      await page.getByRole("button", { name: "Delete my account" }).click();
      await page.waitForURL("**/?deleted=1");
      await page.getByRole("status").filter({ hasText: "were deleted" }).waitFor();
      await page.goto(`${server.baseUrl}/dashboard`);
      await page.waitForURL("**/sign-in**");
      shots.push(await screenshot(page, "13-deleted"));
    });

    it("ran under the page's Content-Security-Policy (a nonce per request) without one refusal", async () => {
      const policy = (await fetch(`${server.baseUrl}/sign-in`, { redirect: "manual" })).headers.get(
        "content-security-policy",
      );
      expect(policy).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
      expect(cspViolations).toEqual([]);
    });
  },
);
