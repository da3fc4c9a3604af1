/**
 * Billing modes and the local test checkout: outcomes go through syncSubscription with provider
 * "local" and come out of lib/access.ts like Stripe's statuses; the checkout is refused when the
 * mode is Stripe; production start-up problems name what is missing.
 */

import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { subscriptions } from "@/db/schema";
import { getAccess } from "@/lib/access";
import { completeLocalCheckout, localCustomerId } from "@/lib/billing/local-checkout";
import { billingStartupProblems, resolveBillingMode } from "@/lib/billing/mode";
import { parseEnv, resetEnvCache } from "@/lib/env";
import { useTestDatabase } from "@/tests/helpers/db";
import { createTestUser } from "@/tests/helpers/fixtures";

const getDb = useTestDatabase();
const saved = { BILLING: process.env.BILLING, STRIPE_SECRET_KEY: process.env.STRIPE_SECRET_KEY };

afterEach(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  resetEnvCache();
});

const createUser = async () => (await createTestUser(getDb(), "local")).id;

describe("billing mode", () => {
  const env = (vars: Record<string, string>) => parseEnv({ NODE_ENV: "production", ...vars });

  it("defaults: stripe with a key, local outside production, none in production", () => {
    expect(resolveBillingMode(env({ STRIPE_SECRET_KEY: "sk_test_x" }))).toBe("stripe");
    expect(resolveBillingMode(parseEnv({ NODE_ENV: "development" }))).toBe("local");
    expect(resolveBillingMode(env({}))).toBeNull();
    expect(resolveBillingMode(env({ BILLING: "local" }))).toBe("local");
    expect(resolveBillingMode(parseEnv({ NODE_ENV: "development", BILLING: "stripe" }))).toBe("stripe");
  });

  it("production start-up without Stripe names STRIPE_SECRET_KEY; explicit local passes", () => {
    const problems = billingStartupProblems(env({}));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain("STRIPE_SECRET_KEY");
    expect(billingStartupProblems(env({ BILLING: "local" }))).toEqual([]);
    expect(
      billingStartupProblems(
        env({ STRIPE_SECRET_KEY: "sk_x", STRIPE_PRICE_ID: "price_x", STRIPE_WEBHOOK_SECRET: "whsec_x" }),
      ),
    ).toEqual([]);
    expect(billingStartupProblems(env({ STRIPE_SECRET_KEY: "sk_x" }))[0]).toContain("STRIPE_PRICE_ID");
    expect(billingStartupProblems(parseEnv({ NODE_ENV: "development" }))).toEqual([]);
  });
});

describe("local test checkout", () => {
  it("succeed → active, past due → past_due, cancel → canceled, written as provider local", async () => {
    process.env.BILLING = "local";
    resetEnvCache();
    const userId = await createUser();
    const other = await createUser();
    for (const [outcome, expected] of [
      ["succeed", "active"],
      ["past_due", "past_due"],
      ["cancel", "canceled"],
      ["succeed", "active"],
    ] as const) {
      await completeLocalCheckout(getDb(), userId, outcome);
      expect((await getAccess(getDb(), userId)).subscription).toBe(expected);
    }
    const [row] = await getDb().select().from(subscriptions).where(eq(subscriptions.userId, userId));
    expect(row).toMatchObject({ provider: "local", customerId: localCustomerId(userId), status: "active" });
    expect((await getAccess(getDb(), other)).subscription).toBe("none");
  });

  it("is refused when billing is Stripe", async () => {
    process.env.BILLING = "stripe";
    resetEnvCache();
    const userId = await createUser();
    await expect(completeLocalCheckout(getDb(), userId, "succeed")).rejects.toMatchObject({
      code: "forbidden",
    });
    expect((await getAccess(getDb(), userId)).subscription).toBe("none");
  });
});
