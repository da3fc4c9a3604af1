/**
 * The person's own categories in Chromium on the production build, at 1280 × 800 and 390 × 844:
 * on Categories a rule is added (and shows), a category is counted as a transfer (and stays
 * ticked), and the rule is removed; on Transactions one transaction's category is changed, the
 * bank's is shown beside it, and it is given back; on the tools page a search result leads to that
 * transaction. Each page is reached through the dashboard's navigation (the phone's Menu too), axe
 * finds no serious or critical violation, and nothing scrolls sideways on a phone.
 */
import type { Browser } from "playwright-core";
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

describe.skipIf(server.skipReason)("categories the person sets", () => {
  let browser: Browser;
  let storage: Awaited<ReturnType<import("playwright-core").BrowserContext["storageState"]>>;

  beforeAll(async () => {
    browser = await launchBrowser();
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, `categories-${Date.now()}@example.test`);
    await subscribeLocally(page);
    await linkFirstSandboxBank(page);
    storage = await context.storageState();
    await context.close();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
  });

  for (const size of SIZES) {
    it(`rules, transfer categories and one transaction's category at ${size.width} px`, async () => {
      const context = await browser.newContext({ storageState: storage, viewport: size });
      const page = await context.newPage();
      const found: string[] = [];
      const check = async (label: string) => {
        for (const v of await axe(page))
          found.push(`${label}: ${v.impact} ${v.id} at ${v.targets.join(" | ")}`);
        if (size.name === "phone") {
          const overflow = await page.evaluate(
            () => document.documentElement.scrollWidth - window.innerWidth,
          );
          if (overflow > 0) {
            // Which positioned elements stick out (an absolute one escapes a scrolling region).
            const out = await page.evaluate(() =>
              [...document.querySelectorAll("body *")]
                .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
                .filter((e) => getComputedStyle(e).position !== "static")
                .slice(0, 3)
                .map((e) => `${e.tagName}.${e.className}`),
            );
            found.push(`${label}: scrolls sideways by ${overflow} px (${out.join(", ")})`);
          }
        }
        await screenshot(page, `categories/${size.name}-${label}`);
      };
      /** Follows the dashboard's navigation to `name` (through the Menu on a phone). */
      const navigate = async (name: string) => {
        const nav = page.getByRole("navigation", { name: "Dashboard" });
        if (size.name === "phone") await nav.getByText("Menu").click();
        await nav.getByRole("link", { name, exact: true }).click();
        await page.waitForURL(`**/dashboard/${name.toLowerCase()}**`);
      };
      try {
        await page.goto(`${server.baseUrl}/dashboard`);

        // Transactions: the newest one's merchant, for a rule; its category changed and given back.
        await navigate("Transactions");
        const rows = page.getByTestId("transaction-row");
        await rows.first().waitFor();
        await check("transactions");
        // A row with a merchant (its second line reads date · account · description).
        const row = rows.filter({ has: page.locator("p", { hasText: /^[^·]+·[^·]+·/ }) }).first();
        const merchant = ((await row.locator("p").first().textContent()) ?? "").trim();
        expect(merchant.length).toBeGreaterThan(0);
        const select = row.getByLabel("Category");
        const before = await select.inputValue();
        const other = before === "education" ? "taxes" : "education";
        await select.selectOption(other);
        await row.getByRole("button", { name: "Save" }).click();
        await expect.poll(() => row.getByRole("status").textContent()).toContain("Saved");
        await row.getByRole("button", { name: "Use the bank's" }).waitFor();
        expect(await row.textContent()).toContain("Bank's category");
        await check("transaction-changed");
        await row.getByRole("button", { name: "Use the bank's" }).click();
        await expect.poll(() => row.getByRole("status").textContent()).toContain("bank's category");
        await expect.poll(() => select.inputValue()).toBe(before);

        // Categories: a rule on that merchant, a transfer category, then the rule removed.
        await navigate("Categories");
        await page.getByLabel("When the").selectOption("merchant");
        await page.getByLabel("Text").fill(merchant);
        await page.getByLabel("File it under").selectOption("gifts_and_donations");
        await page.getByRole("button", { name: "Add rule" }).click();
        await expect.poll(() => page.getByRole("status").first().textContent()).toContain("Rule added");
        const rule = page.getByTestId("rule-row").filter({ hasText: merchant });
        await rule.waitFor();
        expect(await rule.textContent()).toContain("Gifts & donations");
        await page.getByLabel("Gifts & donations").check();
        await page.getByRole("button", { name: "Save transfers" }).click();
        await expect.poll(() => page.getByText("Counted as transfers: Gifts & donations").count()).toBe(1);
        await check("categories");
        await page.reload();
        expect(await page.getByLabel("Gifts & donations").isChecked()).toBe(true);
        expect(await page.getByLabel("Credit card payment").isDisabled()).toBe(true);

        // The rule reached the transactions: the merchant's rows now read Gifts & donations.
        await page.goto(`${server.baseUrl}/dashboard/transactions?q=${encodeURIComponent(merchant)}`);
        const ruled = page
          .getByTestId("transaction-row")
          .filter({ has: page.getByText(merchant, { exact: true }) })
          .first();
        expect(await ruled.getByLabel("Category").inputValue()).toBe("gifts_and_donations");
        expect(await ruled.getByRole("button", { name: "Use the bank's" }).count()).toBe(0);
        await check("transactions-ruled");

        await navigate("Categories");
        await page.getByLabel("Gifts & donations").uncheck();
        await page.getByRole("button", { name: "Save transfers" }).click();
        await expect.poll(() => page.getByText("No category is counted as a transfer.").count()).toBe(1);
        await rule.getByRole("button", { name: "Remove" }).click();
        await expect.poll(() => page.getByTestId("rule-row").count()).toBe(0);

        // The tools page: a search result leads to its transaction.
        await page.goto(`${server.baseUrl}/dashboard/tools?tool=search_transactions`);
        await page.getByRole("button", { name: "Run search_transactions" }).click();
        const answer = page.getByRole("region", { name: "Answer", exact: true });
        await answer.waitFor();
        await check("tools-search");
        const link = answer.getByRole("link", { name: /^Change category of / }).first();
        await link.click();
        await page.waitForURL("**/dashboard/transactions?id=**");
        await page.getByTestId("transaction-row").first().waitFor();
        expect(await page.getByTestId("transaction-row").count()).toBe(1);
        await check("transaction-one");
      } finally {
        await context.close();
      }
      expect(found).toEqual([]);
    }, 240_000);
  }
});
