/**
 * The dashboard during a database outage, on the production build against PostgreSQL behind a
 * fault proxy (tests/support/fault-proxy.ts): a signed-in person gets an error page and stays
 * signed in, never a redirect to /sign-in, and the server log never holds their session token
 * (Auth.js logs failed adapter queries with their parameters unless its logger is ours).
 * Runs when TEST_DATABASE_URL names a PostgreSQL server (CI sets it).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { openDatabase } from "@/db";
import { sessions, users } from "@/db/schema";
import { type FaultProxy, startFaultProxy } from "../support/fault-proxy";
import { baseEnv, freePort, NEXT_BIN, waitForServer } from "./global-setup";

const adminUrl = process.env.TEST_DATABASE_URL;
const skip = Boolean(inject("e2eSkipReason")) || !adminUrl;

describe.skipIf(skip)("the dashboard while the database is down", () => {
  const database = `ledgerlink_outage_${randomBytes(4).toString("hex")}`;
  const sessionToken = randomUUID();
  let proxy: FaultProxy;
  let server: ChildProcess;
  let baseUrl: string;
  let logPath: string;

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
    const handle = await openDatabase({ url: url.toString(), driver: "pg", migrate: true });
    const [user] = await handle.db
      .insert(users)
      .values({ email: `outage-${randomUUID()}@example.com` })
      .returning({ id: users.id });
    await handle.db
      .insert(sessions)
      .values({ sessionToken, userId: user?.id ?? "", expires: new Date(Date.now() + 86_400_000) });
    await handle.close();

    proxy = await startFaultProxy(url.toString());
    const port = await freePort();
    baseUrl = `http://localhost:${port}`;
    logPath = path.join(inject("e2eAppDir"), ".data", `e2e-outage-${randomBytes(4).toString("hex")}.log`);
    const { createWriteStream } = await import("node:fs");
    const log = createWriteStream(logPath);
    server = spawn(process.execPath, [NEXT_BIN, "start", "-p", String(port)], {
      cwd: inject("e2eAppDir"),
      env: {
        ...baseEnv(),
        NODE_ENV: "production",
        NEXT_DIST_DIR: inject("e2eDistDir"),
        DATABASE_URL: proxy.url,
        APP_URL: baseUrl,
        AUTH_URL: `${baseUrl}/api/auth`,
        BILLING: "local",
        EMAIL_TRANSPORT: "log",
        AUTH_SECRET: randomBytes(32).toString("base64"),
        ENCRYPTION_KEY: randomBytes(32).toString("hex"),
        DB_CONNECT_TIMEOUT_MS: "1000",
        DB_ACQUIRE_TIMEOUT_MS: "1000",
        DB_STATEMENT_TIMEOUT_MS: "1000",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    server.stdout?.pipe(log);
    server.stderr?.pipe(log);
    await waitForServer(`${baseUrl}/sign-in`, server, logPath);
  }, 120_000);

  afterAll(async () => {
    server?.kill("SIGKILL");
    await proxy?.close();
    await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  });

  const dashboard = () =>
    fetch(`${baseUrl}/dashboard`, {
      redirect: "manual",
      headers: { cookie: `authjs.session-token=${sessionToken}` },
    });

  it("signed in while the database answers", async () => {
    const answer = await dashboard();
    expect(answer.status).toBe(200);
  });

  it("during the outage: an error page saying so, no redirect to sign-in, no session token in the log", async () => {
    await proxy.close(); // every connection cut, new ones refused
    const answer = await dashboard();
    expect(answer.headers.get("location")).toBeNull();
    expect(answer.status).toBeGreaterThanOrEqual(500);
    expect(await answer.text()).not.toContain("Sign in to Ledgerlink");
    expect(readFileSync(logPath, "utf8")).not.toContain(sessionToken);
  });
});
