/**
 * The bounds of issue 34, with the DEFAULT settings of lib/env.ts (db-faults.test.ts tightens
 * them to one second; this file keeps what a deployment gets), caused for real on PostgreSQL:
 * - the database frozen (a proxy that stops forwarding): every surface served here (MCP, OAuth
 *   token, register and revoke, the Stripe and Plaid webhooks, cron) answers 503 with Retry-After
 *   within 5 s;
 * - one table locked (as an `alter table` holds it) while 12 calls of three people read it: the
 *   others' initialize, tools/list and get_connection_status are answered within 1 s, and the 12
 *   give up at the lock bound instead of holding the pool.
 * The dashboard's error page in an outage is checked on the production build (tests/e2e/outage.test.ts).
 */
import { generateKeyPairSync, randomUUID } from "node:crypto";
import pg from "pg";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Handle, openDatabase, setDbForTesting } from "@/db";
import { resetEnvCache } from "@/lib/env";
import { signPlaidWebhook } from "../fixtures/plaid-fake";
import { testDatabaseKind, useTestDatabase } from "../helpers/db";
import { usePlaidFake } from "../helpers/fixtures";
import { createUserInState, initializeRequest, rpc, type StateUser } from "../helpers/mcp-client";
import { type FaultProxy, startFaultProxy } from "../support/fault-proxy";

const getDb = useTestDatabase();
const onPostgres = testDatabaseKind() === "postgres";
const STRIPE_WEBHOOK_SECRET = `whsec_${randomUUID().replaceAll("-", "")}`;
const CRON_SECRET = randomUUID();
const KID = `kid-${randomUUID()}`;
const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });

const plaid = usePlaidFake({
  routes: {
    "/api/mcp": () => import("@/app/api/mcp/route"),
    "/api/oauth/token": () => import("@/app/api/oauth/token/route"),
    "/api/oauth/register": () => import("@/app/api/oauth/register/route"),
    "/api/oauth/revoke": () => import("@/app/api/oauth/revoke/route"),
    "/api/webhooks/stripe": () => import("@/app/api/webhooks/stripe/route"),
    "/api/webhooks/plaid": () => import("@/app/api/webhooks/plaid/route"),
    "/api/cron/sync": () => import("@/app/api/cron/sync/route"),
  },
  // Stripe is never reached: the event's first statement is the database's.
  env: {
    STRIPE_WEBHOOK_SECRET,
    CRON_SECRET,
    STRIPE_SECRET_KEY: "sk_test_bounds",
    STRIPE_API_BASE: "http://127.0.0.1:1",
  },
});

/** Every bound in lib/env.ts at its default: none of these may be set for this file. */
const BOUND_SETTINGS = [
  "DB_CONNECT_TIMEOUT_MS",
  "DB_ACQUIRE_TIMEOUT_MS",
  "DB_STATEMENT_TIMEOUT_MS",
  "DB_LOCK_TIMEOUT_MS",
  "PG_POOL_MAX",
];

describe.skipIf(!onPostgres)("bounds with the default settings", () => {
  let proxy: FaultProxy;
  let handle: Handle;
  const people: StateUser[] = [];
  const saved = new Map<string, string | undefined>();

  beforeAll(async () => {
    for (const name of BOUND_SETTINGS) {
      saved.set(name, process.env[name]);
      delete process.env[name];
    }
    resetEnvCache();
    plaid.fake.addWebhookKey({ ...publicKey.export({ format: "jwk" }), kid: KID });
    for (let i = 0; i < 4; i++) people.push(await createUserInState(getDb(), "active"));
    proxy = await startFaultProxy(process.env.TEST_DATABASE_URL ?? "");
    handle = await openDatabase({ url: proxy.url, driver: "pg" });
    setDbForTesting(handle);
  });

  afterAll(async () => {
    setDbForTesting(undefined);
    proxy?.heal();
    await handle?.close().catch(() => {});
    await proxy?.close();
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    resetEnvCache();
  });

  const url = (path: string) => plaid.server.url(path);
  const timed = async (what: string, send: () => Promise<Response>) => {
    const started = Date.now();
    const response = await send();
    await response.text();
    return {
      what,
      status: response.status,
      retryAfter: response.headers.get("retry-after"),
      ms: Date.now() - started,
    };
  };
  const form = (path: string, fields: Record<string, string>) => () =>
    fetch(url(path), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });
  const mcp = (person: StateUser, body: unknown) => () =>
    fetch(url("/api/mcp"), {
      method: "POST",
      headers: {
        authorization: `Bearer ${person.apiKey}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-06-18",
      },
      body: JSON.stringify(body),
    });
  const call = (name: string) => ({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name, arguments: {} },
  });

  it("frozen: every surface answers 503 with Retry-After within 5 s", async () => {
    const first = people[0] as StateUser;
    expect(
      (await rpc(url("/api/mcp"), initializeRequest("2025-06-18"), { apiKey: first.apiKey })).status,
    ).toBe(200);
    const stripeBody = JSON.stringify({
      id: `evt_${randomUUID().replaceAll("-", "")}`,
      object: "event",
      type: "customer.subscription.updated",
      data: { object: { id: "sub_x", object: "subscription", customer: "cus_x", status: "active" } },
    });
    const stripeSignature = new Stripe("sk_test_x").webhooks.generateTestHeaderString({
      payload: stripeBody,
      secret: STRIPE_WEBHOOK_SECRET,
    });
    const plaidBody = JSON.stringify({
      webhook_type: "TRANSACTIONS",
      webhook_code: "SYNC_UPDATES_AVAILABLE",
      item_id: `item-${randomUUID()}`,
      environment: "sandbox",
    });
    const plaidJwt = signPlaidWebhook(plaidBody, { privateKey, kid: KID });
    // The key is fetched from Plaid (not the database) and cached before the freeze.
    await fetch(url("/api/webhooks/plaid"), {
      method: "POST",
      headers: { "content-type": "application/json", "plaid-verification": plaidJwt },
      body: plaidBody,
    }).then((r) => r.text());

    proxy.freeze();
    try {
      const answers = await Promise.all([
        timed("MCP tools/call", mcp(first, call("list_accounts"))),
        timed("MCP initialize", mcp(people[1] as StateUser, initializeRequest("2025-06-18"))),
        timed(
          "OAuth token",
          form("/api/oauth/token", { grant_type: "refresh_token", refresh_token: "llrt_x" }),
        ),
        timed("OAuth revoke", form("/api/oauth/revoke", { token: "llat_x", client_id: "client_x" })),
        timed("OAuth register", () =>
          fetch(url("/api/oauth/register"), {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ client_name: "x", redirect_uris: ["https://app.example/cb"] }),
          }),
        ),
        timed("Stripe webhook", () =>
          fetch(url("/api/webhooks/stripe"), {
            method: "POST",
            headers: { "content-type": "application/json", "stripe-signature": stripeSignature },
            body: stripeBody,
          }),
        ),
        timed("Plaid webhook", () =>
          fetch(url("/api/webhooks/plaid"), {
            method: "POST",
            headers: { "content-type": "application/json", "plaid-verification": plaidJwt },
            body: plaidBody,
          }),
        ),
        timed("cron", () =>
          fetch(url("/api/cron/sync"), { headers: { authorization: `Bearer ${CRON_SECRET}` } }),
        ),
      ]);
      console.log(
        `[bounds] frozen, default settings: ${answers.map((a) => `${a.what} ${a.status} in ${a.ms} ms`).join("; ")}`,
      );
      for (const answer of answers) {
        expect(answer.status, answer.what).toBe(503);
        expect(Number(answer.retryAfter), answer.what).toBeGreaterThan(0);
        expect(answer.ms, answer.what).toBeLessThan(5_000);
      }
    } finally {
      proxy.heal();
    }
    let status = 0;
    for (let i = 0; i < 5 && status !== 200; i++)
      status = (await rpc(url("/api/mcp"), initializeRequest("2025-06-18"), { apiKey: first.apiKey })).status;
    expect(status).toBe(200);
  }, 60_000);

  it("one table locked under 12 calls of three people: the others are answered within 1 s", async () => {
    const [a, b, c, other] = people as [StateUser, StateUser, StateUser, StateUser];
    for (const person of people)
      expect((await timed("warm", mcp(person, call("get_connection_status")))).status).toBe(200);
    const locker = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await locker.connect();
    try {
      // What a migration's `alter table transactions …` holds while it runs.
      await locker.query("begin");
      await locker.query("lock table transactions in access exclusive mode");
      const stuck = Promise.all(
        [a, b, c].flatMap((person) =>
          Array.from({ length: 4 }, () =>
            timed("search_transactions", mcp(person, call("search_transactions"))),
          ),
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 150));
      const others = await Promise.all([
        timed("initialize", mcp(other, initializeRequest("2025-06-18"))),
        timed("tools/list", mcp(other, { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} })),
        timed("get_connection_status", mcp(other, call("get_connection_status"))),
      ]);
      const held = await stuck;
      console.log(
        `[bounds] locked table: others ${others.map((o) => `${o.what} ${o.status} in ${o.ms} ms`).join("; ")}; the 12: ${held.map((h) => `${h.status} in ${h.ms} ms`).join(", ")}`,
      );
      for (const answer of others) {
        expect(answer.status, answer.what).toBe(200);
        expect(answer.ms, answer.what).toBeLessThan(1_000);
      }
      // The 12 are answered too (a tool that met the lock answers its error), none with a 5xx.
      for (const answer of held) expect(answer.status).toBeLessThan(500);
    } finally {
      await locker.query("rollback").catch(() => {});
      await locker.end();
    }
    expect((await timed("after", mcp(a, call("search_transactions")))).status).toBe(200);
  }, 60_000);
});
