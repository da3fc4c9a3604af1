/**
 * Deleting an account (lib/account.ts) leaves no row of the person in any table, releases their
 * banks at the provider and cancels their Stripe subscription; when Stripe fails, nothing at all
 * is deleted and a retry finishes the job. Another person's rows are untouched.
 */
import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db";
import {
  apiKeys,
  bankConnections,
  rateLimits,
  sandboxItems,
  toolCalls,
  users,
  verificationTokens,
} from "@/db/schema";
import { deleteAccount } from "@/lib/account";
import { createApiKey } from "@/lib/api-keys";
import { linkConnection, listSandboxInstitutions } from "@/lib/banking/connections";
import { completeCheckoutReturn, createCheckoutUrl } from "@/lib/billing/checkout";
import { resetEnvCache } from "@/lib/env";
import { executeRows } from "@/lib/finance/sql";
import { loadCaller } from "@/lib/mcp/caller";
import { type StripeFake, startStripeFake } from "@/tests/fixtures/stripe-fake";
import { useTestDatabase } from "@/tests/helpers/db";
import { createSignedInUser, mcpResource, obtainTokens, registerClient } from "../helpers/oauth";

const getDb = useTestDatabase();
let fake: StripeFake;
const savedEnv = { ...process.env };

beforeAll(async () => {
  fake = await startStripeFake();
  Object.assign(process.env, {
    STRIPE_SECRET_KEY: fake.apiKey,
    STRIPE_API_BASE: fake.url,
    STRIPE_WEBHOOK_SECRET: `whsec_${randomUUID().replaceAll("-", "")}`,
    STRIPE_PRICE_ID: "price_ledgerlink_monthly",
    BILLING: "",
  });
  resetEnvCache();
});
afterAll(async () => {
  await fake?.close();
  process.env = savedEnv;
  resetEnvCache();
});

/** A person with everything: a Stripe subscription, a sandbox bank with data, a key, an OAuth grant, activity, rate-limit windows, a pending sign-in link. */
async function personWithEverything(db: Database) {
  const person = await createSignedInUser(db);
  const url = await createCheckoutUrl(db, { id: person.userId, email: person.email });
  const sessionId = new URL(url).pathname.split("/").pop() ?? "";
  fake.completeCheckout(sessionId, "active");
  await completeCheckoutReturn(db, person.userId, sessionId);
  const { connection } = await linkConnection(db, {
    userId: person.userId,
    provider: "sandbox",
    institutionId: listSandboxInstitutions()[0]?.id,
  });
  const key = await createApiKey(db, person.userId, "deletion");
  await loadCaller(db, key.key, { resource: mcpResource() }); // a rate-limit window and last use
  const { tokens } = await obtainTokens(db, person, await registerClient());
  await loadCaller(db, tokens.access_token, { resource: mcpResource() });
  await db.insert(toolCalls).values({
    userId: person.userId,
    credentialKind: "api_key",
    apiKeyId: key.id,
    tool: "list_accounts",
    status: "ok",
    durationMs: 3,
  });
  await db.insert(verificationTokens).values({
    identifier: person.email,
    token: randomUUID(),
    expires: new Date(Date.now() + 600_000),
  });
  return { person, connection, key };
}

/** Every row that belongs to `userId`, table by table (every table with a user_id column, and the ones keyed otherwise). */
async function rowsOf(db: Database, userId: string, email: string, itemIds: string[], buckets: string[]) {
  const tables = await executeRows(
    db,
    sql`select table_name from information_schema.columns
        where column_name = 'user_id' and table_schema = current_schema() order by table_name`,
  );
  const counts: Record<string, number> = {};
  for (const { table_name } of tables) {
    const [row] = await executeRows(
      db,
      sql`select count(*)::int as n from ${sql.identifier(String(table_name))} where user_id = ${userId}`,
    );
    counts[String(table_name)] = Number(row?.n);
  }
  counts.users = (await db.select().from(users).where(eq(users.id, userId))).length;
  counts.verification_tokens = (
    await db.select().from(verificationTokens).where(eq(verificationTokens.identifier, email))
  ).length;
  counts.sandbox_items = itemIds.length
    ? (await db.select().from(sandboxItems).where(sql`${sandboxItems.itemId} in ${itemIds}`)).length
    : 0;
  counts.rate_limits = buckets.length
    ? (await db.select().from(rateLimits).where(sql`${rateLimits.key} in ${buckets}`)).length
    : 0;
  return counts;
}

describe("deleting an account", () => {
  it("leaves no row of the person anywhere, releases the bank, cancels Stripe; others keep theirs", async () => {
    const db = getDb();
    const { person, connection, key } = await personWithEverything(db);
    const other = await personWithEverything(db);
    const [grant] = await executeRows(db, sql`select id from oauth_grants where user_id = ${person.userId}`);
    const buckets = [`api_key:${key.id}`, `oauth:${String(grant?.id)}`];
    const before = await rowsOf(db, person.userId, person.email, [connection.providerItemId], buckets);
    // The fixture really has rows in the tables that matter.
    for (const table of [
      "users",
      "sessions",
      "api_keys",
      "subscriptions",
      "bank_connections",
      "transactions",
      "oauth_grants",
      "oauth_tokens",
      "tool_calls",
      "rate_limits",
      "sandbox_items",
      "verification_tokens",
    ]) {
      expect(before[table], table).toBeGreaterThan(0);
    }
    const [subscription] = await executeRows(
      db,
      sql`select subscription_id from subscriptions where user_id = ${person.userId}`,
    );
    const subscriptionId = String(subscription?.subscription_id);
    expect(fake.subscriptions.get(subscriptionId)?.status).toBe("active");

    await deleteAccount(db, person.userId);

    const after = await rowsOf(db, person.userId, person.email, [connection.providerItemId], buckets);
    expect(Object.entries(after).filter(([, n]) => n > 0)).toEqual([]);
    expect(fake.subscriptions.get(subscriptionId)?.status).toBe("canceled");
    // The other person is untouched.
    expect((await db.select().from(apiKeys).where(eq(apiKeys.id, other.key.id))).length).toBe(1);
    expect(
      (await db.select().from(bankConnections).where(eq(bankConnections.userId, other.person.userId))).length,
    ).toBe(1);
  });

  it("when Stripe fails, nothing is deleted; trying again finishes it", async () => {
    const db = getDb();
    const { person, key } = await personWithEverything(db);
    fake.failures = 10; // more than the SDK's retries
    try {
      await expect(deleteAccount(db, person.userId)).rejects.toMatchObject({
        code: "unavailable",
        message: expect.stringContaining("nothing was deleted"),
      });
    } finally {
      fake.failures = 0;
    }
    expect((await db.select().from(users).where(eq(users.id, person.userId))).length).toBe(1);
    expect((await db.select().from(apiKeys).where(eq(apiKeys.id, key.id))).length).toBe(1);
    await deleteAccount(db, person.userId);
    expect((await db.select().from(users).where(eq(users.id, person.userId))).length).toBe(0);
  });
});
