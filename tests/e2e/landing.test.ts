/**
 * The landing page as a newcomer meets it (production build, Chromium): what Ledgerlink does,
 * the price, three steps, that it can never move money, and Sign in; plus the files every
 * browser and crawler asks for.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { e2eServer, launchBrowser, screenshot } from "./helpers";

const server = e2eServer();

describe.skipIf(server.skipReason)("the landing page", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("says what it does, the price, three steps and that it only reads; Sign in leads to sign-in", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${server.baseUrl}/`);
    await page.getByRole("heading", { level: 1 }).waitFor();
    const text = (await page.locator("main").textContent()) ?? "";
    expect(text).toContain("$9 per month");
    expect(await page.getByRole("heading", { name: "How it works" }).count()).toBe(1);
    expect(await page.locator("ol > li").count()).toBe(3);
    expect(text).toMatch(/cannot move money/);
    expect(text).toMatch(/encrypted/);
    await screenshot(page, "landing-desktop");
    await page.getByRole("link", { name: "Sign in" }).click();
    await page.waitForURL("**/sign-in");
    await page.close();
  });

  it("fits a phone: nothing scrolls sideways", async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(`${server.baseUrl}/`);
    await page.getByRole("heading", { level: 1 }).waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, "landing-phone");
    await page.close();
  });

  it("serves a favicon, app icons and robots.txt", async () => {
    const favicon = await fetch(`${server.baseUrl}/favicon.ico`);
    expect(favicon.status).toBe(200);
    expect(favicon.headers.get("content-type")).toMatch(/image/);
    const robots = await fetch(`${server.baseUrl}/robots.txt`);
    expect(robots.status).toBe(200);
    expect(await robots.text()).toContain("Disallow: /dashboard");
    const page = await browser.newPage();
    await page.goto(`${server.baseUrl}/`);
    const icons = await page
      .locator('link[rel="icon"], link[rel="apple-touch-icon"]')
      .evaluateAll((links) => links.map((l) => (l as HTMLLinkElement).href));
    expect(icons.length).toBeGreaterThanOrEqual(2);
    for (const href of icons) expect((await fetch(href)).status, href).toBe(200);
    await page.close();
  });
});
