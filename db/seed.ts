/**
 * `npm run db:seed -- --json`: demo accounts, one per access state, printed as
 * `[{ "email", "state", "apiKey" }]` (a table without `--json`). `--heavy` also seeds the
 * benchmark user (five years, 100,000+ transactions over ten accounts) and prints its timing.
 *
 * Re-running changes nothing but the keys: users, subscriptions and banks are found again, not
 * duplicated; each demo user's "demo" key is rotated so exactly one live key exists and the
 * printed one works. With PGlite, run it while the server is stopped.
 *
 * DEMO DATA: the subscription rows written here are labelled demo rows (provider `local`,
 * customer id `demo_local_…`) written directly, not through billing; bank data comes from the
 * sandbox provider through the real link + sync path.
 */
import { pathToFileURL } from "node:url";
import { and, eq, isNull } from "drizzle-orm";
import { type Database, openDatabase } from "@/db";
import { apiKeys, subscriptions, users } from "@/db/schema";
import { createApiKey, revokeApiKey, rotateApiKey } from "@/lib/api-keys";
import { forceReauth, linkConnection, listConnections, syncConnection } from "@/lib/banking/connections";
import { getEnv } from "@/lib/env";

export const DEMO_STATES = [
  "active",
  "none",
  "canceled",
  "past_due",
  "no_connections",
  "reauth_required",
  "multi_currency",
] as const;
export type DemoState = (typeof DEMO_STATES)[number];

export interface DemoAccount {
  email: string;
  state: DemoState;
  apiKey: string;
}

export const DEMO_EMAIL_DOMAIN = "demo.ledgerlink.local";
export const HEAVY_EMAIL = `heavy@${DEMO_EMAIL_DOMAIN}`;
const DEMO_KEY_NAME = "demo";

interface DemoSpec {
  /** Raw subscription status (Stripe's vocabulary) or null for "no subscription yet". */
  subscription: string | null;
  banks: string[];
  /** Put the first bank into re-authorization. */
  reauth?: boolean;
}

const SPECS: Record<DemoState, DemoSpec> = {
  active: { subscription: "active", banks: ["ins_platypus", "ins_tartan", "ins_houndstooth"] },
  none: { subscription: null, banks: ["ins_platypus"] },
  canceled: { subscription: "canceled", banks: ["ins_platypus"] },
  past_due: { subscription: "past_due", banks: ["ins_platypus"] },
  no_connections: { subscription: "active", banks: [] },
  reauth_required: { subscription: "active", banks: ["ins_platypus", "ins_tartan"], reauth: true },
  // USD checking, savings, card and mortgage, plus a EUR current account and card and a JPY account.
  multi_currency: { subscription: "active", banks: ["ins_platypus", "ins_eurobank"] },
};

export const demoEmail = (state: string) => `${state.replace(/_/g, "-")}@${DEMO_EMAIL_DOMAIN}`;

async function ensureUser(db: Database, email: string, name: string): Promise<string> {
  await db.insert(users).values({ email, name }).onConflictDoNothing({ target: users.email });
  const [user] = await db.select({ id: users.id }).from(users).where(eq(users.email, email)).limit(1);
  if (!user) throw new Error(`Could not create the demo user ${email}.`);
  return user.id;
}

/** Demo subscription row, written directly (clearly labelled) instead of through billing. */
async function setDemoSubscription(db: Database, userId: string, status: string | null, now: Date) {
  if (status === null) {
    await db.delete(subscriptions).where(eq(subscriptions.userId, userId));
    return;
  }
  const values = {
    userId,
    provider: "local" as const,
    customerId: `demo_local_${userId}`,
    subscriptionId: `demo_local_sub_${userId}`,
    status,
    priceId: "demo",
    currentPeriodEnd: new Date(now.getTime() + 30 * 86_400_000),
    cancelAtPeriodEnd: false,
    updatedAt: now,
  };
  await db
    .insert(subscriptions)
    .values(values)
    .onConflictDoUpdate({
      target: subscriptions.userId,
      set: {
        provider: values.provider,
        status: values.status,
        priceId: values.priceId,
        currentPeriodEnd: values.currentPeriodEnd,
        cancelAtPeriodEnd: false,
        updatedAt: now,
      },
    });
}

/** Links the missing sandbox banks and refreshes the healthy ones; returns the connections by institution. */
async function ensureBanks(db: Database, userId: string, email: string, banks: string[], now: Date) {
  const existing = await listConnections(db, userId);
  for (const institutionId of banks) {
    const found = existing.find((c) => c.provider === "sandbox" && c.institutionId === institutionId);
    if (!found) {
      await linkConnection(db, { userId, provider: "sandbox", institutionId, seed: `demo:${email}`, now });
    } else if (found.status === "healthy" || found.status === "error") {
      await syncConnection(db, found.id, { now });
    }
  }
  return listConnections(db, userId);
}

/** Rotates the user's single live "demo" key (creating it the first time) and revokes any other live key. */
async function rotateDemoKey(db: Database, userId: string): Promise<string> {
  const live = await db
    .select({ id: apiKeys.id, name: apiKeys.name })
    .from(apiKeys)
    .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt), isNull(apiKeys.rotatedAt)))
    .orderBy(apiKeys.createdAt);
  const demo = live.find((k) => k.name === DEMO_KEY_NAME);
  for (const key of live) {
    if (key.id !== demo?.id) await revokeApiKey(db, userId, key.id);
  }
  const created = demo
    ? await rotateApiKey(db, userId, demo.id)
    : await createApiKey(db, userId, DEMO_KEY_NAME);
  return created.key;
}

/**
 * Creates (or refreshes) one demo user per access state and returns their fresh API keys.
 * `now` anchors the sandbox banks' history (tests pin it).
 */
export async function seedDemo(db: Database, options: { now?: Date } = {}): Promise<DemoAccount[]> {
  const now = options.now ?? new Date();
  const out: DemoAccount[] = [];
  for (const state of DEMO_STATES) {
    const spec = SPECS[state];
    const email = demoEmail(state);
    const userId = await ensureUser(db, email, `Demo (${state.replace(/_/g, " ")})`);
    await setDemoSubscription(db, userId, spec.subscription, now);
    const connections = await ensureBanks(db, userId, email, spec.banks, now);
    if (spec.reauth) {
      const first = connections.find((c) => c.institutionId === spec.banks[0]);
      if (first && first.status !== "reauth_required") await forceReauth(db, userId, first.id, { now });
    }
    out.push({ email, state, apiKey: await rotateDemoKey(db, userId) });
  }
  return out;
}

export interface HeavySeedResult extends DemoAccount {
  milliseconds: number;
}

/**
 * The benchmark user: an active subscription and the hidden "Heavy Ledger Bank" (ten accounts,
 * five years, 100,000+ transactions), deterministic. Re-running re-syncs and rotates the key.
 */
export async function seedHeavyUser(db: Database, options: { now?: Date } = {}): Promise<HeavySeedResult> {
  const now = options.now ?? new Date();
  const started = performance.now();
  const userId = await ensureUser(db, HEAVY_EMAIL, "Demo (heavy benchmark)");
  await setDemoSubscription(db, userId, "active", now);
  await ensureBanks(db, userId, HEAVY_EMAIL, ["ins_heavy"], now);
  const apiKey = await rotateDemoKey(db, userId);
  return {
    email: HEAVY_EMAIL,
    state: "active",
    apiKey,
    milliseconds: Math.round(performance.now() - started),
  };
}

async function main(argv: string[]) {
  const json = argv.includes("--json");
  const heavy = argv.includes("--heavy");
  const env = getEnv();
  const handle = await openDatabase({ url: env.DATABASE_URL, pgliteDir: env.PGLITE_DIR, migrate: true });
  try {
    const started = performance.now();
    const accounts: DemoAccount[] = await seedDemo(handle.db);
    console.error(
      `Seeded ${accounts.length} demo accounts in ${Math.round(performance.now() - started)} ms.`,
    );
    if (heavy) {
      const result = await seedHeavyUser(handle.db);
      console.error(`Seeded the heavy benchmark user in ${result.milliseconds} ms.`);
      accounts.push({ email: result.email, state: result.state, apiKey: result.apiKey });
    }
    if (json) {
      console.log(JSON.stringify(accounts, null, 2));
    } else {
      const width = Math.max(...accounts.map((a) => a.email.length));
      for (const a of accounts) console.log(`${a.email.padEnd(width)}  ${a.state.padEnd(16)}  ${a.apiKey}`);
    }
  } finally {
    await handle.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
