/**
 * What most integration tests start from: a fresh user with a random email (optionally with a
 * local subscription), a sandbox bank linked through the real connect + sync path, and the fake
 * Plaid API wired into the env with items linked through it.
 *
 * On the shared Postgres server tables are never empty: every user made here is new, so scope
 * assertions to it.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll } from "vitest";
import type { Database } from "@/db";
import { subscriptions, users } from "@/db/schema";
import { linkConnection } from "@/lib/banking/connections";
import { resetEnvCache } from "@/lib/env";
import { plaidItemData } from "../fixtures/plaid-data";
import {
  FAKE_CLIENT_ID,
  FAKE_SECRET,
  type FakeItemData,
  type ItemOptions,
  type PlaidFake,
  startPlaidFake,
} from "../fixtures/plaid-fake";
import { type ModuleSource, type ServedRoutes, serveRoutes } from "./serve";

export interface TestUserRow {
  id: string;
  email: string;
  name: string | null;
}

/** A new user `<prefix>-<uuid>@test.ledgerlink.local`; with `subscription`, also a local subscription in that status. */
export async function createTestUser(
  db: Database,
  prefix: string,
  options: { subscription?: "active" | "past_due" | "canceled"; timezone?: string } = {},
): Promise<TestUserRow> {
  const id = randomUUID();
  const email = `${prefix}-${id}@test.ledgerlink.local`;
  await db.insert(users).values({ id, email, ...(options.timezone ? { timezone: options.timezone } : {}) });
  if (options.subscription) {
    await db
      .insert(subscriptions)
      .values({ userId: id, provider: "local", customerId: `cus_${id}`, status: options.subscription });
  }
  return { id, email, name: null };
}

/** Links sandbox bank `institutionId` for `userId` through linkConnection (exchange + first sync) at `now`. */
export function linkSandboxBank(
  db: Database,
  userId: string,
  institutionId: string,
  now: Date,
  seed?: string,
) {
  return linkConnection(db, { userId, provider: "sandbox", institutionId, now, ...(seed ? { seed } : {}) });
}

export interface PlaidFakeContext {
  readonly fake: PlaidFake;
  readonly server: ServedRoutes;
}

/**
 * Before the file's tests: starts the fake Plaid API, mounts `routes` if any (serveRoutes) and
 * points PLAID_* (plus `env`) at the fake. After them: closes both and restores process.env.
 */
export function usePlaidFake({
  routes,
  env = {},
}: {
  routes?: Record<string, ModuleSource>;
  env?: Record<string, string>;
} = {}): PlaidFakeContext {
  const saved = { ...process.env };
  let fake: PlaidFake | undefined;
  let server: ServedRoutes | undefined;
  beforeAll(async () => {
    fake = await startPlaidFake();
    if (routes) server = await serveRoutes(routes);
    Object.assign(process.env, {
      PLAID_CLIENT_ID: FAKE_CLIENT_ID,
      PLAID_SECRET: FAKE_SECRET,
      PLAID_API_BASE: fake.url,
      ...env,
    });
    resetEnvCache();
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
    process.env = saved;
    resetEnvCache();
  });
  return {
    get fake() {
      if (!fake) throw new Error("Plaid fake not started yet");
      return fake;
    },
    get server() {
      if (!server) throw new Error("routes not served yet");
      return server;
    },
  };
}

/** Links, for `userId`, a Plaid item made from `data` (default plaidItemData()) through the fake's public token. */
export async function linkPlaidItem(
  db: Database,
  fake: PlaidFake,
  userId: string,
  { data = plaidItemData(), options, now }: { data?: FakeItemData; options?: ItemOptions; now?: Date } = {},
) {
  const publicToken = fake.createPublicToken(data, options);
  const result = await linkConnection(db, { userId, provider: "plaid", publicToken, now });
  const item = fake.itemForPublicToken(publicToken);
  if (!item) throw new Error("fake has no item for the public token");
  return { connectionId: result.connection.id, item, result };
}
