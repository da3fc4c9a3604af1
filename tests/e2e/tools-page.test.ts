/**
 * /dashboard/tools, "what your assistant sees", in Chromium on the production build: an unpaid
 * person gets `setup_required` with its link; an active person with a sandbox bank sees an
 * account name of their bank in list_accounts' table, finds rows with a search_transactions query
 * typed into the generated form, sees the raw answer with its size, and finds the runs in
 * Activity as the dashboard.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  e2eServer,
  launchBrowser,
  linkFirstSandboxBank,
  screenshot,
  signIn,
  subscribeLocally,
  watchCspViolations,
} from "./helpers";

const server = e2eServer();

async function run(page: Page, tool: string) {
  await page.getByRole("button", { name: `Run ${tool}` }).click();
  const answer = page.getByRole("region", { name: "Answer", exact: true });
  await answer.waitFor();
  return answer;
}

describe.skipIf(server.skipReason)("/dashboard/tools: what your assistant sees", () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let cspViolations: string[];

  beforeAll(async () => {
    browser = await launchBrowser();
    context = await browser.newContext();
    page = await context.newPage();
    cspViolations = watchCspViolations(page);
    await signIn(page, `tools-page-${Date.now()}@example.test`);
  }, 60_000);
  afterAll(async () => {
    await context?.close();
    await browser?.close();
  });

  it("answers an unpaid person with setup_required and the way to finish setup", async () => {
    await page.goto(`${server.baseUrl}/dashboard`);
    await page.getByRole("link", { name: "Try the tools" }).click();
    await page.waitForURL("**/dashboard/tools");
    await page.getByRole("link", { name: "List accounts" }).click();
    await page.waitForURL("**/dashboard/tools?tool=list_accounts");
    const answer = await run(page, "list_accounts");
    expect(await answer.textContent()).toContain("setup_required");
    const setup = answer.getByRole("link", { name: "Finish setup" });
    expect(await setup.getAttribute("href")).toBe(`${server.baseUrl}/dashboard/billing`);
  });

  it("shows an active person's accounts and finds rows by a typed query", async () => {
    await subscribeLocally(page);
    await linkFirstSandboxBank(page);
    // An account name as the Banks page shows it: independent of the tools page.
    const bankAccount = page.getByTestId("bank-account").first();
    const accountName = ((await bankAccount.locator("span").first().textContent()) ?? "")
      .replace(/••\d+.*$/, "")
      .trim();
    expect(accountName).not.toBe("");

    await page.goto(`${server.baseUrl}/dashboard/tools?tool=list_accounts`);
    let answer = await run(page, "list_accounts");
    expect(await answer.getByRole("table").first().textContent()).toContain(accountName);
    expect(await answer.getByRole("region", { name: "Raw answer of list_accounts" }).textContent()).toContain(
      `"name": "${accountName}"`,
    );

    // A merchant from an unfiltered search, then a search for it typed into the form.
    await page.goto(`${server.baseUrl}/dashboard/tools?tool=search_transactions`);
    answer = await run(page, "search_transactions");
    const raw = JSON.parse(
      (await answer.getByRole("region", { name: "Raw answer of search_transactions" }).textContent()) ?? "",
    ) as { data: { transactions: Array<{ merchant?: string }> } };
    const merchant = raw.data.transactions.find((t) => t.merchant)?.merchant;
    if (!merchant) throw new Error("no merchant in the first page of transactions");
    await page.getByLabel("Query").fill(merchant);
    answer = await run(page, "search_transactions");
    await expect.poll(async () => answer.textContent()).toContain(`"query":"${merchant}"`);
    const rows = answer.getByRole("table").first().locator("tbody tr");
    expect(await rows.count()).toBeGreaterThan(0);
    for (const text of await rows.allTextContents())
      expect(text.toLowerCase()).toContain(merchant.toLowerCase());
    expect(await answer.textContent()).toMatch(/Raw answer, [\d,]+ bytes as sent/);
    await screenshot(page, "tools-search-desktop");
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, "tools-search-phone");
    await page.setViewportSize({ width: 1280, height: 800 });

    // A bad argument gets the sentence an assistant would read.
    await page.getByLabel("Start date").fill("2025-02-01");
    await page.getByLabel("Period").selectOption("last_month");
    answer = await run(page, "search_transactions");
    expect(await answer.getByRole("alert").textContent()).toMatch(/period/);

    await page.goto(`${server.baseUrl}/dashboard/activity`);
    expect(await page.getByRole("table").textContent()).toContain("Dashboard (you)");
    expect(cspViolations).toEqual([]);
  }, 120_000);
});
