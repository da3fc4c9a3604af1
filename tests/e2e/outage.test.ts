/**
 * Failure paths on the production build, against PostgreSQL behind a fault proxy
 * (tests/support/fault-proxy.ts), with the server's whole log captured:
 * - hostile or wrong input on every surface while the database answers;
 * - the database frozen (every request answers within the configured bounds: 503 + Retry-After,
 *   an error page for a signed-in person, never a redirect to /sign-in), then healed;
 * - every connection dropped (no crash, the next request works), then the server gone.
 * At the end the log is searched for every secret the database holds or the test sent: the
 * session token, the API key, the OAuth code, access and refresh tokens, the bank's provider
 * token, and the server's own secrets; every line the server wrote while serving must be one
 * JSON object (one per request, with the id its answer carried), and none may hold the person's
 * email, money (each amount and balance), merchants, descriptions or an IP address. Health is
 * checked frozen and healed. Runs when TEST_DATABASE_URL names a PostgreSQL server.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream, readFileSync } from "node:fs";
import path from "node:path";
import { eq } from "drizzle-orm";
import pg from "pg";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type Handle, openDatabase, setDbForTesting } from "@/db";
import {
  apiKeys,
  bankAccounts,
  bankConnections,
  oauthTokens,
  sessions,
  subscriptions,
  transactions,
} from "@/db/schema";
import { createApiKey } from "@/lib/api-keys";
import { linkConnection, listSandboxInstitutions } from "@/lib/banking/connections";
import { accessTokenAad } from "@/lib/banking/sync";
import { decryptSecret } from "@/lib/crypto";
import { resetEnvCache } from "@/lib/env";
import {
  createSignedInUser,
  obtainCode,
  obtainTokens,
  pkcePair,
  registerClient,
  type TestUser,
} from "../helpers/oauth";
import { type FaultProxy, startFaultProxy } from "../support/fault-proxy";
import { baseEnv, freePort, NEXT_BIN, waitForServer } from "./global-setup";
import { launchBrowser } from "./helpers";

const adminUrl = process.env.TEST_DATABASE_URL;
const skip = Boolean(inject("e2eSkipReason")) || !adminUrl;
const BOUND_MS = 1_000;

describe.skipIf(skip)("failure paths: bounded, explained, and nothing secret in the log", () => {
  const database = `ledgerlink_outage_${randomBytes(4).toString("hex")}`;
  const serverSecrets = {
    AUTH_SECRET: randomBytes(32).toString("base64"),
    ENCRYPTION_KEY: randomBytes(32).toString("hex"),
    CRON_SECRET: randomBytes(24).toString("hex"),
  };
  const savedEnv = { ...process.env };
  let proxy: FaultProxy;
  let direct: Handle;
  let server: ChildProcess;
  let baseUrl: string;
  let logPath: string;
  let user: TestUser;
  const sent = {} as {
    apiKey: string;
    accessToken: string;
    refreshToken: string;
    usedCode: string;
    freshCode: string;
    providerToken: string;
    clientId: string;
    redirectUri: string;
  };
  let longestWaitMs = 0;
  /** The `x-request-id` of every answer. */
  const requestIds: string[] = [];
  let browser: Browser;

  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    await admin(`CREATE DATABASE ${database}`);
    const url = new URL(adminUrl ?? "");
    url.pathname = `/${database}`;
    const port = await freePort();
    baseUrl = `http://localhost:${port}`;

    // The secrets are made in this process, with the server's own settings, straight into its database.
    Object.assign(process.env, { ...serverSecrets, APP_URL: baseUrl, BILLING: "local" });
    resetEnvCache();
    direct = await openDatabase({ url: url.toString(), driver: "pg", migrate: true });
    setDbForTesting(direct);
    user = await createSignedInUser(direct.db);
    // Subscribed, so the tools answer with the person's money (which the log must never hold).
    await direct.db.insert(subscriptions).values({
      userId: user.userId,
      provider: "local",
      customerId: `cus_${randomBytes(6).toString("hex")}`,
      subscriptionId: `sub_${randomBytes(6).toString("hex")}`,
      status: "active",
    });
    sent.apiKey = (await createApiKey(direct.db, user.userId, "outage")).key;
    const client = await registerClient();
    const obtained = await obtainTokens(direct.db, user, client);
    Object.assign(sent, {
      accessToken: obtained.tokens.access_token,
      refreshToken: obtained.tokens.refresh_token,
      usedCode: obtained.code,
      freshCode: await obtainCode(user, client, pkcePair().challenge),
      clientId: client.clientId,
      redirectUri: client.redirectUri,
    });
    const { connection } = await linkConnection(direct.db, {
      userId: user.userId,
      provider: "sandbox",
      institutionId: listSandboxInstitutions()[0]?.id,
    });
    sent.providerToken = decryptSecret(
      connection.accessTokenCiphertext,
      connection.accessTokenKeyVersion,
      accessTokenAad(connection.provider, connection.providerItemId),
    );

    proxy = await startFaultProxy(url.toString());
    logPath = path.join(inject("e2eAppDir"), ".data", `e2e-outage-${randomBytes(4).toString("hex")}.log`);
    const log = createWriteStream(logPath);
    server = spawn(process.execPath, [NEXT_BIN, "start", "-p", String(port)], {
      cwd: inject("e2eAppDir"),
      env: {
        ...baseEnv(),
        ...serverSecrets,
        NODE_ENV: "production",
        NEXT_DIST_DIR: inject("e2eDistDir"),
        DATABASE_URL: proxy.url,
        APP_URL: baseUrl,
        AUTH_URL: `${baseUrl}/api/auth`,
        BILLING: "local",
        EMAIL_TRANSPORT: "log",
        DB_CONNECT_TIMEOUT_MS: String(BOUND_MS),
        DB_ACQUIRE_TIMEOUT_MS: String(BOUND_MS),
        DB_STATEMENT_TIMEOUT_MS: String(BOUND_MS),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    server.stdout?.pipe(log);
    server.stderr?.pipe(log);
    await waitForServer(`${baseUrl}/sign-in`, server, logPath);
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    server?.kill("SIGKILL");
    setDbForTesting(undefined);
    await direct?.close();
    await proxy?.close();
    await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    process.env = savedEnv;
    resetEnvCache();
  });

  /** One request, timed; the longest wait is reported at the end. */
  const timed = async (pathname: string, init: RequestInit = {}) => {
    const started = Date.now();
    const response = await fetch(`${baseUrl}${pathname}`, { redirect: "manual", ...init });
    const body = await response.text();
    longestWaitMs = Math.max(longestWaitMs, Date.now() - started);
    requestIds.push(response.headers.get("x-request-id") ?? "");
    return { status: response.status, headers: response.headers, body, ms: Date.now() - started };
  };
  const mcp = (bearer: string, body: unknown, version = "2025-06-18") =>
    timed("/api/mcp", {
      method: "POST",
      headers: {
        authorization: `Bearer ${bearer}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": version,
      },
      body: JSON.stringify(body),
    });
  const call = (name: string, args: Record<string, unknown> = {}) => ({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name, arguments: args },
  });
  const form = (pathname: string, fields: Record<string, string>) =>
    timed(pathname, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });
  const refresh = () =>
    form("/api/oauth/token", {
      grant_type: "refresh_token",
      refresh_token: sent.refreshToken,
      client_id: sent.clientId,
    });
  const exchangeCode = (code: string, verifier: string) =>
    form("/api/oauth/token", {
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      client_id: sent.clientId,
      redirect_uri: sent.redirectUri,
    });
  const dashboard = () => timed("/dashboard", { headers: { cookie: user.cookie } });
  const session = () => timed("/api/auth/session?callbackUrl=x", { headers: { cookie: user.cookie } });
  const cron = () =>
    timed("/api/cron/sync", { headers: { authorization: `Bearer ${serverSecrets.CRON_SECRET}` } });

  it("while the database answers: wrong and hostile input gets clear 4xx answers, never 500", async () => {
    expect((await mcp(sent.apiKey, call("list_accounts"))).status).toBe(200);
    expect((await mcp(sent.accessToken, call("get_connection_status"))).status).toBe(200);
    expect((await dashboard()).status).toBe(200);
    const mistyped = `${sent.apiKey.slice(0, -2)}zz`;
    const answers = [
      await mcp(mistyped, call("list_accounts")),
      await mcp(`${sent.accessToken}x`, call("list_accounts")),
      await mcp(sent.apiKey, call("search_transactions", { query: "a\u0000b" })),
      await mcp(sent.apiKey, call("search_transactions", { limt: 1 })),
      await mcp(sent.apiKey, [call("list_accounts"), call("list_accounts")]),
      await exchangeCode(sent.usedCode, "wrong-verifier-wrong-verifier-wrong-verifier"),
      await exchangeCode(sent.freshCode, "wrong-verifier-wrong-verifier-wrong-verifier"),
      await form("/api/oauth/token", {
        grant_type: "refresh_token",
        refresh_token: `${sent.refreshToken}\u0000`,
      }),
      await form("/api/oauth/revoke", { token: "not-a-token", client_id: sent.clientId }),
      await timed("/api/oauth/register", {
        method: "POST",
        body: '{"redirect_uris":',
        headers: { "content-type": "application/json" },
      }),
      await timed(`/oauth/authorize?client_id=${sent.clientId}&state=%00`, {
        headers: { cookie: user.cookie },
      }),
      await session(),
      await timed("/api/cron/sync", { headers: { authorization: `Bearer ${sent.apiKey}` } }),
      await timed("/api/webhooks/plaid", {
        method: "POST",
        body: JSON.stringify({ access_token: sent.providerToken }),
      }),
      await timed("/api/webhooks/stripe", {
        method: "POST",
        body: "{}",
        headers: { "stripe-signature": "t=1,v1=00" },
      }),
    ];
    for (const answer of answers) expect(answer.status, answer.body.slice(0, 200)).toBeLessThan(500);
  });

  it("frozen: every surface answers within its bounds, 503 with Retry-After, the person stays signed in", async () => {
    proxy.freeze();
    const outage = await Promise.all([
      mcp(sent.apiKey, call("list_accounts")),
      mcp(sent.accessToken, call("get_financial_overview")),
      refresh(),
      exchangeCode(sent.freshCode, "wrong-verifier-wrong-verifier-wrong-verifier"),
      form("/api/oauth/revoke", { token: sent.accessToken, client_id: sent.clientId }),
      cron(),
    ]);
    for (const answer of outage) {
      expect(answer.status, answer.body.slice(0, 200)).toBe(503);
      expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    // A page cannot set its own status in the App Router: the error page comes with a 500, and
    // the browser shows why.
    const page = await dashboard();
    expect(page.headers.get("location")).toBeNull();
    expect(page.status).toBe(500);
    const context = await browser.newContext();
    try {
      await context.addCookies([
        { name: "authjs.session-token", value: user.sessionToken, url: baseUrl, httpOnly: true },
      ]);
      const tab = await context.newPage();
      await tab.goto(`${baseUrl}/dashboard`);
      await tab.getByText("briefly unavailable").waitFor({ timeout: 10_000 });
      expect(new URL(tab.url()).pathname).toBe("/dashboard");
    } finally {
      await context.close();
    }
    expect((await session()).status).toBeLessThan(600);
    // Connect + acquire + statement bounds, our one-second client margin, and slack for a busy machine.
    expect(longestWaitMs).toBeLessThan(4 * BOUND_MS + 3_000);
    proxy.heal();
    let status = 0;
    for (let i = 0; i < 5 && status !== 200; i++)
      status = (await mcp(sent.apiKey, call("list_accounts"))).status;
    expect(status).toBe(200);
  });

  it("health: liveness answers while the database is frozen, readiness 503 with Retry-After until it heals", async () => {
    proxy.freeze();
    try {
      const live = await timed("/api/health");
      expect(live.status).toBe(200);
      expect(live.body).toBe('{"status":"ok"}');
      const ready = await timed("/api/health?ready=1");
      expect(ready.status).toBe(503);
      expect(ready.body).toBe('{"status":"unavailable"}');
      expect(Number(ready.headers.get("retry-after"))).toBeGreaterThan(0);
    } finally {
      proxy.heal();
    }
    let ready = await timed("/api/health?ready=1");
    for (let i = 0; i < 5 && ready.status !== 200; i++) ready = await timed("/api/health?ready=1");
    expect(ready.status).toBe(200);
    expect(ready.body).toBe('{"status":"ok"}');
  });

  it("dropped: no crash, the next request works; gone: 503 everywhere", async () => {
    proxy.drop();
    let status = 0;
    for (let i = 0; i < 3 && status !== 200; i++) status = (await dashboard()).status;
    expect(status).toBe(200);
    expect(server.exitCode).toBeNull();

    await proxy.close(); // every connection cut, new ones refused
    for (const answer of [await mcp(sent.apiKey, call("list_accounts")), await refresh(), await cron()]) {
      expect(answer.status).toBe(503);
    }
    const page = await dashboard();
    expect(page.status).toBe(500);
    expect(page.headers.get("location")).toBeNull();
    expect(page.body).not.toContain("Sign in to Ledgerlink");
    expect(server.exitCode).toBeNull();
  });

  it("the log holds no secret: none the test sent, none the database holds, none of the server's", async () => {
    const log = readFileSync(logPath, "utf8");
    expect(log.length).toBeGreaterThan(0);
    const stored = [
      ...(await direct.db.select({ v: sessions.sessionToken }).from(sessions)),
      ...(await direct.db.select({ v: apiKeys.keyHash }).from(apiKeys)),
      ...(await direct.db.select({ v: oauthTokens.tokenHash }).from(oauthTokens)),
      ...(await direct.db.select({ v: bankConnections.accessTokenCiphertext }).from(bankConnections)),
    ].map((r) => r.v);
    const secrets = [
      ...Object.values(serverSecrets),
      ...Object.entries(sent)
        .filter(([k]) => !["clientId", "redirectUri"].includes(k))
        .map(([, v]) => v),
      user.sessionToken,
      ...stored,
    ];
    expect(secrets.length).toBeGreaterThan(12);
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(15);
      expect(log.includes(secret), `a secret starting ${secret.slice(0, 6)}… is in the log`).toBe(false);
    }
    console.log(`[outage] longest wait seen: ${longestWaitMs} ms (bounds ${BOUND_MS} ms each)`);
  });

  it("every line written while serving is one JSON object, a request line per answer, none with the person's money, email or an IP", async () => {
    const text = readFileSync(logPath, "utf8");
    // Next's start-up banner (its version, the local and network addresses) is printed before the
    // server loads instrumentation.ts, which makes every later line JSON (lib/log.ts captureConsole):
    // from the first JSON line on, everything is the service's.
    const lines = text.split("\n");
    const first = lines.findIndex((line) => line.startsWith("{"));
    expect(first).toBeGreaterThanOrEqual(0);
    const served = lines.slice(first).filter((line) => line.trim() !== "");
    expect(served.length).toBeGreaterThan(20);
    const entries = served.map((line) => {
      let entry: unknown;
      expect(() => (entry = JSON.parse(line)), `not one JSON object: ${line.slice(0, 120)}`).not.toThrow();
      expect(entry, line.slice(0, 120)).toMatchObject({
        time: expect.any(String),
        level: expect.any(String),
      });
      return entry as Record<string, unknown>;
    });

    // One request line per answer, under the id the answer carried.
    const requestLines = new Map(
      entries.filter((e) => e.msg === "request").map((e) => [e.request_id as string, e] as const),
    );
    expect(requestIds.length).toBeGreaterThan(20);
    for (const id of requestIds) {
      expect(id, "an answer without x-request-id").toMatch(/^[0-9a-f-]{36}$/);
      expect(requestLines.get(id), `no request line for ${id}`).toMatchObject({
        route: expect.any(String),
        status: expect.any(Number),
        duration_ms: expect.any(Number),
        statements: expect.any(Number),
      });
    }
    const mcpLines = [...requestLines.values()].filter((e) => e.route === "/api/mcp" && e.status === 200);
    expect(mcpLines.length).toBeGreaterThan(0);
    for (const line of mcpLines)
      expect(line).toMatchObject({ mcp_method: "tools/call", credential: expect.any(String) });

    // The person's money, as any answer would carry it: every amount and balance with cents.
    const minors = [
      ...(await direct.db
        .select({ v: transactions.amountMinor })
        .from(transactions)
        .where(eq(transactions.userId, user.userId))),
      ...(await direct.db
        .select({ v: bankAccounts.currentBalanceMinor })
        .from(bankAccounts)
        .where(eq(bankAccounts.userId, user.userId))),
    ]
      .map((r) => Math.abs(Number(r.v)))
      .filter((v) => Number.isFinite(v) && v % 100 !== 0);
    const amounts = [...new Set(minors)].map((minor) => {
      const cents = String(minor % 100)
        .padStart(2, "0")
        .replace(/0$/, "");
      return `${Math.floor(minor / 100)}.${cents}`;
    });
    expect(amounts.length).toBeGreaterThan(20);
    const texts = [
      ...(await direct.db
        .select({ merchant: transactions.merchantName, description: transactions.name })
        .from(transactions)
        .where(eq(transactions.userId, user.userId))),
    ]
      .flatMap((r) => [r.merchant, r.description])
      .filter((v): v is string => typeof v === "string" && v.length >= 6);
    expect(texts.length).toBeGreaterThan(10);
    const body = served.join("\n");
    for (const amount of amounts) {
      const pattern = new RegExp(`(?<![\\d.])${amount.replace(".", "\\.")}(?!\\d)`);
      expect(pattern.test(body), `the amount ${amount} is in the log`).toBe(false);
    }
    for (const value of new Set(texts)) expect(body.includes(value), `"${value}" is in the log`).toBe(false);
    expect(body).not.toContain(user.email);
    expect(body, "an IPv4 address is in the log").not.toMatch(/\b\d{1,3}(\.\d{1,3}){3}\b/);
    expect(body, "a loopback IPv6 address is in the log").not.toContain("::1");
  });
});
