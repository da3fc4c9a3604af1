/**
 * Two production servers (`next start` of the one `.next-e2e` build, helpers.ts `startServer`)
 * on ONE PostgreSQL database, as Vercel runs many instances of the function at once. They share
 * the database, APP_URL (the deployment's one public address) and every secret; each request
 * below goes to one of them by name. Checked, counting rather than timing:
 *
 * 1. a burst with one API key, split across both, gets exactly its limit of 200s, the rest 429;
 * 2. one authorization code redeemed on both at once yields tokens exactly once;
 * 3. parallel refreshes of one refresh token on both, inside the grace, all work;
 * 4. activity rows of calls on both all land;
 * 5. two cron runs at once (one on each) fetch each due connection from Plaid exactly once, and
 *    their reports add up to the number due;
 * 6. a server killed (SIGKILL) in the middle of a sync: once its lease has run out, the other
 *    server's next cron run completes it, and nothing is written twice.
 *
 * Plaid is the wire-format fake (tests/fixtures/plaid-fake.ts) in this process, with a latency on
 * `/transactions/sync` so that syncs overlap. The database is a fresh one on the server named by
 * TEST_DATABASE_URL (its name plus `_many_<random>`), dropped at the end.
 */
import { randomBytes } from "node:crypto";
import { and, count, eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Handle, openDatabase, setDbForTesting } from "@/db";
import { apiKeys, bankAccounts, bankConnections, rateLimits, toolCalls, transactions } from "@/db/schema";
import { createApiKey } from "@/lib/api-keys";
import { accessTokenAad } from "@/lib/banking/sync";
import { encryptSecret } from "@/lib/crypto";
import { resetEnvCache } from "@/lib/env";
import { plaidItemData } from "../fixtures/plaid-data";
import {
  FAKE_CLIENT_ID,
  FAKE_SECRET,
  type FakeItem,
  type PlaidFake,
  startPlaidFake,
} from "../fixtures/plaid-fake";
import { createScratchDatabase } from "../helpers/db";
import { rpc } from "../helpers/mcp-client";
import {
  createSignedInUser,
  mcpResource,
  obtainCode,
  obtainTokens,
  pkcePair,
  registerClient,
  type TestUser,
} from "../helpers/oauth";
import { freePort } from "./global-setup";
import { e2eServer, type StartedServer, startServer } from "./helpers";

const adminUrl = process.env.TEST_DATABASE_URL;
const skipReason = e2eServer().skipReason
  ? e2eServer().skipReason
  : adminUrl
    ? ""
    : "TEST_DATABASE_URL is not set: two servers need one PostgreSQL database to share.";
if (skipReason) console.warn(`[many] many-instance tests skipped: ${skipReason}`);

/** The per-credential limit both servers are given (RATE_LIMIT_PER_MINUTE). */
const LIMIT = 30;
/** SYNC_LEASE_SECONDS on both servers: short, so a killed sync's lease runs out within the test. */
const LEASE_SECONDS = 4;
/** Plaid's latency on `/transactions/sync` (ms): a sync takes long enough for the runs to overlap. */
const SYNC_LATENCY_MS = 400;
/** Connections due at the two parallel cron runs (the issue saw 9). */
const DUE = 9;
/** SYNC_BATCH_SIZE on both servers: below DUE, so that the two runs must split the work. */
const BATCH = 5;

/** Polls `probe` until it returns a value `done` accepts, at most `timeoutMs`. */
async function until<T>(
  what: string,
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) {
      throw new Error(`${what}: not reached within ${timeoutMs} ms (last: ${JSON.stringify(value)})`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Runs `jobs` with at most `width` at a time; results in order. */
async function inParallel<T>(jobs: Array<() => Promise<T>>, width: number): Promise<T[]> {
  const results: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const at = next++;
      results[at] = await jobs[at]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, jobs.length) }, worker));
  return results;
}

const tally = (statuses: number[]) =>
  statuses.reduce<Record<number, number>>((acc, s) => {
    acc[s] = (acc[s] ?? 0) + 1;
    return acc;
  }, {});

/** The cron's answer (lib/banking/sync-due.ts DueSyncReport): `due` = synced + failed + skipped. */
interface CronReport {
  due: number;
  synced: number;
  failed: number;
  skipped: number;
  results: Array<{
    connectionId: string;
    outcome: "synced" | "failed" | "skipped";
    status: string;
    error?: string;
  }>;
}

describe.skipIf(Boolean(skipReason))(
  `two production servers on one PostgreSQL${skipReason ? `: skipped, ${skipReason}` : ""}`,
  () => {
    const secrets = {
      AUTH_SECRET: randomBytes(32).toString("base64"),
      ENCRYPTION_KEY: randomBytes(32).toString("hex"),
      CRON_SECRET: randomBytes(24).toString("hex"),
    };
    const savedEnv = { ...process.env };
    let scratch: { url: string; drop: () => Promise<void> };
    let direct: Handle;
    let fake: PlaidFake;
    let a: StartedServer;
    let b: StartedServer;
    let user: TestUser;
    /** Set by scenario 3, used by scenario 4. */
    let oauthAccess: { token: string; clientId: string } | undefined;

    beforeAll(async () => {
      const base = new URL(adminUrl ?? "").pathname.slice(1) || "ledgerlink";
      scratch = await createScratchDatabase(`${base}_many`);
      // The deployment's one public address: both instances sit behind it.
      const appUrl = `http://localhost:${await freePort()}`;
      const shared = {
        ...secrets,
        APP_URL: appUrl,
        BILLING: "local",
        OAUTH_REGISTER_PER_MINUTE: "100000",
        OAUTH_TOKEN_PER_MINUTE: "100000",
      };
      // This process writes the rows (users, keys, codes, connections) with the servers' settings.
      Object.assign(process.env, shared);
      resetEnvCache();
      direct = await openDatabase({ url: scratch.url, driver: "pg", migrate: true });
      setDbForTesting(direct);
      user = await createSignedInUser(direct.db);

      fake = await startPlaidFake({ latencyMs: { "/transactions/sync": SYNC_LATENCY_MS } });
      const env = {
        ...shared,
        DATABASE_URL: scratch.url,
        AUTH_URL: `${appUrl}/api/auth`,
        RATE_LIMIT_PER_MINUTE: String(LIMIT),
        SYNC_LEASE_SECONDS: String(LEASE_SECONDS),
        SYNC_BATCH_SIZE: String(BATCH),
        PLAID_CLIENT_ID: FAKE_CLIENT_ID,
        PLAID_SECRET: FAKE_SECRET,
        PLAID_ENV: "sandbox",
        PLAID_API_BASE: fake.url,
      };
      [a, b] = await Promise.all([
        startServer({ name: "many-a", env }),
        startServer({ name: "many-b", env }),
      ]);
    }, 180_000);

    afterAll(async () => {
      await Promise.all([a?.stop(), b?.stop()]);
      await fake?.close();
      setDbForTesting(undefined);
      await direct?.close();
      await scratch?.drop();
      process.env = savedEnv;
      resetEnvCache();
    });

    const servers = () => [a, b] as const;
    const callTool = (server: StartedServer, bearer: string, id: number) =>
      rpc(
        `${server.baseUrl}/api/mcp`,
        {
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "get_connection_status", arguments: {} },
        },
        { apiKey: bearer, headers: { "mcp-protocol-version": "2025-06-18" } },
      );
    const postForm = async (server: StartedServer, fields: Record<string, string>) => {
      const response = await fetch(`${server.baseUrl}/api/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(fields).toString(),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const cron = async (server: StartedServer): Promise<CronReport> => {
      const response = await fetch(`${server.baseUrl}/api/cron/sync`, {
        headers: { authorization: `Bearer ${secrets.CRON_SECRET}` },
      });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`cron on ${server.baseUrl}: ${response.status} ${text}`);
      return JSON.parse(text) as CronReport;
    };

    /** A never-synced Plaid connection of `user` (so it is due), for a new Item at the fake. */
    const addDueConnection = async (): Promise<{ id: string; item: FakeItem }> => {
      const item = fake.createItem(plaidItemData());
      const secret = encryptSecret(item.accessToken, accessTokenAad("plaid", item.itemId));
      const [row] = await direct.db
        .insert(bankConnections)
        .values({
          userId: user.userId,
          provider: "plaid",
          providerItemId: item.itemId,
          institutionId: item.data.institution_id,
          institutionName: item.data.institution_name,
          status: "healthy",
          accessTokenCiphertext: secret.ciphertext,
          accessTokenKeyVersion: secret.keyVersion,
        })
        .returning({ id: bankConnections.id });
      return { id: row!.id, item };
    };
    /** `/transactions/sync` requests the fake received for each item, by access token. */
    const fetchesOf = (items: FakeItem[]) =>
      items.map(
        (item) =>
          fake.requests.filter(
            (r) => r.path === "/transactions/sync" && r.body.access_token === item.accessToken,
          ).length,
      );
    const transactionRows = async (connectionIds: string[]) => {
      const [row] = await direct.db
        .select({
          rows: count(),
          distinct: sql<number>`count(distinct (${transactions.accountId}, ${transactions.providerTransactionId}))::int`,
        })
        .from(transactions)
        .innerJoin(bankAccounts, eq(bankAccounts.id, transactions.accountId))
        .where(inArray(bankAccounts.connectionId, connectionIds));
      return { rows: Number(row?.rows ?? 0), distinct: Number(row?.distinct ?? 0) };
    };

    it(`1. a burst of ${2 * LIMIT} calls with one API key, split across both, gets exactly ${LIMIT} answers and ${LIMIT} × 429`, async () => {
      const { key, id: keyId } = await createApiKey(direct.db, user.userId, "burst");
      // The limit counts per wall-clock minute: a burst that straddled two minutes would rightly
      // get more. Start early in a minute (a wait of at most 15 s).
      const second = new Date().getSeconds();
      if (second >= 45) await new Promise((r) => setTimeout(r, (61 - second) * 1000));
      const jobs = Array.from({ length: 2 * LIMIT }, (_, i) => () => callTool(servers()[i % 2]!, key, i));
      // Three in flight per server, below a credential's share of the pool (no 503 Busy).
      const answers = await inParallel(jobs, 6);
      const byServer = [0, 1].map((s) => tally(answers.filter((_, i) => i % 2 === s).map((x) => x.status)));
      console.log(
        `[many] burst of ${2 * LIMIT} with limit ${LIMIT}: ${JSON.stringify(tally(answers.map((x) => x.status)))}; per server ${JSON.stringify(byServer)}`,
      );
      expect(tally(answers.map((x) => x.status))).toEqual({ 200: LIMIT, 429: LIMIT });
      // Both servers answered some of each: the limit is one count, not one per instance.
      for (const t of byServer) expect(t[200]).toBeGreaterThan(0);
      for (const answer of answers.filter((x) => x.status === 429)) {
        expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0);
      }
      // One counter in the database saw every request.
      const [counted] = await direct.db
        .select({ total: sql<number>`coalesce(sum(${rateLimits.count}), 0)::int` })
        .from(rateLimits)
        .where(eq(rateLimits.key, `api_key:${keyId}`));
      expect(counted?.total).toBe(2 * LIMIT);
      // Every call answered is in the activity log (the refused ones are not).
      const rows = await until(
        "activity rows of the burst",
        async () =>
          (await direct.db.select({ n: count() }).from(toolCalls).where(eq(toolCalls.apiKeyId, keyId)))[0]?.n,
        (n) => n === LIMIT,
        10_000,
      );
      expect(rows).toBe(LIMIT);
    });

    it("2. one authorization code redeemed on both servers at once yields tokens exactly once", async () => {
      const client = await registerClient();
      const rounds = 5;
      const outcomes: string[] = [];
      for (let round = 0; round < rounds; round++) {
        const { verifier, challenge } = pkcePair();
        const code = await obtainCode(user, client, challenge);
        const fields = {
          grant_type: "authorization_code",
          code,
          code_verifier: verifier,
          redirect_uri: client.redirectUri,
          client_id: client.clientId,
          resource: mcpResource(),
        };
        const answers = await Promise.all(servers().map((server) => postForm(server, fields)));
        outcomes.push(answers.map((x) => x.status).join("/"));
        expect(answers.map((x) => x.status).sort()).toEqual([200, 400]);
        const loser = answers.find((x) => x.status === 400);
        expect(loser?.body.error).toBe("invalid_grant");
        // The second redemption is a replay: the tokens the first one got are revoked, on both.
        const winner = answers.find((x) => x.status === 200);
        for (const server of servers()) {
          expect((await callTool(server, String(winner?.body.access_token), 1)).status).toBe(401);
        }
      }
      console.log(`[many] one code on A/B at once, ${rounds} rounds: ${outcomes.join(", ")}`);
    });

    it("3. parallel refreshes of one refresh token, two on each server, inside the grace all work", async () => {
      const { tokens, client } = await obtainTokens(direct.db, user);
      const fields = {
        grant_type: "refresh_token",
        refresh_token: String(tokens.refresh_token),
        client_id: client.clientId,
      };
      const answers = await Promise.all([a, b, a, b].map((server) => postForm(server, fields)));
      console.log(
        `[many] 4 parallel refreshes of one token (A,B,A,B): ${answers.map((x) => x.status).join(", ")}`,
      );
      expect(answers.map((x) => x.status)).toEqual([200, 200, 200, 200]);
      const accessTokens = answers.map((x) => String(x.body.access_token));
      expect(new Set(accessTokens).size).toBe(4);
      // Each new access token works on the other server than the one that issued it.
      for (const [i, access] of accessTokens.entries()) {
        expect((await callTool(servers()[(i + 1) % 2]!, access, i)).status).toBe(200);
      }
      oauthAccess = { token: accessTokens[0]!, clientId: client.clientId };
    });

    it("4. activity rows of calls on both servers all land", async () => {
      const { key, id: keyId } = await createApiKey(direct.db, user.userId, "activity");
      const perServer = 12;
      const jobs = Array.from({ length: 2 * perServer }, (_, i) => () => callTool(servers()[i % 2]!, key, i));
      const oauthCalls = 4;
      if (oauthAccess) {
        for (let i = 0; i < 2 * oauthCalls; i++) {
          const access = oauthAccess.token;
          jobs.push(() => callTool(servers()[i % 2]!, access, i));
        }
      }
      const answers = await inParallel(jobs, 6);
      expect(answers.every((x) => x.status === 200)).toBe(true);
      const byKey = await until(
        "activity rows of the API key",
        async () =>
          (await direct.db.select({ n: count() }).from(toolCalls).where(eq(toolCalls.apiKeyId, keyId)))[0]?.n,
        (n) => n === 2 * perServer,
        10_000,
      );
      const byClient = await until(
        "activity rows of the OAuth client",
        async () =>
          (
            await direct.db
              .select({ n: count() })
              .from(toolCalls)
              .where(
                and(
                  eq(toolCalls.oauthClientId, oauthAccess?.clientId ?? ""),
                  eq(toolCalls.credentialKind, "oauth"),
                ),
              )
          )[0]?.n,
        // Scenario 3 made one call with each of its four tokens.
        (n) => n === 2 * oauthCalls + 4,
        10_000,
      );
      console.log(
        `[many] activity: ${byKey} rows for ${2 * perServer} key calls, ${byClient} for ${2 * oauthCalls + 4} OAuth calls`,
      );
      expect(byKey).toBe(2 * perServer);
      expect(byClient).toBe(2 * oauthCalls + 4);
      // The key's last use was recorded too.
      const [keyRow] = await direct.db.select().from(apiKeys).where(eq(apiKeys.id, keyId));
      expect(keyRow?.lastUsedAt).not.toBeNull();
    });

    it(`5. two cron runs at once, one on each server, fetch each of ${DUE} due connections exactly once`, async () => {
      const due = await Promise.all(Array.from({ length: DUE }, addDueConnection));
      const ids = due.map((d) => d.id);
      const reports = await Promise.all([cron(a), cron(b)]);
      const fetches = fetchesOf(due.map((d) => d.item));
      const synced = reports.flatMap((r) =>
        r.results.filter((x) => x.outcome === "synced").map((x) => x.connectionId),
      );
      const brief = (r: CronReport) =>
        JSON.stringify({
          due: r.due,
          synced: r.synced,
          failed: r.failed,
          skipped: r.skipped,
          errors: r.results.flatMap((x) => (x.error ? [x.error] : [])),
        });
      console.log(
        `[many] two crons at once over ${DUE} due: report A ${brief(reports[0])}, B ${brief(reports[1])}; /transactions/sync per connection ${fetches.join(",")}`,
      );
      // Each connection was fetched from Plaid once (a second fetch spends the Plaid quota).
      expect(fetches).toEqual(ids.map(() => 1));
      // The reports add up: the runs split the due connections, and each synced once, in one of them.
      expect(reports[0].due + reports[1].due).toBe(DUE);
      // Each run took one batch at most: both servers synced at once.
      expect([reports[0].due, reports[1].due].sort()).toEqual([DUE - BATCH, BATCH]);
      expect(reports[0].synced + reports[1].synced).toBe(DUE);
      expect(reports[0].failed + reports[1].failed + reports[0].skipped + reports[1].skipped).toBe(0);
      expect(synced.sort()).toEqual([...ids].sort());
      // And the data is there once.
      const expected = due.reduce((n, d) => n + d.item.data.transactions.length, 0);
      expect(await transactionRows(ids)).toEqual({ rows: expected, distinct: expected });
      const rows = await direct.db
        .select({ status: bankConnections.status, lastSyncedAt: bankConnections.lastSyncedAt })
        .from(bankConnections)
        .where(inArray(bankConnections.id, ids));
      expect(rows.every((r) => r.status === "healthy" && r.lastSyncedAt !== null)).toBe(true);
    });

    it("6. a server killed during a sync: after the lease runs out the other server's cron completes it, nothing twice", async () => {
      const due = await Promise.all(Array.from({ length: 3 }, addDueConnection));
      const ids = due.map((d) => d.id);
      const items = due.map((d) => d.item);
      // Plaid hangs: A's cron is inside the three syncs (leases taken) when it is killed.
      fake.stall("/transactions/sync");
      const running = cron(a).catch((error: unknown) => error);
      await until(
        "A's three syncs at Plaid",
        async () => fetchesOf(items),
        (f) => f.every((n) => n === 1),
        30_000,
      );
      await a.kill("SIGKILL");
      expect(await running).toBeInstanceOf(Error);
      fake.unstall();
      const leases = await direct.db
        .select({ lease: bankConnections.syncLeaseUntil, synced: bankConnections.lastSyncedAt })
        .from(bankConnections)
        .where(inArray(bankConnections.id, ids));
      // The killed syncs left their leases behind and wrote nothing.
      expect(leases.every((r) => r.lease !== null && r.synced === null)).toBe(true);
      expect(await transactionRows(ids)).toEqual({ rows: 0, distinct: 0 });

      // The leases run out (SYNC_LEASE_SECONDS) without anyone releasing them.
      const started = Date.now();
      await until(
        `the killed syncs' leases to run out (SYNC_LEASE_SECONDS=${LEASE_SECONDS})`,
        async () =>
          (
            await direct.db
              .select({ n: count() })
              .from(bankConnections)
              .where(and(inArray(bankConnections.id, ids), sql`${bankConnections.syncLeaseUntil} > now()`))
          )[0]?.n,
        (n) => n === 0,
        LEASE_SECONDS * 1000 + 10_000,
      );
      const report = await cron(b);
      const fetches = fetchesOf(items);
      const expected = items.reduce((n, item) => n + item.data.transactions.length, 0);
      const rows = await transactionRows(ids);
      console.log(
        `[many] SIGKILL during 3 syncs on A; leases ran out after ${Date.now() - started} ms; B's cron ${JSON.stringify({ due: report.due, synced: report.synced, failed: report.failed, skipped: report.skipped })}; /transactions/sync per connection ${fetches.join(",")}; transaction rows ${rows.rows} of ${expected}`,
      );
      // Only the three were due: B's run claimed and synced exactly them.
      expect({
        due: report.due,
        synced: report.synced,
        failed: report.failed,
        skipped: report.skipped,
      }).toEqual({
        due: 3,
        synced: 3,
        failed: 0,
        skipped: 0,
      });
      expect(report.results.map((r) => r.connectionId).sort()).toEqual([...ids].sort());
      // One killed fetch and one completed fetch per connection; the data once.
      expect(fetches).toEqual([2, 2, 2]);
      expect(rows).toEqual({ rows: expected, distinct: expected });
      const after = await direct.db
        .select({
          status: bankConnections.status,
          lease: bankConnections.syncLeaseUntil,
          synced: bankConnections.lastSyncedAt,
        })
        .from(bankConnections)
        .where(inArray(bankConnections.id, ids));
      expect(after.every((r) => r.status === "healthy" && r.lease === null && r.synced !== null)).toBe(true);
    });
  },
);
