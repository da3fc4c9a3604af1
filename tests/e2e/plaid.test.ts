/**
 * Plaid end to end in Debian's Chromium against the production build (issue 6): link a bank
 * through Plaid Link, see its accounts; the bank starts answering ITEM_LOGIN_REQUIRED; "Sync now"
 * shows Reconnect; Reconnect opens Link in update mode; the row is healthy again.
 *
 * The shared e2e server runs without Plaid, so this file starts its own `next start` of the same
 * build (helpers.ts `startServer`) with PLAID_API_BASE pointing at the fake Plaid API
 * (tests/fixtures/plaid-fake.ts) running in this test process. Plaid Link's script
 * (react-plaid-link loads https://cdn.plaid.com/link/v2/stable/link-initialize.js) is served by
 * `page.route` with a fake that keeps Link's contract: `Plaid.create({ token, onSuccess, onExit,
 * onEvent, onLoad })` → `{ open, exit, destroy, submit }`; `onLoad` once ready; `open()` shows a
 * dialog; "Continue" ends the session and calls `onSuccess(public_token, metadata)` with Link's
 * metadata shape. The session ends on "Plaid's side" — the fake's `completeLink`, reached from the
 * browser through a routed cdn.plaid.com URL — which only accepts link tokens the fake issued, so
 * the browser must pass on the token our server created. Screenshots: tests/e2e/screenshots/plaid-*.png.
 *
 * OAuth banks (https://plaid.com/docs/link/oauth/): the server has PLAID_REDIRECT_URI; for a bank
 * in OAUTH_INSTITUTIONS, "Continue" gets the bank's redirect from the fake (the link token's
 * `redirect_uri` + `oauth_state_id`) and navigates the page there. Link created again with
 * `receivedRedirectUri` finishes on `open()` without a dialog, and the fake only accepts the
 * `oauth_state_id` it issued for that same link token.
 */
import { randomUUID } from "node:crypto";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { plaidItemData } from "../fixtures/plaid-data";
import {
  FAKE_CLIENT_ID,
  FAKE_SECRET,
  type FakeItem,
  type ItemOptions,
  type LinkSuccess,
  type PlaidFake,
  startPlaidFake,
} from "../fixtures/plaid-fake";
import {
  e2eServer,
  launchBrowser,
  type StartedServer,
  screenshot,
  signIn,
  startServer,
  watchCspViolations,
} from "./helpers";

const { skipReason } = e2eServer();
const email = `e2e-plaid-${randomUUID().slice(0, 8)}@example.test`;

/** The script react-plaid-link injects (node_modules/react-plaid-link: PLAID_LINK_STABLE_URL). */
const PLAID_LINK_URL = "https://cdn.plaid.com/link/v2/stable/link-initialize.js";
/** Where the fake Link ends its session (routed to the fake Plaid in this process). */
const COMPLETE_URL = "https://cdn.plaid.com/link/v2/stable/__fake__/complete";

/** The fake Link script: window.Plaid with Link's create/open/exit/destroy contract. */
const FAKE_LINK_JS = `(() => {
  const COMPLETE_URL = ${JSON.stringify(COMPLETE_URL)};
  let sessions = 0;
  window.Plaid = {
    version: "fake",
    create(config) {
      if (!config || typeof config.token !== "string" || config.token === "") {
        throw new Error("Plaid.create: a link token is required");
      }
      if (typeof config.onSuccess !== "function") throw new Error("Plaid.create: onSuccess is required");
      const linkSessionId = "fake-link-session-" + ++sessions;
      let overlay = null;
      let isOpen = false;
      let destroyed = false;
      const emit = (name, extra) =>
        config.onEvent && config.onEvent(name, Object.assign({
          link_session_id: linkSessionId, request_id: null, timestamp: new Date().toISOString(),
          view_name: null, error_code: null, error_type: null, error_message: null,
          institution_id: null, institution_name: null, exit_status: null, mfa_type: null,
          institution_search_query: null, selection: null,
        }, extra || {}));
      const close = () => { if (overlay) overlay.remove(); overlay = null; isOpen = false; };
      const exitMetadata = () => ({
        status: null, institution: null, link_session_id: linkSessionId, request_id: null,
      });
      const exitWith = (error) => {
        close();
        emit("EXIT", error ? { error_code: error.error_code, error_type: error.error_type } : {});
        if (config.onExit) config.onExit(error, exitMetadata());
      };
      const finish = async () => {
        try {
          let url = COMPLETE_URL + "?link_token=" + encodeURIComponent(config.token);
          if (config.receivedRedirectUri) {
            url += "&received_redirect_uri=" + encodeURIComponent(config.receivedRedirectUri);
          }
          const res = await fetch(url);
          const body = await res.json();
          if (!res.ok) return exitWith(body);
          // An OAuth bank: the whole window goes to the bank, which sends it back to redirect_uri.
          if (body.oauth_redirect_uri) return window.location.assign(body.oauth_redirect_uri);
          emit("HANDOFF", { institution_id: body.metadata.institution && body.metadata.institution.institution_id });
          close();
          config.onSuccess(body.public_token, body.metadata);
        } catch (e) {
          exitWith({ error_type: "API_ERROR", error_code: "INTERNAL_SERVER_ERROR",
            error_message: String(e), display_message: null });
        }
      };
      const handler = {
        open() {
          if (destroyed || isOpen) return;
          isOpen = true;
          emit("OPEN", { view_name: "CONSENT" });
          // Back from the OAuth bank: Link resumes the session and finishes by itself.
          if (config.receivedRedirectUri) return void finish();
          overlay = document.createElement("div");
          overlay.setAttribute("role", "dialog");
          overlay.setAttribute("aria-label", "Plaid Link (fake)");
          overlay.style.cssText = "position:fixed;inset:0;background:rgba(15,23,42,.55);display:flex;align-items:center;justify-content:center;z-index:9999";
          const box = document.createElement("div");
          box.style.cssText = "background:#fff;border-radius:12px;padding:24px;width:340px;font:14px system-ui;box-shadow:0 10px 30px rgba(0,0,0,.3)";
          const title = document.createElement("p");
          title.textContent = "Plaid Link (fake for tests)";
          title.style.cssText = "font-weight:600;font-size:16px;margin:0 0 8px";
          const text = document.createElement("p");
          text.textContent = "Sign in at First Platypus Bank and share your accounts.";
          text.style.cssText = "margin:0 0 16px;color:#475569";
          const go = document.createElement("button");
          go.textContent = "Continue";
          go.style.cssText = "background:#0f172a;color:#fff;border:0;border-radius:6px;padding:8px 14px;margin-right:8px";
          go.onclick = () => { go.disabled = true; finish(); };
          const cancel = document.createElement("button");
          cancel.textContent = "Exit";
          cancel.style.cssText = "border:1px solid #cbd5e1;background:#fff;border-radius:6px;padding:8px 14px";
          cancel.onclick = () => exitWith(null);
          box.append(title, text, go, cancel);
          overlay.append(box);
          document.body.append(overlay);
        },
        exit(options) { if (isOpen) exitWith(null); },
        destroy() { close(); destroyed = true; },
        submit() {},
      };
      // Link calls onLoad once its iframe is ready; react-plaid-link waits for it.
      setTimeout(() => { if (!destroyed && config.onLoad) config.onLoad(); }, 0);
      return handler;
    },
  };
})();`;

function formatUsd(amount: number): string {
  return new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }).format(amount);
}

describe.skipIf(Boolean(skipReason))(
  `Plaid Link (production build)${skipReason ? `: ${skipReason}` : ""}`,
  () => {
    let fake: PlaidFake;
    let server: StartedServer;
    let browser: Browser;
    let page: Page;
    let cspViolations: string[] = [];
    const data = plaidItemData();
    // Right after linking Plaid often has recurring streams not ready yet: the row says so.
    const itemOptions: ItemOptions = { productErrors: { recurring: "PRODUCT_NOT_READY" } };
    const sessions: LinkSuccess[] = [];
    /** The bank the user picks in the fake Link; OAuth ones leave the page and come back. */
    let chosen = data;
    const oauthData = plaidItemData({
      institution_id: "ins_oauth_quokka",
      institution_name: "Quokka Credit Union",
    });
    const OAUTH_INSTITUTIONS = new Set([oauthData.institution_id]);
    let item: FakeItem;
    const shots: string[] = [];
    const started = Date.now();

    beforeAll(async () => {
      fake = await startPlaidFake();
      server = await startServer({
        name: "plaid",
        env: (baseUrl) => ({
          PLAID_CLIENT_ID: FAKE_CLIENT_ID,
          PLAID_SECRET: FAKE_SECRET,
          PLAID_ENV: "sandbox",
          PLAID_API_BASE: fake.url,
          PLAID_REDIRECT_URI: `${baseUrl}/dashboard/banks`,
        }),
      });
      browser = await launchBrowser();
      page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
      cspViolations = watchCspViolations(page);
      await page.route(PLAID_LINK_URL, (route) =>
        route.fulfill({ status: 200, contentType: "application/javascript", body: FAKE_LINK_JS }),
      );
      await page.route(
        (url) => url.href.startsWith(COMPLETE_URL),
        (route) => {
          const params = new URL(route.request().url()).searchParams;
          const linkToken = params.get("link_token") ?? "";
          const received = params.get("received_redirect_uri");
          const headers = { "access-control-allow-origin": "*" };
          try {
            if (!received && OAUTH_INSTITUTIONS.has(chosen.institution_id)) {
              const oauthRedirectUri = fake.startOAuth(linkToken);
              return route.fulfill({
                status: 200,
                contentType: "application/json",
                headers,
                json: { oauth_redirect_uri: oauthRedirectUri },
              });
            }
            const success = received
              ? fake.completeOAuthLink(linkToken, received, chosen, itemOptions)
              : fake.completeLink(linkToken, chosen, itemOptions);
            sessions.push(success);
            return route.fulfill({ status: 200, contentType: "application/json", headers, json: success });
          } catch (error) {
            return route.fulfill({
              status: 400,
              contentType: "application/json",
              headers,
              json: {
                error_type: "INVALID_INPUT",
                error_code: "INVALID_LINK_TOKEN",
                error_message: String(error),
                display_message: "This link has expired. Please try again.",
              },
            });
          }
        },
      );
    });

    afterAll(async () => {
      await browser?.close();
      await server?.stop();
      await fake?.close();
      console.log(
        `[e2e] plaid scenario took ${Math.round((Date.now() - started) / 100) / 10}s; screenshots:\n${shots.join("\n")}`,
      );
    });

    it("signs in and subscribes through the local checkout", async () => {
      await signIn(page, email, server);
      await page.goto(`${server.baseUrl}/dashboard/billing`);
      await page.getByRole("button", { name: "Subscribe" }).click();
      await page.waitForURL("**/dashboard/billing/local-checkout");
      await page.getByRole("button", { name: "Pay: subscription active" }).click();
      await page.waitForURL("**/dashboard/billing?checkout=success");
      await expect
        .poll(() => page.getByTestId("subscription-state").getAttribute("data-state"))
        .toBe("active");
    });

    it("links a bank through Plaid Link and shows its accounts", async () => {
      await page.goto(`${server.baseUrl}/dashboard/banks`);
      const linkButton = page.getByTestId("plaid-link-button").filter({ hasText: "Link a bank" });
      await linkButton.click();
      const dialog = page.getByRole("dialog", { name: "Plaid Link (fake)" });
      await dialog.waitFor();
      // Our server asked Plaid for a new-item token: transactions, no access token.
      const create = fake.requests.filter((r) => r.path === "/link/token/create").at(-1);
      expect(create?.body.access_token).toBeUndefined();
      expect(create?.body.products).toEqual(["transactions"]);
      shots.push(await screenshot(page, "plaid-01-link-open"));

      await dialog.getByRole("button", { name: "Continue" }).click();
      const row = page.getByTestId("bank-connection").first();
      await expect.poll(() => row.getAttribute("data-status"), { timeout: 60_000 }).toBe("healthy");
      await expect
        .poll(() => page.getByTestId("plaid-link-status").first().textContent())
        .toBe(`Bank linked: ${data.accounts.length} accounts imported.`);
      expect(sessions).toHaveLength(1);
      const exchanged = fake.itemForPublicToken(sessions[0]!.public_token);
      expect(exchanged).toBeDefined();
      item = exchanged!;
      await expect.poll(() => row.locator("h3").textContent()).toBe(data.institution_name);

      // Every account with its balance (credit and loans as amounts owed), to the cent.
      const accountRows = row.getByTestId("bank-account");
      await expect.poll(() => accountRows.count()).toBe(data.accounts.length);
      const texts = await accountRows.allTextContents();
      for (const account of data.accounts) {
        const current = account.balances.current;
        expect(current, account.name).not.toBeNull();
        const owed = account.type === "credit" || account.type === "loan";
        const balance = `${formatUsd(current ?? 0)}${owed ? " owed" : ""}`;
        expect(
          texts.some((t) => t.startsWith(account.name) && t.endsWith(balance)),
          `${account.name} ${balance} in ${texts.join(" | ")}`,
        ).toBe(true);
      }
      // The product Plaid could not serve yet is a note on the row, not a failure: a sentence,
      // without Plaid's code (PRODUCT_NOT_READY).
      const note = row.getByTestId("connection-warnings").locator('[data-product="recurring"]');
      await expect.poll(() => note.textContent()).toContain("not ready yet at this bank");
      expect(await note.textContent()).not.toContain("PRODUCT_NOT_READY");
      shots.push(await screenshot(page, "plaid-02-linked"));
    });

    it("ITEM_LOGIN_REQUIRED at Plaid: Sync now shows Reconnect and keeps the accounts", async () => {
      fake.setItemError(item.itemId, "ITEM_LOGIN_REQUIRED");
      const row = page.getByTestId("bank-connection").first();
      await row.getByRole("button", { name: "Sync now" }).click();
      await expect.poll(() => row.getAttribute("data-status"), { timeout: 60_000 }).toBe("reauth_required");
      await row.getByRole("button", { name: "Reconnect" }).waitFor();
      await expect.poll(() => row.textContent()).toContain("The bank asks you to sign in again");
      // The answer of "Sync now" itself.
      await expect
        .poll(() => row.getByRole("status").allTextContents())
        .toContain("The bank asks you to sign in again: use Reconnect.");
      expect(await row.getByTestId("bank-account").count()).toBe(data.accounts.length);
      shots.push(await screenshot(page, "plaid-03-reauth-required"));
    });

    it("Reconnect opens Link in update mode; afterwards the bank is healthy again", async () => {
      const row = page.getByTestId("bank-connection").first();
      await row.getByRole("button", { name: "Reconnect" }).click();
      const dialog = page.getByRole("dialog", { name: "Plaid Link (fake)" });
      await dialog.waitFor();
      // Update mode: the link token was made for this item's access token, without products.
      const create = fake.requests.filter((r) => r.path === "/link/token/create").at(-1);
      expect(create?.body.access_token).toBe(item.accessToken);
      expect(create?.body.products).toBeUndefined();
      shots.push(await screenshot(page, "plaid-04-update-mode"));

      // Finishing Link's update mode is the user logging in again: Plaid clears the item's error.
      await dialog.getByRole("button", { name: "Continue" }).click();
      await expect.poll(() => row.getAttribute("data-status"), { timeout: 60_000 }).toBe("healthy");
      expect(item.error).toBeNull();
      expect(sessions).toHaveLength(2);
      // No new item: update mode keeps the same one.
      expect(fake.items.size).toBe(1);
      await expect.poll(() => row.getByRole("button", { name: "Reconnect" }).count()).toBe(0);
      expect(await row.getByTestId("bank-account").count()).toBe(data.accounts.length);
      // Neither the re-authorization note nor the stale "use Reconnect" answer of Sync now remain.
      await expect.poll(() => row.textContent()).not.toContain("sign in again");
      shots.push(await screenshot(page, "plaid-05-reconnected"));
    });

    it("an OAuth bank leaves the page; back at PLAID_REDIRECT_URI Link resumes and links it", async () => {
      chosen = oauthData;
      await page.goto(`${server.baseUrl}/dashboard/banks`);
      await page.getByTestId("plaid-link-button").filter({ hasText: "Link a bank" }).click();
      const dialog = page.getByRole("dialog", { name: "Plaid Link (fake)" });
      await dialog.waitFor();
      const create = fake.requests.filter((r) => r.path === "/link/token/create").at(-1);
      expect(create?.body.redirect_uri).toBe(`${server.baseUrl}/dashboard/banks`);
      const linkToken = await page.evaluate(() => sessionStorage.getItem("ledgerlink.plaid-link"));
      expect(linkToken).toContain("link-sandbox-");

      // "Continue" at an OAuth bank: the page leaves for the bank and comes back with oauth_state_id.
      const createRequests = fake.requests.filter((r) => r.path === "/link/token/create").length;
      await dialog.getByRole("button", { name: "Continue" }).click();
      await page.waitForURL((url) => url.searchParams.has("oauth_state_id"));
      // Link finishes the same session (no new token) and the bank is linked with its accounts.
      const row = page.getByTestId("bank-connection").filter({ hasText: oauthData.institution_name });
      await expect.poll(() => row.getAttribute("data-status"), { timeout: 60_000 }).toBe("healthy");
      await expect
        .poll(() => page.getByTestId("plaid-link-status").first().textContent())
        .toBe(`Bank linked: ${oauthData.accounts.length} accounts imported.`);
      expect(fake.requests.filter((r) => r.path === "/link/token/create")).toHaveLength(createRequests);
      expect(sessions).toHaveLength(3);
      expect(sessions[2]?.metadata.institution?.institution_id).toBe(oauthData.institution_id);
      expect(fake.itemForPublicToken(sessions[2]!.public_token)?.data.institution_id).toBe(
        oauthData.institution_id,
      );
      await expect.poll(() => row.getByTestId("bank-account").count()).toBe(oauthData.accounts.length);
      expect(new URL(page.url()).searchParams.has("oauth_state_id")).toBe(false);
      expect(new URL(page.url()).pathname).toBe("/dashboard/banks");
      expect(await page.evaluate(() => sessionStorage.getItem("ledgerlink.plaid-link"))).toBeNull();
      shots.push(await screenshot(page, "plaid-06-oauth-resumed"));
    });

    it("back from an OAuth bank without a stored session: asks to link the bank again", async () => {
      const items = fake.items.size;
      await page.goto(`${server.baseUrl}/dashboard/banks?oauth_state_id=${randomUUID()}`);
      await expect
        .poll(() => page.getByRole("alert").allTextContents())
        .toContain(
          "Your bank sent you back, but this browser tab no longer has that Plaid session. Please start “Link a bank” again.",
        );
      expect(new URL(page.url()).searchParams.has("oauth_state_id")).toBe(false);
      expect(fake.items.size).toBe(items);
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
