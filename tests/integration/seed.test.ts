/**
 * The demo seed: one account per demo state (each access state, plus a subscribed multi-currency
 * user), whose printed keys verify to the right user; re-running duplicates nothing and leaves
 * exactly one live key per demo user.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { and, count, eq, inArray, isNull } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { openDatabase } from "@/db";
import { apiKeys, bankAccounts, bankConnections, subscriptions, transactions, users } from "@/db/schema";
import { DEMO_STATES, seedDemo } from "@/db/seed";
import { computeAccess } from "@/lib/access";
import { verifyBearerToken } from "@/lib/mcp/auth";
import { testDatabaseKind, useTestDatabase } from "../helpers/db";

const getDb = useTestDatabase();
const NOW = new Date("2026-06-30T12:00:00Z");

describe("seedDemo", () => {
  it("creates one account per state, each key verifying to its user, and re-runs without duplicates", async () => {
    const db = getDb();
    const first = await seedDemo(db, { now: NOW });
    expect(first.map((a) => a.state)).toEqual([...DEMO_STATES]);
    expect(new Set(first.map((a) => a.email)).size).toBe(DEMO_STATES.length);

    const emails = first.map((a) => a.email);
    const userRows = await db.select().from(users).where(inArray(users.email, emails));
    const userIdOf = new Map(userRows.map((u) => [u.email, u.id]));
    for (const account of first) {
      const verified = await verifyBearerToken(db, account.apiKey);
      expect(verified?.userId).toBe(userIdOf.get(account.email));
    }

    // Each account's access state is the one it is named after (multi_currency is an active one).
    for (const account of first) {
      const userId = userIdOf.get(account.email)!;
      const [sub] = await db.select().from(subscriptions).where(eq(subscriptions.userId, userId));
      const connections = await db.select().from(bankConnections).where(eq(bankConnections.userId, userId));
      const access = computeAccess({
        subscriptionStatus: sub?.status,
        connections: connections.map((c) => ({
          id: c.id,
          institutionName: c.institutionName,
          provider: c.provider,
          status: c.status,
          lastSyncedAt: c.lastSyncedAt,
          lastErrorCode: c.lastErrorCode,
          accountCount: 0,
        })),
        appUrl: "http://localhost:3000",
      });
      const derived =
        access.subscription !== "active"
          ? access.subscription
          : !access.hasConnections
            ? "no_connections"
            : access.needsReauth.length > 0
              ? "reauth_required"
              : "active";
      expect(derived, account.email).toBe(account.state === "multi_currency" ? "active" : account.state);
      if (sub) expect(sub.provider).toBe("local");
    }

    // The active account: at least two sandbox banks with the full spread of account types.
    const activeId = userIdOf.get(first.find((a) => a.state === "active")!.email)!;
    const activeConnections = await db
      .select()
      .from(bankConnections)
      .where(eq(bankConnections.userId, activeId));
    expect(activeConnections.length).toBeGreaterThanOrEqual(2);
    expect(activeConnections.every((c) => c.status === "healthy")).toBe(true);
    const subtypes = new Set(
      (await db.select().from(bankAccounts).where(eq(bankAccounts.userId, activeId))).map((a) => a.subtype),
    );
    for (const subtype of [
      "checking",
      "savings",
      "credit card",
      "mortgage",
      "student",
      "brokerage",
      "401k",
    ]) {
      expect(subtypes).toContain(subtype);
    }
    // The multi-currency account: USD checking and card, a EUR and a JPY account, each currency
    // with its own spending, transfers between own accounts and a refund.
    const multiId = userIdOf.get(first.find((a) => a.state === "multi_currency")!.email)!;
    const multiAccounts = await db.select().from(bankAccounts).where(eq(bankAccounts.userId, multiId));
    const kinds = new Set(multiAccounts.map((a) => `${a.currency} ${a.subtype}`));
    for (const kind of ["USD checking", "USD credit card", "EUR checking", "JPY checking"]) {
      expect(kinds).toContain(kind);
    }
    const multiTransactions = await db.select().from(transactions).where(eq(transactions.userId, multiId));
    for (const currency of ["USD", "EUR", "JPY"]) {
      const rows = multiTransactions.filter((t) => t.currency === currency);
      expect(
        rows.some((t) => t.isTransfer),
        currency,
      ).toBe(true);
      expect(
        rows.some((t) => t.amountMinor < 0 && !t.isTransfer),
        currency,
      ).toBe(true);
      expect(
        rows.some((t) => t.amountMinor > 0 && t.category === "shopping"),
        `${currency} refund`,
      ).toBe(true);
    }
    const countOf = async (table: typeof transactions | typeof bankAccounts | typeof bankConnections) =>
      (
        await db
          .select({ n: count() })
          .from(table)
          .where(inArray(table.userId, [...userIdOf.values()]))
      )[0]!.n;
    const before = {
      users: userRows.length,
      connections: await countOf(bankConnections),
      accounts: await countOf(bankAccounts),
      transactions: await countOf(transactions),
    };
    expect(before.transactions).toBeGreaterThan(1000);

    // Second run: same users, banks and rows; fresh keys; the old ones stop working.
    const second = await seedDemo(db, { now: NOW });
    expect(second.map((a) => a.email)).toEqual(emails);
    expect((await db.select().from(users).where(inArray(users.email, emails))).length).toBe(before.users);
    expect(await countOf(bankConnections)).toBe(before.connections);
    expect(await countOf(bankAccounts)).toBe(before.accounts);
    expect(await countOf(transactions)).toBe(before.transactions);
    for (const [i, account] of second.entries()) {
      expect(account.apiKey).not.toBe(first[i]!.apiKey);
      expect(await verifyBearerToken(db, first[i]!.apiKey)).toBeNull();
      expect((await verifyBearerToken(db, account.apiKey))?.userId).toBe(userIdOf.get(account.email));
      const live = await db
        .select()
        .from(apiKeys)
        .where(
          and(
            eq(apiKeys.userId, userIdOf.get(account.email)!),
            isNull(apiKeys.revokedAt),
            isNull(apiKeys.rotatedAt),
          ),
        );
      expect(live.map((k) => k.name)).toEqual(["demo"]);
    }
  });
});

describe("npm run db:seed -- --json", () => {
  it("prints the demo accounts as JSON, and each printed key verifies in that database", {
    timeout: 180_000,
  }, async () => {
    const pglite = testDatabaseKind() === "pglite";
    const dir = pglite ? await mkdtemp(path.join(tmpdir(), "ledgerlink-seed-")) : undefined;
    try {
      const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: "development" };
      if (pglite) {
        env.DATABASE_URL = "";
        env.PGLITE_DIR = dir;
      } else {
        env.DATABASE_URL = process.env.TEST_DATABASE_URL;
      }
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [path.resolve("node_modules/tsx/dist/cli.mjs"), "db/seed.ts", "--json"],
        { env, maxBuffer: 10_000_000 },
      );
      const printed = JSON.parse(stdout) as Array<{ email: string; state: string; apiKey: string }>;
      expect(printed.map((a) => a.state).sort()).toEqual([...DEMO_STATES].sort());
      for (const a of printed) expect(Object.keys(a).sort()).toEqual(["apiKey", "email", "state"]);
      const handle = pglite ? await openDatabase({ pgliteDir: dir }) : undefined;
      const db = handle?.db ?? getDb();
      try {
        for (const a of printed) {
          const verified = await verifyBearerToken(db, a.apiKey);
          const [user] = await db.select({ id: users.id }).from(users).where(eq(users.email, a.email));
          expect(verified?.userId).toBe(user!.id);
        }
      } finally {
        await handle?.close();
      }
    } finally {
      if (dir) await rm(dir, { recursive: true, force: true });
    }
  });
});
