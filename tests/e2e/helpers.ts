/**
 * Shared helpers for browser tests of the production build (see global-setup.ts for the server).
 *
 * ```ts
 * import { e2eServer, launchBrowser, signIn } from "./helpers";
 * const server = e2eServer();                 // { baseUrl, logPath, skipReason }
 * describe.skipIf(server.skipReason)("…", () => {
 *   let browser: Browser;
 *   beforeAll(async () => { browser = await launchBrowser(); });
 *   afterAll(async () => { await browser?.close(); });
 *   it("…", async () => {
 *     const page = await browser.newPage();
 *     await signIn(page, `someone-${Date.now()}@example.test`);   // lands on /dashboard
 *   });
 * });
 * ```
 * Every test should use its own fresh email address: each address is a new user.
 */
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { inject } from "vitest";

import { CHROMIUM_ARGS, CHROMIUM_PATH } from "./chromium";

export { CHROMIUM_PATH } from "./chromium";

export interface E2eServer {
  /** `http://localhost:<port>` of `next start` (empty when skipped). */
  baseUrl: string;
  /** The server's captured stdout/stderr (magic links are logged here). */
  logPath: string;
  /** Non-empty when the browser tests must skip (no Chromium); say it in `describe.skipIf`. */
  skipReason: string;
}

/** What global-setup.ts provided. */
export function e2eServer(): E2eServer {
  return {
    baseUrl: inject("e2eBaseUrl"),
    logPath: inject("e2eLogPath"),
    skipReason: inject("e2eSkipReason"),
  };
}

/** Launches Debian's Chromium headless through playwright-core. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`Chromium is not installed at ${CHROMIUM_PATH}.`);
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}

const LINK_LINE = /\[auth\] Sign-in link for (\S+): (\S+)/g;

/**
 * Waits for the newest sign-in link logged for `email` after byte `fromOffset` of the log.
 * The server logs `[auth] Sign-in link for <email>: <url>` (EMAIL_TRANSPORT=log).
 */
export async function readSignInLink(
  logPath: string,
  email: string,
  fromOffset = 0,
  timeoutMs = 15_000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  const wanted = email.toLowerCase();
  while (Date.now() < deadline) {
    const text = (await fs.readFile(logPath, "utf8")).slice(fromOffset);
    let link: string | undefined;
    for (const match of text.matchAll(LINK_LINE)) {
      if (match[1]?.toLowerCase() === wanted) link = match[2];
    }
    if (link) return link;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`No sign-in link for ${email} appeared in ${logPath} within ${timeoutMs} ms.`);
}

/**
 * Signs `email` in through the real email form: submits it on /sign-in, reads the magic link from
 * the server log, opens it, and waits for the dashboard. A new address creates a new user.
 */
export async function signIn(page: Page, email: string, server: E2eServer = e2eServer()): Promise<void> {
  const offset = (await fs.stat(server.logPath)).size;
  await page.goto(`${server.baseUrl}/sign-in`);
  await page.getByLabel("Email address").fill(email);
  await page.getByRole("button", { name: "Email me a sign-in link" }).click();
  await page.waitForURL("**/sign-in/check-email**");
  const link = await readSignInLink(server.logPath, email, offset);
  await page.goto(link);
  await page.waitForURL(`${server.baseUrl}/dashboard**`);
}

/** Saves a full-page screenshot as tests/e2e/screenshots/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  const file = path.join(import.meta.dirname, "screenshots", `${name}.png`);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
