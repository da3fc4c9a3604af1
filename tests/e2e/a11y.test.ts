/**
 * Accessibility and phone layout of every page (production build, Chromium, axe-core 4): no
 * serious or critical axe violation at 1280 × 800 and at 390 × 844, and on a phone no page
 * scrolls sideways. Pages are visited as a newcomer who has created a key (so the client set-up
 * blocks show) and as a person who has subscribed and linked a sandbox bank (so balances, accounts
 * and answers with data show). On /dashboard/tools a tool is run first, so its answer is checked too.
 */
import type { Browser, Page } from "playwright-core";
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
/** Signed out first (the landing and sign-in pages), then signed in. */
const SIGNED_OUT = ["/", "/sign-in"];
const PAGES = [
  "/",
  "/dashboard",
  "/dashboard/keys",
  "/dashboard/banks",
  "/dashboard/transactions",
  "/dashboard/categories",
  "/dashboard/billing",
  "/dashboard/apps",
  "/dashboard/tools?tool=list_accounts",
  "/dashboard/activity",
  "/dashboard/settings",
];

describe.skipIf(server.skipReason)("accessibility and phone layout", () => {
  let browser: Browser;
  type Storage = Awaited<ReturnType<import("playwright-core").BrowserContext["storageState"]>>;
  /** The newcomer with a key, and the person with a subscription and a bank. */
  const people: Array<{ who: string; storage: Storage }> = [];

  beforeAll(async () => {
    browser = await launchBrowser();
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, `a11y-${Date.now()}@example.test`);
    await page.goto(`${server.baseUrl}/dashboard/keys`);
    await page.getByLabel("Key name").fill("a11y");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByTestId("new-key-value").waitFor();
    people.push({ who: "newcomer", storage: await context.storageState() });
    await context.close();
    const settled = await browser.newContext();
    const settledPage = await settled.newPage();
    await signIn(settledPage, `a11y-banked-${Date.now()}@example.test`);
    await subscribeLocally(settledPage);
    await linkFirstSandboxBank(settledPage);
    people.push({ who: "with a bank", storage: await settled.storageState() });
    await settled.close();
    // The consent screen, for a client registered as any MCP client would.
    const registered = await fetch(`${server.baseUrl}/api/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: "Accessibility check",
        redirect_uris: ["http://127.0.0.1:49152/callback"],
        token_endpoint_auth_method: "none",
      }),
    });
    const clientId = ((await registered.json()) as { client_id: string }).client_id;
    PAGES.push(
      `/oauth/authorize?${new URLSearchParams({
        response_type: "code",
        client_id: clientId,
        redirect_uri: "http://127.0.0.1:49152/callback",
        code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        code_challenge_method: "S256",
        state: "a11y",
      })}`,
    );
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
  });

  for (const size of SIZES) {
    it(`no serious or critical axe violation on any page at ${size.width} × ${size.height}${size.name === "phone" ? ", and nothing scrolls sideways" : ""}`, async () => {
      const found: string[] = [];
      const visit = async (page: Page, path: string, who = "signed out") => {
        await page.goto(`${server.baseUrl}${path}`);
        await page.waitForLoadState("networkidle");
        if (path.startsWith("/dashboard/tools")) {
          await page.getByRole("button", { name: /^Run / }).click();
          await page.getByRole("region", { name: "Answer", exact: true }).waitFor();
        }
        const findings = await axe(page);
        for (const v of findings)
          found.push(`${path} (${who}): ${v.impact} ${v.id} at ${v.targets.join(" | ")}`);
        // One picture per page, person and size, for reviewing the layout by eye.
        const slug =
          path
            .replace(/\?.*$/, "")
            .replace(/[^a-z]+/g, "-")
            .replace(/^-|-$/g, "") || "home";
        await screenshot(page, `a11y/${size.name}-${who.replace(/ /g, "-")}-${slug}`);
        if (size.name === "phone") {
          const overflow = await page.evaluate(
            () => document.documentElement.scrollWidth - window.innerWidth,
          );
          if (overflow > 0) found.push(`${path} (${who}): scrolls sideways by ${overflow} px`);
        }
      };
      const signedOut = await browser.newContext({ viewport: size });
      try {
        const page = await signedOut.newPage();
        for (const path of SIGNED_OUT) await visit(page, path);
      } finally {
        await signedOut.close();
      }
      for (const { who, storage } of people) {
        const context = await browser.newContext({ storageState: storage, viewport: size });
        const page = await context.newPage();
        try {
          for (const path of PAGES) await visit(page, path, who);
        } finally {
          await context.close();
        }
      }
      expect(found).toEqual([]);
    }, 180_000);
  }
});
