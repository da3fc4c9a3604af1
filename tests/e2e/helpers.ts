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
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream, existsSync, promises as fs } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { inject } from "vitest";

import { CHROMIUM_ARGS, CHROMIUM_PATH } from "./chromium";
import { baseEnv, freePort, NEXT_BIN } from "./global-setup";

export { CHROMIUM_PATH } from "./chromium";

/** The two widths every page is tried at: a laptop and a phone. */
export const SIZES = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
] as const;

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

/** The sign-in links in log text: JSON lines `{"msg":"auth.sign_in_link","email","sign_in_link"}` (lib/auth.ts). */
function signInLinks(text: string): { email: string; link: string }[] {
  const links: { email: string; link: string }[] = [];
  for (const line of text.split("\n")) {
    if (!line.includes('"auth.sign_in_link"')) continue;
    const entry = JSON.parse(line) as { msg?: string; email?: string; sign_in_link?: string };
    if (entry.msg === "auth.sign_in_link" && entry.email && entry.sign_in_link)
      links.push({ email: entry.email, link: entry.sign_in_link });
  }
  return links;
}

/**
 * Waits for the newest sign-in link logged for `email` after byte `fromOffset` of the log
 * (EMAIL_TRANSPORT=log writes it as one JSON line, the one log line that carries a secret).
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
    // The offset is in bytes (fs.stat size); slice before decoding.
    const text = (await fs.readFile(logPath)).subarray(fromOffset).toString("utf8");
    // A line still being written has no end of line yet: only whole lines are read.
    const whole = text.slice(0, text.lastIndexOf("\n") + 1);
    const link = signInLinks(whole)
      .filter((entry) => entry.email.toLowerCase() === wanted)
      .at(-1)?.link;
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

/** Subscribes the signed-in person through the labelled local test checkout. */
export async function subscribeLocally(page: Page, server: E2eServer = e2eServer()): Promise<void> {
  await page.goto(`${server.baseUrl}/dashboard/billing`);
  await page.getByRole("button", { name: "Subscribe" }).click();
  await page.waitForURL("**/dashboard/billing/local-checkout");
  await page.getByRole("button", { name: "Pay: subscription active" }).click();
  await page.waitForURL("**/dashboard/billing?checkout=success");
}

/** Links the first sandbox bank through the connect flow and waits for its first sync. */
export async function linkFirstSandboxBank(page: Page, server: E2eServer = e2eServer()): Promise<void> {
  await page.goto(`${server.baseUrl}/dashboard/banks`);
  await page.getByRole("button", { name: "Link a bank" }).click();
  await page.getByRole("radio").first().check();
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByLabel("Username").waitFor();
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Link and sync" }).click();
  await page.getByTestId("link-done").waitFor({ timeout: 60_000 });
}

/** Saves a full-page screenshot as tests/e2e/screenshots/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  const file = path.join(import.meta.dirname, "screenshots", `${name}.png`);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

export interface StartedServer extends E2eServer {
  /** Stops `next start` and deletes its data folder (E2E_KEEP=1 keeps it). */
  stop(): Promise<void>;
  /** Sends `signal` (e.g. SIGKILL: a crashed instance) and resolves once the process has exited. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

/**
 * Starts ANOTHER `next start` of the production build the global setup made (same app folder and
 * `.next-e2e`), for tests that need settings the shared server does not have (e.g. Plaid pointed
 * at a local fake). Same defaults as global-setup.ts — production, BILLING=local,
 * EMAIL_TRANSPORT=log, fresh AUTH_SECRET / ENCRYPTION_KEY, its own port, APP_URL and a fresh
 * PGlite folder `.data/e2e-<name>-<random>/pglite` — with `env` applied last (a DATABASE_URL there
 * puts it on PostgreSQL instead; several servers given the same one share it). Call `stop()` in
 * afterAll; `kill("SIGKILL")` crashes it.
 */
export async function startServer(
  options: {
    name?: string;
    /** Applied last; a function gets the server's `baseUrl` (e.g. for redirect addresses). */
    env?: Record<string, string> | ((baseUrl: string) => Record<string, string>);
  } = {},
): Promise<StartedServer> {
  const appDir = inject("e2eAppDir");
  const runDir = path.join(
    appDir,
    ".data",
    `e2e-${options.name ?? "server"}-${randomBytes(4).toString("hex")}`,
  );
  await fs.mkdir(runDir, { recursive: true });
  const port = await freePort();
  const baseUrl = `http://localhost:${port}`;
  const logPath = path.join(runDir, "server.log");
  const log = createWriteStream(logPath);
  const child = spawn(process.execPath, [NEXT_BIN, "start", "-p", String(port)], {
    cwd: appDir,
    env: {
      ...baseEnv(),
      NODE_ENV: "production",
      NEXT_DIST_DIR: inject("e2eDistDir"),
      PGLITE_DIR: path.join(runDir, "pglite"),
      APP_URL: baseUrl,
      BILLING: "local",
      EMAIL_TRANSPORT: "log",
      AUTH_SECRET: randomBytes(32).toString("base64"),
      ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      // Next rewrites 127.0.0.1 to localhost; Auth.js builds links from AUTH_URL (APP_URL).
      AUTH_URL: `${baseUrl}/api/auth`,
      ...(typeof options.env === "function" ? options.env(baseUrl) : options.env),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    }
    log.end();
    if (process.env.E2E_KEEP !== "1") await fs.rm(runDir, { recursive: true, force: true });
  };
  const kill = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill(signal);
    await exited;
  };
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) {
      const output = await fs.readFile(logPath, "utf8").catch(() => "");
      await stop();
      throw new Error(`next start exited with ${child.exitCode}:\n${output.slice(-3000)}`);
    }
    const answer = await fetch(`${baseUrl}/sign-in`, { redirect: "manual" }).catch(() => null);
    if (answer && answer.status < 500) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`next start did not answer within 90 s; see ${logPath}`);
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  return { baseUrl, logPath, skipReason: "", stop, kill };
}

/**
 * Collects what the page's Content-Security-Policy blocked (Chromium reports each refusal as a
 * console error). A scenario that ends with an empty list ran entirely under the policy.
 */
export function watchCspViolations(page: Page): string[] {
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  return violations;
}

const AXE_PATH = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

export interface Finding {
  id: string;
  impact: string;
  targets: string[];
}

/** The serious and critical axe-core violations on the page as it is now. */
export async function axe(page: Page): Promise<Finding[]> {
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
