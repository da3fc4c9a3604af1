/**
 * POST /api/webhooks/plaid, mounted on a real HTTP server, with webhooks signed by ES256 keys
 * generated here and served by the fake Plaid's /webhook_verification_key/get. Only a valid
 * webhook has an effect; a replay has none.
 */
import { createHmac, generateKeyPairSync, randomUUID } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { bankConnections, transactions, webhookEvents } from "@/db/schema";
import { useTestDatabase } from "@/tests/helpers/db";
import { createTestUser, linkPlaidItem, usePlaidFake } from "@/tests/helpers/fixtures";
import { postedCoffee } from "../fixtures/plaid-data";
import { FAKE_SECRET, signPlaidWebhook } from "../fixtures/plaid-fake";

const getDb = useTestDatabase();
const KID = `kid-${randomUUID()}`;
const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
const b64url = (v: string | Buffer) => Buffer.from(v).toString("base64url");

const plaid = usePlaidFake({
  routes: { "/api/webhooks/plaid": () => import("@/app/api/webhooks/plaid/route") },
});
beforeAll(() => {
  plaid.fake.addWebhookKey({ ...publicKey.export({ format: "jwk" }), kid: KID });
});

async function linkedItem() {
  const db = getDb();
  const { id: userId } = await createTestUser(db, "plaid-wh", { subscription: "active" });
  const { connectionId, item } = await linkPlaidItem(db, plaid.fake, userId);
  return { userId, connectionId, item };
}

async function post(body: string, jwt: string | null) {
  const res = await fetch(plaid.server.url("/api/webhooks/plaid"), {
    method: "POST",
    headers: { "content-type": "application/json", ...(jwt ? { "plaid-verification": jwt } : {}) },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const statusOf = async (id: string) =>
  (
    await getDb()
      .select({ status: bankConnections.status })
      .from(bankConnections)
      .where(eq(bankConnections.id, id))
  )[0]?.status;

const setStatus = (id: string, status: "healthy" | "reauth_required") =>
  getDb().update(bankConnections).set({ status }).where(eq(bankConnections.id, id));

const eventCount = async () =>
  (
    await getDb()
      .select({ n: sql<number>`count(*)::int` })
      .from(webhookEvents)
      .where(eq(webhookEvents.provider, "plaid"))
  )[0]?.n ?? 0;

const itemError = (itemId: string, code = "ITEM_LOGIN_REQUIRED") =>
  JSON.stringify({
    webhook_type: "ITEM",
    webhook_code: "ERROR",
    item_id: itemId,
    error: {
      error_type: "ITEM_ERROR",
      error_code: code,
      error_message: "login required",
      display_message: null,
    },
    environment: "sandbox",
  });

describe("Plaid webhooks", () => {
  it("a valid ITEM ERROR marks the connection reauth_required; its replay has no second effect", async () => {
    const { connectionId, item } = await linkedItem();
    const body = itemError(item.itemId);
    const jwt = signPlaidWebhook(body, { privateKey, kid: KID });
    const first = await post(body, jwt);
    expect(first).toMatchObject({ status: 200, body: { outcome: "applied" } });
    expect(await statusOf(connectionId)).toBe("reauth_required");

    // Reset by hand, then replay the exact same request: nothing may change.
    await setStatus(connectionId, "healthy");
    const events = await eventCount();
    const replay = await post(body, jwt);
    expect(replay).toMatchObject({ status: 200, body: { outcome: "duplicate" } });
    expect(await statusOf(connectionId)).toBe("healthy");
    expect(await eventCount()).toBe(events);
    // Two concurrent replays: still one delivery.
    const concurrent = await Promise.all([post(body, jwt), post(body, jwt)]);
    expect(concurrent.map((r) => r.body.outcome)).toEqual(["duplicate", "duplicate"]);
    expect(await statusOf(connectionId)).toBe("healthy");
    // The key was fetched from Plaid once and cached.
    expect(plaid.fake.requests.filter((r) => r.path === "/webhook_verification_key/get")).toHaveLength(1);
  });

  it("forgeries get 401 and no effect: HS256, none, unknown kid, stale iat, body changed, no header", async () => {
    const { connectionId, item } = await linkedItem();
    const body = itemError(item.itemId);
    const events = await eventCount();
    const nowSec = Math.floor(Date.now() / 1000);
    const payload = b64url(
      JSON.stringify({
        iat: nowSec,
        request_body_sha256: (await import("node:crypto")).createHash("sha256").update(body).digest("hex"),
      }),
    );
    const hsHeader = b64url(JSON.stringify({ alg: "HS256", kid: KID, typ: "JWT" }));
    const hs256 = `${hsHeader}.${payload}.${b64url(createHmac("sha256", FAKE_SECRET).update(`${hsHeader}.${payload}`).digest())}`;
    const none = `${b64url(JSON.stringify({ alg: "none", kid: KID }))}.${payload}.`;
    const otherKey = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey;
    const forgeries: Array<[string, string, string | null]> = [
      ["HS256", body, hs256],
      ["none", body, none],
      ["unknown kid", body, signPlaidWebhook(body, { privateKey, kid: "kid-unknown" })],
      ["wrong key", body, signPlaidWebhook(body, { privateKey: otherKey, kid: KID })],
      ["stale iat", body, signPlaidWebhook(body, { privateKey, kid: KID, iat: nowSec - 301 })],
      [
        "body changed",
        body.replace("ITEM_LOGIN_REQUIRED", "USER_PERMISSION_REVOKED"),
        signPlaidWebhook(body, { privateKey, kid: KID }),
      ],
      ["no header", body, null],
    ];
    for (const [label, sentBody, jwt] of forgeries) {
      const res = await post(sentBody, jwt);
      expect(res.status, label).toBe(401);
      expect(await statusOf(connectionId), label).toBe("healthy");
    }
    expect(await eventCount()).toBe(events);
  });

  it("SYNC_UPDATES_AVAILABLE syncs the item", async () => {
    const { userId, item } = await linkedItem();
    plaid.fake.removeTransactions(item.itemId, ["tx-coffee-pending"]);
    plaid.fake.addTransactions(item.itemId, [postedCoffee]);
    const body = JSON.stringify({
      webhook_type: "TRANSACTIONS",
      webhook_code: "SYNC_UPDATES_AVAILABLE",
      item_id: item.itemId,
      initial_update_complete: true,
      historical_update_complete: true,
      environment: "sandbox",
    });
    const iat = Math.floor(Date.now() / 1000);
    const res = await post(body, signPlaidWebhook(body, { privateKey, kid: KID, iat }));
    expect(res).toMatchObject({ status: 200, body: { outcome: "applied", status: "healthy" } });
    const ids = (
      await getDb()
        .select({ id: transactions.providerTransactionId })
        .from(transactions)
        .where(eq(transactions.userId, userId))
    ).map((r) => r.id);
    expect(ids).toContain("tx-coffee-posted");
    expect(ids).not.toContain("tx-coffee-pending");
    // The same body sent again later (a new notification, new iat) is a new delivery.
    const again = await post(body, signPlaidWebhook(body, { privateKey, kid: KID, iat: iat - 1 }));
    expect(again.body.outcome).toBe("applied");
  });

  it("PENDING_EXPIRATION and PENDING_DISCONNECT → reauth; LOGIN_REPAIRED → healthy; USER_PERMISSION_REVOKED → disconnected", async () => {
    const { connectionId, item } = await linkedItem();
    const send = async (code: string, extra: Record<string, unknown> = {}) => {
      const body = JSON.stringify({
        webhook_type: "ITEM",
        webhook_code: code,
        item_id: item.itemId,
        environment: "sandbox",
        ...extra,
      });
      return post(body, signPlaidWebhook(body, { privateKey, kid: KID }));
    };
    expect(
      (await send("PENDING_EXPIRATION", { consent_expiration_time: "2026-12-01T00:00:00Z" })).status,
    ).toBe(200);
    expect(await statusOf(connectionId)).toBe("reauth_required");
    expect((await send("LOGIN_REPAIRED")).body).toMatchObject({ outcome: "applied", status: "healthy" });
    expect(await statusOf(connectionId)).toBe("healthy");
    await send("PENDING_DISCONNECT", { reason: "INSTITUTION_MIGRATION" });
    expect(await statusOf(connectionId)).toBe("reauth_required");
    await send("USER_PERMISSION_REVOKED", {
      error: { error_code: "USER_PERMISSION_REVOKED", error_type: "ITEM_ERROR" },
    });
    expect(await statusOf(connectionId)).toBe("disconnected");
    // A disconnected item stays so, whatever arrives next.
    await send("LOGIN_REPAIRED");
    expect(await statusOf(connectionId)).toBe("disconnected");
  });

  it("a webhook for an unknown item is acknowledged and ignored", async () => {
    const body = JSON.stringify({
      webhook_type: "ITEM",
      webhook_code: "ERROR",
      item_id: "item-nobody",
      error: { error_code: "ITEM_LOGIN_REQUIRED" },
    });
    const res = await post(body, signPlaidWebhook(body, { privateKey, kid: KID }));
    expect(res).toMatchObject({ status: 200, body: { outcome: "ignored" } });
    const rows = await getDb()
      .select()
      .from(bankConnections)
      .where(and(eq(bankConnections.provider, "plaid"), eq(bankConnections.providerItemId, "item-nobody")));
    expect(rows).toEqual([]);
  });
});
