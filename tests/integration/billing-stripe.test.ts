/**
 * Stripe billing against the real `stripe` SDK pointed at a local fake (tests/fixtures/stripe-fake.ts):
 * subscribe (customer first, then Checkout), the checkout return, the portal, and the webhook
 * (signature, timestamp, dedup, concurrency), plus the status → state table of product.md.
 */
import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import Stripe from "stripe";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { subscriptions, webhookEvents } from "@/db/schema";
import { getAccess, type SubscriptionState } from "@/lib/access";
import { completeCheckoutReturn, createCheckoutUrl, createPortalUrl } from "@/lib/billing/checkout";
import { resetEnvCache } from "@/lib/env";
import { type StripeFake, startStripeFake } from "@/tests/fixtures/stripe-fake";
import { useTestDatabase, whileDatabaseDown } from "@/tests/helpers/db";
import { createTestUser } from "@/tests/helpers/fixtures";
import { type ServedRoutes, serveRoutes } from "@/tests/helpers/serve";

const getDb = useTestDatabase();
const WEBHOOK_SECRET = `whsec_${randomUUID().replaceAll("-", "")}`;
const PRICE_ID = "price_ledgerlink_monthly";
let fake: StripeFake;
let server: ServedRoutes;
const savedEnv = { ...process.env };
// Only used to sign test payloads (no network).
const signer = new Stripe("sk_test_signer_only");

beforeAll(async () => {
  fake = await startStripeFake();
  Object.assign(process.env, {
    STRIPE_SECRET_KEY: fake.apiKey,
    STRIPE_API_BASE: fake.url,
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_PRICE_ID: PRICE_ID,
    BILLING: "",
  });
  resetEnvCache();
  server = await serveRoutes({ "/api/webhooks/stripe": () => import("@/app/api/webhooks/stripe/route") });
});

afterAll(async () => {
  await server?.close();
  await fake?.close();
  for (const key of [
    "STRIPE_SECRET_KEY",
    "STRIPE_API_BASE",
    "STRIPE_WEBHOOK_SECRET",
    "STRIPE_PRICE_ID",
    "BILLING",
    "APP_URL",
  ]) {
    if (savedEnv[key] === undefined) delete process.env[key];
    else process.env[key] = savedEnv[key];
  }
  resetEnvCache();
});

const createUser = () => createTestUser(getDb(), "billing");

async function subscriptionRow(userId: string) {
  const [row] = await getDb().select().from(subscriptions).where(eq(subscriptions.userId, userId));
  return row;
}

function eventFor(
  customerId: string,
  type = "customer.subscription.updated",
  eventId = `evt_${randomUUID()}`,
) {
  return JSON.stringify({
    id: eventId,
    object: "event",
    type,
    api_version: "2025-10-29.clover",
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    data: { object: { id: `sub_${randomUUID()}`, object: "subscription", customer: customerId } },
  });
}

function post(payload: string, signature?: string) {
  return fetch(server.url("/api/webhooks/stripe"), {
    method: "POST",
    headers: { "content-type": "application/json", ...(signature ? { "stripe-signature": signature } : {}) },
    body: payload,
  });
}

const sign = (payload: string, timestamp?: number) =>
  signer.webhooks.generateTestHeaderString({
    payload,
    secret: WEBHOOK_SECRET,
    ...(timestamp ? { timestamp } : {}),
  });

async function userWithCustomer() {
  const user = await createUser();
  await createCheckoutUrl(getDb(), user);
  const row = await subscriptionRow(user.id);
  if (!row) throw new Error("customer not recorded");
  return { user, customerId: row.customerId };
}

async function eventRows(eventId: string) {
  return getDb()
    .select()
    .from(webhookEvents)
    .where(and(eq(webhookEvents.provider, "stripe"), eq(webhookEvents.eventId, eventId)));
}

describe("subscribe, return, manage", () => {
  let requestsBefore = 0;
  beforeEach(() => {
    requestsBefore = fake.requests.length;
  });

  it("creates the customer first, then a subscription-mode Checkout Session for STRIPE_PRICE_ID", async () => {
    const user = await createUser();
    const url = await createCheckoutUrl(getDb(), user);
    const calls = fake.requests.slice(requestsBefore).filter((r) => r.method === "POST");
    expect(calls.map((r) => r.path)).toEqual(["/v1/customers", "/v1/checkout/sessions"]);
    expect(calls[0]?.body).toMatchObject({ email: user.email, metadata: { userId: user.id } });
    const row = await subscriptionRow(user.id);
    expect(row).toMatchObject({ provider: "stripe", status: null });
    expect(calls[1]?.body).toMatchObject({
      mode: "subscription",
      customer: row?.customerId,
      client_reference_id: user.id,
      line_items: [{ price: PRICE_ID, quantity: "1" }],
    });
    expect(String(calls[1]?.body.success_url)).toBe(
      `${process.env.APP_URL}/api/billing/checkout-return?session_id={CHECKOUT_SESSION_ID}`,
    );
    const sessionId = new URL(url).pathname.split("/").pop()!;
    expect(fake.checkoutSessions.get(sessionId)?.customer).toBe(row?.customerId);
    expect((await getAccess(getDb(), user.id)).subscription).toBe("none");

    // A second Subscribe reuses the customer.
    await createCheckoutUrl(getDb(), user);
    expect(fake.requests.slice(requestsBefore).filter((r) => r.path === "/v1/customers").length).toBe(1);
  });

  it("the checkout return syncs the paid subscription; another user's session id changes nothing", async () => {
    const user = await createUser();
    const other = await createUser();
    const url = await createCheckoutUrl(getDb(), user);
    await createCheckoutUrl(getDb(), other);
    const sessionId = new URL(url).pathname.split("/").pop()!;
    fake.completeCheckout(sessionId, "active");

    await expect(completeCheckoutReturn(getDb(), other.id, sessionId)).rejects.toMatchObject({
      code: "not_found",
    });
    expect((await getAccess(getDb(), other.id)).subscription).toBe("none");

    await completeCheckoutReturn(getDb(), user.id, sessionId);
    expect((await getAccess(getDb(), user.id)).subscription).toBe("active");
    const row = await subscriptionRow(user.id);
    expect(row?.priceId).toBe(PRICE_ID);
    expect(row?.currentPeriodEnd?.getTime()).toBeGreaterThan(Date.now());
    await expect(createCheckoutUrl(getDb(), user)).rejects.toMatchObject({ code: "conflict" });
  });

  it("Manage opens the customer portal for the user's own customer", async () => {
    const { user, customerId } = await userWithCustomer();
    const url = await createPortalUrl(getDb(), user.id);
    expect(url).toBe(`${fake.url}/portal/${customerId}`);
    const last = fake.requests.at(-1);
    expect(last?.body).toMatchObject({
      customer: customerId,
      return_url: `${process.env.APP_URL}/dashboard/billing`,
    });
    const stranger = await createUser();
    await expect(createPortalUrl(getDb(), stranger.id)).rejects.toMatchObject({ code: "not_found" });
  });
});

describe("webhook", () => {
  it("a valid event is acted on: the state follows Stripe", async () => {
    const { user, customerId } = await userWithCustomer();
    fake.setSubscriptionStatus(customerId, "active");
    const payload = eventFor(customerId);
    const response = await post(payload, sign(payload));
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ outcome: "processed" });
    expect((await getAccess(getDb(), user.id)).subscription).toBe("active");
    expect(await eventRows(JSON.parse(payload).id)).toHaveLength(1);
  });

  it("one byte changed in the body → 400 and no effect", async () => {
    const { user, customerId } = await userWithCustomer();
    fake.setSubscriptionStatus(customerId, "active");
    const payload = eventFor(customerId);
    const signature = sign(payload);
    const tampered = payload.replace('"livemode":false', '"livemode":fals3');
    expect(tampered.length).toBe(payload.length);
    expect(tampered).not.toBe(payload);
    const response = await post(tampered, signature);
    expect(response.status).toBe(400);
    expect((await getAccess(getDb(), user.id)).subscription).toBe("none");
    expect(await eventRows(JSON.parse(payload).id)).toHaveLength(0);
  });

  it("missing signature → 400", async () => {
    const { user, customerId } = await userWithCustomer();
    fake.setSubscriptionStatus(customerId, "active");
    const payload = eventFor(customerId);
    const response = await post(payload);
    expect(response.status).toBe(400);
    expect((await getAccess(getDb(), user.id)).subscription).toBe("none");
  });

  it("a timestamp older than the tolerance (300 s) → 400, even with a correct signature for it", async () => {
    const { user, customerId } = await userWithCustomer();
    fake.setSubscriptionStatus(customerId, "active");
    const payload = eventFor(customerId);
    const response = await post(payload, sign(payload, Math.floor(Date.now() / 1000) - 301));
    expect(response.status).toBe(400);
    expect((await getAccess(getDb(), user.id)).subscription).toBe("none");
    // Within tolerance it is accepted: the rejection above was the age, not the signature.
    const ok = await post(payload, sign(payload, Math.floor(Date.now() / 1000) - 200));
    expect(ok.status).toBe(200);
  });

  it("the same event twice has one effect", async () => {
    const { user, customerId } = await userWithCustomer();
    fake.setSubscriptionStatus(customerId, "past_due");
    const payload = eventFor(customerId);
    const listsBefore = fake.count("GET", "/v1/subscriptions");
    const first = await post(payload, sign(payload));
    expect(await first.json()).toMatchObject({ outcome: "processed" });
    // Stripe changes meanwhile; a redelivery of the OLD event must not act again.
    fake.setSubscriptionStatus(customerId, "active");
    const second = await post(payload, sign(payload));
    expect(second.status).toBe(200);
    expect(await second.json()).toMatchObject({ outcome: "duplicate" });
    expect(fake.count("GET", "/v1/subscriptions") - listsBefore).toBe(1);
    expect((await getAccess(getDb(), user.id)).subscription).toBe("past_due");
    expect(await eventRows(JSON.parse(payload).id)).toHaveLength(1);
  });

  it("the same event twice at once: exactly one effect", async () => {
    const { user, customerId } = await userWithCustomer();
    fake.setSubscriptionStatus(customerId, "active");
    const payload = eventFor(customerId);
    const responses = await Promise.all([post(payload, sign(payload)), post(payload, sign(payload))]);
    expect(responses.map((r) => r.status)).toEqual([200, 200]);
    // Both may read Stripe (outside any transaction); only one records the event and writes.
    const outcomes = (await Promise.all(responses.map((r) => r.json()))).map((b) => b.outcome).sort();
    expect(outcomes).toEqual(["duplicate", "processed"]);
    expect((await getAccess(getDb(), user.id)).subscription).toBe("active");
    expect(await eventRows(JSON.parse(payload).id)).toHaveLength(1);
  });

  it("a slow Stripe holds no database connection: other requests go on meanwhile", async () => {
    const { user, customerId } = await userWithCustomer();
    fake.setSubscriptionStatus(customerId, "active");
    const payload = eventFor(customerId);
    fake.latencyMs = 1_500;
    try {
      const webhook = post(payload, sign(payload));
      await new Promise((resolve) => setTimeout(resolve, 300));
      // PGlite has one connection: a transaction held across the Stripe call would block this
      // read until the webhook ends.
      let webhookDone = false;
      void webhook.then(() => {
        webhookDone = true;
      });
      expect((await getAccess(getDb(), user.id)).subscription).toBe("none");
      expect(webhookDone).toBe(false);
      expect((await webhook).status).toBe(200);
    } finally {
      fake.latencyMs = 0;
    }
    expect((await getAccess(getDb(), user.id)).subscription).toBe("active");
  });

  it("Stripe failing during the webhook: not recorded, so Stripe's redelivery acts once", async () => {
    const { user, customerId } = await userWithCustomer();
    fake.setSubscriptionStatus(customerId, "active");
    const payload = eventFor(customerId);
    fake.failures = 1;
    const failed = await post(payload, sign(payload));
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect(await eventRows(JSON.parse(payload).id)).toHaveLength(0);
    expect((await getAccess(getDb(), user.id)).subscription).toBe("none");
    const redelivered = await post(payload, sign(payload));
    expect(await redelivered.json()).toMatchObject({ outcome: "processed" });
    expect((await getAccess(getDb(), user.id)).subscription).toBe("active");
    expect(await eventRows(JSON.parse(payload).id)).toHaveLength(1);
  });

  it("a body over 1 MB → 413 before it is read whole", async () => {
    const { customerId } = await userWithCustomer();
    const payload = eventFor(customerId).replace(
      '"object":"event"',
      `"object":"event","pad":"${"x".repeat(1024 * 1024)}"`,
    );
    const response = await post(payload, sign(payload));
    expect(response.status).toBe(413);
  });

  it("the database down: 503 with Retry-After (Stripe delivers again), nothing recorded", async () => {
    const { customerId } = await userWithCustomer();
    fake.setSubscriptionStatus(customerId, "active");
    const payload = eventFor(customerId);
    await whileDatabaseDown(async () => {
      const response = await post(payload, sign(payload));
      expect(response.status).toBe(503);
      expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
    });
    expect(await eventRows(JSON.parse(payload).id)).toHaveLength(0);
    const redelivered = await post(payload, sign(payload));
    expect(await redelivered.json()).toMatchObject({ outcome: "processed" });
  });

  it("irrelevant events are acknowledged and not acted on", async () => {
    const { user, customerId } = await userWithCustomer();
    fake.setSubscriptionStatus(customerId, "active");
    const payload = eventFor(customerId, "customer.updated");
    const response = await post(payload, sign(payload));
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ outcome: "ignored" });
    expect(await eventRows(JSON.parse(payload).id)).toHaveLength(0);
    expect((await getAccess(getDb(), user.id)).subscription).toBe("none");
  });

  // product.md: active, trialing → active; incomplete, incomplete_expired, no subscription → none;
  // canceled → canceled; past_due, unpaid, paused → past due.
  const TABLE: Array<[string | null, SubscriptionState]> = [
    ["active", "active"],
    ["trialing", "active"],
    ["incomplete", "none"],
    ["incomplete_expired", "none"],
    [null, "none"],
    ["canceled", "canceled"],
    ["past_due", "past_due"],
    ["unpaid", "past_due"],
    ["paused", "past_due"],
  ];
  for (const [status, expected] of TABLE) {
    it(`Stripe status ${status ?? "(no subscription)"} → ${expected}`, async () => {
      const { user, customerId } = await userWithCustomer();
      if (status) fake.setSubscriptionStatus(customerId, status);
      const payload = eventFor(customerId);
      const response = await post(payload, sign(payload));
      expect(response.status).toBe(200);
      const access = await getAccess(getDb(), user.id);
      expect(access.subscription).toBe(expected);
      expect(access.toolsEnabled).toBe(expected === "active");
      expect((await subscriptionRow(user.id))?.status).toBe(status);
    });
  }
});
