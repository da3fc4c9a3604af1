/**
 * The export and the pages on the way, in Chromium against the production build, at 1280 × 800
 * and at 390 × 844, as a person with a subscription, a sandbox bank and an approved app:
 * - Settings downloads everything as JSON and the transactions as CSV, both parse, and the
 *   delete card links to the export;
 * - the dashboard's navigation reaches every section, on a phone through its "Menu", with nothing
 *   scrolling sideways; the menu works by keyboard, and without JavaScript;
 * - axe finds no serious or critical violation on Settings, Connected apps with an app listed,
 *   and the check-email page as the sign-in form lands there (checked at the moment it shows,
 *   which also must never be without a title).
 */
import { createHash, randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  axe,
  e2eServer,
  launchBrowser,
  linkFirstSandboxBank,
  SIZES,
  screenshot,
  signIn,
  subscribeLocally,
} from "./helpers";

const server = e2eServer();
/** The sections every person must reach (others may add more: every link the nav shows is followed). */
const SECTIONS = [
  "Overview",
  "API keys",
  "Banks",
  "Billing",
  "Connected apps",
  "Try the tools",
  "Activity",
  "Settings",
];
const APP_NAME = "Export e2e app";

type Storage = Awaited<ReturnType<BrowserContext["storageState"]>>;

/** Serious and critical axe findings on the page as it is now, one line each. */
const findings = async (page: Page) =>
  (await axe(page)).map((v) => `${v.impact} ${v.id} at ${v.targets.join(" | ")}`);

const overflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

describe.skipIf(server.skipReason)("export, navigation and the pages on the way", () => {
  let browser: Browser;
  let storage: Storage;
  let email = "";
  let callbackServer: http.Server | undefined;

  beforeAll(async () => {
    browser = await launchBrowser();
    const context = await browser.newContext();
    const page = await context.newPage();
    email = `export-e2e-${Date.now()}@example.test`;
    await signIn(page, email);
    await subscribeLocally(page);
    await linkFirstSandboxBank(page);
    // An app approved on the consent screen, so Connected apps lists it with its buttons.
    const hits: string[] = [];
    callbackServer = http.createServer((req, res) => {
      hits.push(req.url ?? "");
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
    await new Promise<void>((resolve) => callbackServer?.listen(0, "127.0.0.1", resolve));
    const redirectUri = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/callback`;
    const registered = await fetch(`${server.baseUrl}/api/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: APP_NAME,
        redirect_uris: [redirectUri],
        token_endpoint_auth_method: "none",
      }),
    });
    const clientId = ((await registered.json()) as { client_id: string }).client_id;
    const verifier = randomBytes(32).toString("base64url");
    await page.goto(
      `${server.baseUrl}/oauth/authorize?${new URLSearchParams({
        response_type: "code",
        client_id: clientId,
        redirect_uri: redirectUri,
        code_challenge: createHash("sha256").update(verifier).digest("base64url"),
        code_challenge_method: "S256",
        state: "export-e2e",
      })}`,
    );
    await Promise.all([
      page.waitForURL((u) => u.href.startsWith(redirectUri)),
      page.getByRole("button", { name: "Approve" }).click(),
    ]);
    expect(hits.filter((h) => h.startsWith("/callback?")).length).toBe(1);
    storage = await context.storageState();
    await context.close();
  }, 180_000);

  afterAll(async () => {
    callbackServer?.close();
    await browser?.close();
  });

  for (const size of SIZES) {
    describe(`at ${size.width} × ${size.height}`, () => {
      let context: BrowserContext;
      let page: Page;
      beforeAll(async () => {
        context = await browser.newContext({ storageState: storage, viewport: size });
        page = await context.newPage();
      });
      afterAll(async () => {
        await context?.close();
      });

      it("Settings downloads everything as JSON and the transactions as CSV; deleting points to the export", async () => {
        await page.goto(`${server.baseUrl}/dashboard/settings`);
        const beforeDelete = page.getByTestId("export-before-delete");
        expect(await beforeDelete.getByRole("link").first().getAttribute("href")).toBe(
          "/api/export?format=json",
        );

        const [json] = await Promise.all([
          page.waitForEvent("download"),
          page.getByRole("link", { name: "Download everything (JSON)" }).click(),
        ]);
        expect(json.suggestedFilename()).toMatch(/^ledgerlink-export-\d{4}-\d{2}-\d{2}\.json$/);
        const file = JSON.parse(await fs.readFile(await json.path(), "utf8")) as {
          profile: { email: string };
          accounts: unknown[];
          transactions: Array<{ amount: number; currency: string }>;
          connected_apps: Array<{ client_name: string }>;
          subscription: { status: string };
        };
        expect(file.profile.email).toBe(email);
        expect(file.subscription.status).toBe("active");
        expect(file.accounts.length).toBeGreaterThan(0);
        expect(file.transactions.length).toBeGreaterThan(100);
        expect(file.connected_apps.map((a) => a.client_name)).toContain(APP_NAME);

        const [csv] = await Promise.all([
          page.waitForEvent("download"),
          page.getByRole("link", { name: "Download transactions (CSV)" }).click(),
        ]);
        expect(csv.suggestedFilename()).toMatch(/^ledgerlink-transactions-\d{4}-\d{2}-\d{2}\.csv$/);
        const text = await fs.readFile(await csv.path(), "utf8");
        const lines = text.split("\r\n").filter((line) => line !== "");
        expect(lines[0]).toBe(
          "\uFEFFDate,Description,Merchant,Amount,Currency,Category,Account,Bank,Pending,Transfer,Transaction ID,Account ID",
        );
        expect(lines.length - 1).toBe(file.transactions.length);
        // Downloading left the person on Settings.
        expect(new URL(page.url()).pathname).toBe("/dashboard/settings");
      });

      it("the navigation reaches every section, and nothing scrolls sideways", async () => {
        await page.goto(`${server.baseUrl}/dashboard`);
        const nav = page.getByRole("navigation", { name: "Dashboard" });
        const menu = nav.locator("summary");
        const phone = size.name === "phone";
        if (phone) {
          // On a phone the sections are behind the menu, which says where the person is.
          expect(await menu.isVisible()).toBe(true);
          expect(await menu.textContent()).toContain("Overview");
          await menu.click();
        } else {
          expect(await menu.isVisible()).toBe(false);
        }
        const labels = await nav.getByRole("link").filter({ visible: true }).allTextContents();
        for (const section of SECTIONS) expect(labels).toContain(section);
        for (const label of labels) {
          await page.goto(`${server.baseUrl}/dashboard`);
          if (phone) await menu.click();
          const link = nav.getByRole("link", { name: label, exact: true }).filter({ visible: true });
          // The whole link is on screen, not off to the side.
          const box = await link.boundingBox();
          expect(box, label).not.toBeNull();
          expect(box && box.x >= 0 && box.x + box.width <= size.width, label).toBe(true);
          const href = (await link.getAttribute("href")) ?? "";
          await link.click();
          await page.waitForURL((u) => u.pathname === href);
          await page.waitForLoadState("networkidle");
          expect(await overflow(page), label).toBeLessThanOrEqual(0);
          // The section is marked current, and on a phone the menu closed behind the navigation.
          expect(await nav.locator('[aria-current="page"]').count()).toBeGreaterThan(0);
          if (phone) expect(await nav.locator("details").getAttribute("open"), label).toBeNull();
        }
        await screenshot(page, `nav/${size.name}-settings`);
      });

      it("axe finds nothing serious on Settings and on Connected apps with an app", async () => {
        const found: string[] = [];
        for (const path of ["/dashboard/settings", "/dashboard/apps"]) {
          await page.goto(`${server.baseUrl}${path}`);
          await page.waitForLoadState("networkidle");
          if (path === "/dashboard/apps") await page.getByTestId("connected-app").first().waitFor();
          if (size.name === "phone")
            await page.getByRole("navigation", { name: "Dashboard" }).locator("summary").click();
          for (const finding of await findings(page)) found.push(`${path}: ${finding}`);
          await screenshot(page, `nav/${size.name}${path.replace(/\//g, "-")}`);
        }
        expect(found).toEqual([]);
        // Each button's name starts with its visible label, then says which app (WCAG 2.5.3).
        await page.getByRole("button", { name: new RegExp(`^Revoke\\W+${APP_NAME}$`) }).waitFor();
        await page.getByRole("button", { name: new RegExp(`^Keep for a year\\W+${APP_NAME}$`) }).waitFor();
      });

      it("the check-email page, as the sign-in form lands there, has its title from the first moment", async () => {
        const fresh = await browser.newContext({ viewport: size });
        try {
          const signInPage = await fresh.newPage();
          // Counts every moment the page shows its heading without a title.
          await signInPage.addInitScript(() => {
            const w = window as unknown as { untitled: number };
            w.untitled = 0;
            new MutationObserver(() => {
              const heading = document.querySelector("h1")?.textContent ?? "";
              if (heading.includes("Check your email") && document.title.trim() === "") w.untitled += 1;
            }).observe(document, { subtree: true, childList: true, characterData: true });
          });
          await signInPage.goto(`${server.baseUrl}/sign-in`);
          await signInPage.getByLabel("Email address").fill(`check-email-${Date.now()}@example.test`);
          await signInPage.getByRole("button", { name: "Email me a sign-in link" }).click();
          await signInPage.getByRole("heading", { name: "Check your email" }).waitFor();
          const found = await findings(signInPage);
          expect(await signInPage.title()).toBe("Check your email · Ledgerlink");
          expect(await signInPage.evaluate(() => (window as unknown as { untitled: number }).untitled)).toBe(
            0,
          );
          expect(await signInPage.evaluate(() => document.querySelectorAll("title").length)).toBe(1);
          expect(found).toEqual([]);
          if (size.name === "phone") expect(await overflow(signInPage)).toBeLessThanOrEqual(0);
        } finally {
          await fresh.close();
        }
      });
    });
  }

  it("on a phone the menu works by keyboard: Enter opens it, Tab reaches the sections, Escape closes it", async () => {
    const context = await browser.newContext({ storageState: storage, viewport: SIZES[1] });
    try {
      const page = await context.newPage();
      await page.goto(`${server.baseUrl}/dashboard`);
      const details = page.getByRole("navigation", { name: "Dashboard" }).locator("details");
      await details.locator("summary").focus();
      await page.keyboard.press("Enter");
      expect(await details.getAttribute("open")).not.toBeNull();
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Overview");
      await page.keyboard.press("Escape");
      expect(await details.getAttribute("open")).toBeNull();
      expect(await page.evaluate(() => document.activeElement?.tagName)).toBe("SUMMARY");
    } finally {
      await context.close();
    }
  });

  it("on a phone the menu works without JavaScript", async () => {
    const context = await browser.newContext({
      storageState: storage,
      viewport: SIZES[1],
      javaScriptEnabled: false,
    });
    try {
      const page = await context.newPage();
      await page.goto(`${server.baseUrl}/dashboard`);
      const nav = page.getByRole("navigation", { name: "Dashboard" });
      await nav.locator("summary").click();
      await nav.getByRole("link", { name: "Settings", exact: true }).filter({ visible: true }).click();
      await page.waitForURL(`${server.baseUrl}/dashboard/settings`);
      // The navigation is the layout's, outside the page's streamed part (which needs JavaScript to
      // replace its loading state): it shows where the person is.
      expect(await nav.locator('[aria-current="page"]').first().textContent()).toBe("Settings");
      expect(await overflow(page)).toBeLessThanOrEqual(0);
    } finally {
      await context.close();
    }
  });
});
