/**
 * What each assistant may read (issue 35 §1-§2) in Chromium on the production build, at 1280 and
 * 390 px: a person with a sandbox bank hides an account on Banks and shows it again; creates a
 * key for one chosen account and changes it; approves an app on the consent screen with one box
 * unticked (none ticked is refused with a clear sentence) and changes its accounts under
 * Connected apps; runs list_accounts on the tools page as that key and as that app and sees only
 * their accounts. Every screen on the way: no serious or critical axe violation, and on a phone
 * nothing scrolls sideways.
 */
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
/** The "app" the consent screen sends back to: a loopback server started before the tests. */
let REDIRECT_URI = "";
const ALL = "All accounts (including ones linked later)";
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** Matches a label that starts with `name`. */
const startsWith = (name: string) => new RegExp(`^${escaped(name)}`);

type Storage = Awaited<ReturnType<BrowserContext["storageState"]>>;

/** The consent screen's URL for a freshly registered client named `name`. */
async function consentUrl(name: string): Promise<string> {
  const registered = await fetch(`${server.baseUrl}/api/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: "none",
    }),
  });
  const clientId = ((await registered.json()) as { client_id: string }).client_id;
  return `${server.baseUrl}/oauth/authorize?${new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    code_challenge_method: "S256",
    state: "access",
  })}`;
}

/** The account names of the list_accounts answer's table, after running it as `runAs`. */
async function listedAs(page: Page, runAs: string): Promise<string> {
  await page.goto(`${server.baseUrl}/dashboard/tools?tool=list_accounts`);
  await page.getByLabel("Run as").selectOption({ label: runAs });
  await page.getByRole("button", { name: "Run list_accounts" }).click();
  const answer = page.getByRole("region", { name: "Answer", exact: true });
  await answer.waitFor();
  await expect.poll(() => page.getByTestId("ran-as").textContent()).toContain(runAs);
  return (await answer.getByRole("table").first().textContent()) ?? "";
}

describe.skipIf(server.skipReason)("account access: hidden accounts and accounts per key and app", () => {
  let browser: Browser;
  let storage: Storage;
  /** The sandbox bank's account names, as its checkboxes label them. */
  let accountNames: string[] = [];
  const callback = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" }).end("Back in the app.");
  });

  beforeAll(async () => {
    await new Promise<void>((resolve) => callback.listen(0, "127.0.0.1", resolve));
    REDIRECT_URI = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
    browser = await launchBrowser();
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, `access-${Date.now()}@example.test`);
    await subscribeLocally(page);
    await linkFirstSandboxBank(page);
    await page.goto(`${server.baseUrl}/dashboard/banks`);
    // The name before the mask ("Everyday Checking ••0000 checking").
    accountNames = (await page.getByTestId("bank-account").locator("xpath=./span[1]").allTextContents()).map(
      (t) => t.replace(/••.*$/, "").trim(),
    );
    storage = await context.storageState();
    await context.close();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    callback.close();
  });

  for (const size of SIZES) {
    it(`hide and show, a key for chosen accounts, consent, an app's accounts and "Run as" at ${size.width} px`, async () => {
      expect(accountNames.length).toBeGreaterThanOrEqual(3);
      const [first, second, third] = accountNames as [string, string, string];
      const context = await browser.newContext({ storageState: storage, viewport: size });
      const page = await context.newPage();
      await page.route(`${REDIRECT_URI}**`, (route) =>
        route.fulfill({ status: 200, body: "back in the app" }),
      );
      const found: string[] = [];
      const check = async (step: string) => {
        for (const v of await axe(page))
          found.push(`${step}: ${v.impact} ${v.id} at ${v.targets.join(" | ")}`);
        if (size.name === "phone") {
          const overflow = await page.evaluate(
            () => document.documentElement.scrollWidth - window.innerWidth,
          );
          if (overflow > 0) found.push(`${step}: scrolls sideways by ${overflow} px`);
        }
        await screenshot(page, `access/${size.name}-${step}`);
      };
      try {
        // Banks: hide the first account, see it marked, show it again.
        await page.goto(`${server.baseUrl}/dashboard/banks`);
        const account = page.getByTestId("bank-account").filter({ hasText: first });
        // A button's name is its label, then the account's (Chromium reads "Hide from assistants : Name").
        const named = (label: string) => new RegExp(`^${label}\\W+${escaped(first)}$`);
        await page.getByRole("button", { name: named("Hide from assistants") }).click();
        await expect.poll(() => account.getAttribute("data-hidden")).toBe("true");
        expect(await account.textContent()).toContain("Hidden from assistants");
        await page
          .getByRole("status")
          .filter({ hasText: `${first} is hidden from assistants.` })
          .waitFor();
        await check("banks-hidden");
        // While hidden, the person's own view leaves it out.
        const hiddenView = await listedAs(page, "You (all visible accounts)");
        expect(hiddenView).not.toContain(first);
        expect(hiddenView).toContain(second);
        await page.goto(`${server.baseUrl}/dashboard/banks`);
        await page.getByRole("button", { name: named("Show to assistants") }).click();
        await expect.poll(() => account.getAttribute("data-hidden")).toBe("false");
        expect(await account.textContent()).not.toContain("Hidden from assistants");

        // API keys: "chosen" with nothing ticked is refused by name, then one account.
        const keyName = `Budget ${size.name}`;
        await page.goto(`${server.baseUrl}/dashboard/keys`);
        const create = page.getByRole("group", { name: "Accounts it may read" });
        expect(await create.getByRole("radio", { name: ALL }).isChecked()).toBe(true);
        await page.getByLabel("Key name").fill(keyName);
        await create.getByRole("radio", { name: "Only the accounts I choose" }).check();
        await page.getByRole("button", { name: "Create key" }).click();
        await create.getByRole("alert").filter({ hasText: "Choose at least one account" }).waitFor();
        await check("keys-none-chosen");
        // The refused form keeps what was entered.
        expect(await page.getByLabel("Key name").inputValue()).toBe(keyName);
        expect(await create.getByRole("radio", { name: "Only the accounts I choose" }).isChecked()).toBe(
          true,
        );
        await create.getByRole("checkbox", { name: startsWith(first) }).check();
        await page.getByRole("button", { name: "Create key" }).click();
        await page.getByTestId("new-key-value").waitFor();
        // A fresh form for the next key: all accounts again.
        expect(await create.getByRole("radio", { name: ALL }).isChecked()).toBe(true);
        expect(await create.getByRole("checkbox").count()).toBe(0);
        const keyRow = page.getByTestId("api-key-row").filter({ hasText: keyName });
        await expect
          .poll(() => keyRow.getByTestId("credential-accounts").textContent())
          .toMatch(startsWith(first));
        // Change it to the second account.
        await keyRow.getByRole("button", { name: /^Change accounts/ }).click();
        const edit = keyRow.getByRole("group", { name: `Accounts ${keyName} may read` });
        await edit.getByRole("checkbox", { name: startsWith(first) }).uncheck();
        await edit.getByRole("checkbox", { name: startsWith(second) }).check();
        await check("keys-editing");
        await keyRow.getByRole("button", { name: "Save accounts" }).click();
        await expect
          .poll(() => keyRow.getByTestId("credential-accounts").textContent())
          .toMatch(startsWith(second));

        // Consent: every box ticked at first; none ticked is refused; approve with the third only.
        const appName = `Access app ${size.name}`;
        await page.goto(await consentUrl(appName));
        const boxes = page.getByRole("group", { name: "Accounts it may read" }).getByRole("checkbox");
        expect(await boxes.count()).toBe(accountNames.length);
        for (const box of await boxes.all()) expect(await box.isChecked()).toBe(true);
        expect(await page.locator("#accounts").textContent()).toContain(
          "All accounts, including ones you link later.",
        );
        await check("consent");
        for (const box of await boxes.all()) await box.uncheck();
        expect(await page.locator("#accounts").textContent()).toContain(
          "Tick at least one account, or deny.",
        );
        await page.getByRole("button", { name: "Approve" }).click();
        await page.waitForURL("**/oauth/authorize?**accounts_error=none**");
        await page.getByRole("alert").filter({ hasText: "No account was ticked" }).waitFor();
        await check("consent-none-ticked");
        await boxes.first().waitFor();
        for (const box of await boxes.all()) await box.uncheck();
        await page.getByRole("checkbox", { name: startsWith(third) }).check();
        expect(await page.locator("#accounts").textContent()).toContain("Only the 1 ticked account");
        await Promise.all([
          page.waitForURL((u) => u.href.startsWith(REDIRECT_URI)),
          page.getByRole("button", { name: "Approve" }).click(),
        ]);
        expect(new URL(page.url()).searchParams.get("code")).toMatch(/^llac_/);

        // Connected apps: it reads the third account; "Run as" shows exactly that.
        await page.goto(`${server.baseUrl}/dashboard/apps`);
        const appRow = page.getByTestId("connected-app").filter({ hasText: appName });
        expect(await appRow.getByTestId("credential-accounts").textContent()).toMatch(startsWith(third));
        const asApp = await listedAs(page, appName);
        expect(asApp).toContain(third);
        expect(asApp).not.toContain(first);
        expect(asApp).not.toContain(second);
        await check("tools-run-as-app");
        const asKey = await listedAs(page, keyName);
        expect(asKey).toContain(second);
        expect(asKey).not.toContain(first);
        expect(asKey).not.toContain(third);

        // Change the app to all accounts: the next run as the app reads them all.
        await page.goto(`${server.baseUrl}/dashboard/apps`);
        await appRow.getByRole("button", { name: /^Change accounts/ }).click();
        await appRow.getByRole("radio", { name: ALL }).check();
        await check("apps-editing");
        await appRow.getByRole("button", { name: "Save accounts" }).click();
        await expect.poll(() => appRow.getByTestId("credential-accounts").textContent()).toBe(ALL);
        const widened = await listedAs(page, appName);
        for (const name of accountNames) expect(widened).toContain(name);
      } finally {
        await context.close();
      }
      expect(found).toEqual([]);
    }, 240_000);
  }
});
