/**
 * Global setup of the browser tests (vitest project `e2e`): the PRODUCTION build, served by
 * `next start`, exactly as a deployment would run it.
 *
 * 1. Builds once into `.next-e2e` (NEXT_DIST_DIR). The build is skipped when `.next-e2e/BUILD_ID`
 *    is newer than every source file (app/, components/, lib/, db/, proxy.ts, config files), or when
 *    E2E_SKIP_BUILD=1.
 * 2. Starts `next start` on a free port with a fresh PGlite folder `.data/e2e-<random>/pglite`,
 *    BILLING=local (the labelled test checkout; production refuses to start without Stripe
 *    otherwise), APP_URL=http://localhost:<port>, EMAIL_TRANSPORT=log (magic links go to the log:
 *    allowed in production only because it is explicit), ALLOW_SANDBOX_REAUTH=1 (the sandbox's
 *    development control), fresh AUTH_SECRET and ENCRYPTION_KEY. stdout and stderr go to
 *    `.data/e2e-<random>/server.log`.
 * 3. Provides `e2eBaseUrl` and `e2eLogPath` to tests (`inject("e2eBaseUrl")`), and also sets
 *    E2E_BASE_URL / E2E_LOG_PATH in the environment for tools that are not vitest tests.
 *    `e2eSkipReason` is non-empty when the browser is missing: tests then skip with that message.
 * E2E_APP_DIR builds and serves another copy of the app instead of this checkout.
 * 4. Teardown stops the server and deletes the data folder (E2E_KEEP=1 keeps it for debugging).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream, existsSync, promises as fs, readFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { CHROMIUM_PATH } from "./chromium";

declare module "vitest" {
  export interface ProvidedContext {
    e2eBaseUrl: string;
    e2eLogPath: string;
    e2eSkipReason: string;
    /** The app folder and its dist dir, for tests that start their own `next start`. */
    e2eAppDir: string;
    e2eDistDir: string;
  }
}

// E2E_APP_DIR: build and serve another copy of the app (e.g. a clean export of the sources).
const ROOT = path.resolve(process.env.E2E_APP_DIR ?? path.join(import.meta.dirname, "../.."));
const DIST_DIR = ".next-e2e";
export const NEXT_BIN = path.resolve(
  import.meta.dirname,
  "../..",
  "node_modules",
  "next",
  "dist",
  "bin",
  "next",
);
const SOURCES = [
  "app",
  "components",
  "lib",
  "db",
  "next.config.ts",
  "package-lock.json",
  "instrumentation.ts",
  "proxy.ts",
  "public",
  "postcss.config.mjs",
];

async function newestMtime(target: string): Promise<number> {
  const stat = await fs.stat(target).catch(() => null);
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of await fs.readdir(target)) {
    newest = Math.max(newest, await newestMtime(path.join(target, entry)));
  }
  return newest;
}

async function buildIsFresh(): Promise<boolean> {
  const marker = await fs.stat(path.join(ROOT, DIST_DIR, "BUILD_ID")).catch(() => null);
  if (!marker) return false;
  let newest = 0;
  for (const source of SOURCES) newest = Math.max(newest, await newestMtime(path.join(ROOT, source)));
  return marker.mtimeMs > newest;
}

/** Env for the server and the build: the parent's, minus anything that would point elsewhere. */
export function baseEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of Object.keys(env)) {
    if (
      /^(STRIPE_|PLAID_|SMTP_|AUTH_GITHUB_|DATABASE_URL|TEST_DATABASE_URL|NEON|VITEST|LEDGERLINK_TEST_DB)/.test(
        key,
      )
    ) {
      delete env[key];
    }
  }
  return env;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv, logFile: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const log = createWriteStream(logFile);
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.pipe(log);
    child.stderr.pipe(log);
    child.on("error", reject);
    child.on("exit", (code) => {
      log.end();
      if (code === 0) resolve();
      else reject(new Error(`${command} ${args.join(" ")} failed (${code}); see ${logFile}`));
    });
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function waitForServer(
  url: string,
  child: ChildProcess,
  logPath: string,
  timeoutMs = 90_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(
        `next start exited with ${child.exitCode}:\n${readFileSync(logPath, "utf8").slice(-3000)}`,
      );
    }
    try {
      const response = await fetch(url, { redirect: "manual" });
      if (response.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`next start did not answer within ${timeoutMs} ms; see ${logPath}`);
}

export default async function setup(project: TestProject) {
  if (!existsSync(CHROMIUM_PATH)) {
    const reason = `Chromium is not installed at ${CHROMIUM_PATH} (apt-get install -y chromium): browser tests skipped.`;
    console.warn(`[e2e] ${reason}`);
    project.provide("e2eSkipReason", reason);
    project.provide("e2eBaseUrl", "");
    project.provide("e2eLogPath", "");
    project.provide("e2eAppDir", ROOT);
    project.provide("e2eDistDir", DIST_DIR);
    return;
  }

  const runDir = path.join(ROOT, ".data", `e2e-${randomBytes(6).toString("hex")}`);
  await fs.mkdir(runDir, { recursive: true });

  if (process.env.E2E_SKIP_BUILD !== "1" && !(await buildIsFresh())) {
    const started = Date.now();
    console.log(`[e2e] next build → ${DIST_DIR} …`);
    await run(
      process.execPath,
      [NEXT_BIN, "build"],
      {
        ...baseEnv(),
        NODE_ENV: "production",
        NEXT_DIST_DIR: DIST_DIR,
        PGLITE_DIR: path.join(runDir, "build-pglite"),
      },
      path.join(runDir, "build.log"),
    );
    console.log(`[e2e] built in ${Math.round((Date.now() - started) / 1000)} s`);
  }

  const port = await freePort();
  const baseUrl = `http://localhost:${port}`;
  const logPath = path.join(runDir, "server.log");
  const log = createWriteStream(logPath);
  const server = spawn(process.execPath, [NEXT_BIN, "start", "-p", String(port)], {
    cwd: ROOT,
    env: {
      ...baseEnv(),
      NODE_ENV: "production",
      NEXT_DIST_DIR: DIST_DIR,
      PGLITE_DIR: path.join(runDir, "pglite"),
      APP_URL: baseUrl,
      BILLING: "local",
      EMAIL_TRANSPORT: "log",
      ALLOW_SANDBOX_REAUTH: "1",
      // The browser tests register and refresh many OAuth clients from one address.
      OAUTH_REGISTER_PER_MINUTE: "100000",
      OAUTH_TOKEN_PER_MINUTE: "100000",
      AUTH_SECRET: randomBytes(32).toString("base64"),
      ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      // Next rewrites 127.0.0.1 to localhost; Auth.js builds links from AUTH_URL (APP_URL).
      AUTH_URL: `${baseUrl}/api/auth`,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  server.stdout?.pipe(log);
  server.stderr?.pipe(log);
  await waitForServer(`${baseUrl}/sign-in`, server, logPath);
  console.log(`[e2e] next start on ${baseUrl}; log ${path.relative(ROOT, logPath)}`);

  project.provide("e2eSkipReason", "");
  project.provide("e2eBaseUrl", baseUrl);
  project.provide("e2eLogPath", logPath);
  project.provide("e2eAppDir", ROOT);
  project.provide("e2eDistDir", DIST_DIR);
  process.env.E2E_BASE_URL = baseUrl;
  process.env.E2E_LOG_PATH = logPath;

  return async () => {
    if (server.exitCode === null) {
      const exited = new Promise<void>((resolve) => server.once("exit", () => resolve()));
      server.kill("SIGTERM");
      const timer = setTimeout(() => server.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    }
    log.end();
    if (process.env.E2E_KEEP !== "1") await fs.rm(runDir, { recursive: true, force: true });
  };
}
