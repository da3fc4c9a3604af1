/**
 * The browser-facing Plaid routes (/api/plaid/link-token, /api/plaid/exchange) mounted on a real
 * HTTP server. The session is the only thing faked (Auth.js needs Next's request scope): each
 * request acts as `sessionUser`.
 */

import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { bankConnections } from "@/db/schema";
import { syncNow } from "@/lib/banking/connections";
import { resetEnvCache } from "@/lib/env";
import { useTestDatabase } from "@/tests/helpers/db";
import { createTestUser, usePlaidFake } from "@/tests/helpers/fixtures";
import { plaidItemData } from "../fixtures/plaid-data";
import { FAKE_SECRET } from "../fixtures/plaid-fake";

const session = vi.hoisted(() => ({
  user: null as { id: string; email: string | null; name: string | null } | null,
}));
vi.mock("@/lib/auth", () => ({ getSessionUser: async () => session.user }));

const getDb = useTestDatabase();
const plaid = usePlaidFake({
  routes: {
    "/api/plaid/link-token": () => import("@/app/api/plaid/link-token/route"),
    "/api/plaid/exchange": () => import("@/app/api/plaid/exchange/route"),
  },
});

/** A subscribed user as the mocked session sees it (no email, no name). */
const createUser = async () => ({
  ...(await createTestUser(getDb(), "plaid-rt", { subscription: "active" })),
  email: null,
});

async function connectionCount(userId: string): Promise<number> {
  const rows = await getDb()
    .select({ id: bankConnections.id })
    .from(bankConnections)
    .where(eq(bankConnections.userId, userId));
  return rows.length;
}

async function post(path: string, body: unknown, origin: string | null = plaid.server.origin) {
  const res = await fetch(plaid.server.url(path), {
    method: "POST",
    headers: { "content-type": "application/json", ...(origin ? { origin } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as Record<string, unknown>, text };
}

describe("Plaid routes", () => {
  it("refuse without a session (401), from a foreign origin (403), and with bad input (400)", async () => {
    session.user = null;
    expect((await post("/api/plaid/link-token", {})).status).toBe(401);
    expect((await post("/api/plaid/exchange", { public_token: "x" })).status).toBe(401);
    session.user = await createUser();
    expect((await post("/api/plaid/link-token", {}, "https://evil.example")).status).toBe(403);
    expect((await post("/api/plaid/link-token", {}, null)).status).toBe(403);
    const bad = await post("/api/plaid/exchange", { public_token: 42 });
    expect(bad.status).toBe(400);
  });

  it("answer 404 when Plaid is not configured", async () => {
    session.user = await createUser();
    process.env.PLAID_SECRET = "";
    resetEnvCache();
    try {
      expect((await post("/api/plaid/link-token", {})).status).toBe(404);
    } finally {
      process.env.PLAID_SECRET = FAKE_SECRET;
      resetEnvCache();
    }
  });

  it("link a bank: a link token, then the exchange stores it for the session user and syncs it", async () => {
    const user = await createUser();
    session.user = user;
    const token = await post("/api/plaid/link-token", {});
    expect(token.status).toBe(200);
    expect(token.body.link_token).toMatch(/^link-sandbox-/);
    const create = plaid.fake.requests.filter((r) => r.path === "/link/token/create").at(-1);
    expect(create?.body.user).toEqual({ client_user_id: user.id });

    const publicToken = plaid.fake.createPublicToken(plaidItemData());
    const exchanged = await post("/api/plaid/exchange", { public_token: publicToken });
    expect(exchanged.status).toBe(200);
    expect(exchanged.body).toMatchObject({ status: "healthy", accounts: 6 });
    const item = plaid.fake.itemForPublicToken(publicToken)!;
    expect(exchanged.text).not.toContain(item.accessToken);
    const [row] = await getDb()
      .select()
      .from(bankConnections)
      .where(eq(bankConnections.id, String(exchanged.body.connection_id)));
    expect(row).toMatchObject({ userId: user.id, provider: "plaid", providerItemId: item.itemId });

    // A public token works once: a replay is the request's fault (400), and links nothing new.
    const replay = await post("/api/plaid/exchange", { public_token: publicToken });
    expect(replay).toMatchObject({ status: 400, body: { error: "invalid_input" } });
    expect(await connectionCount(user.id)).toBe(1);
  });

  it("an expired or unknown public token answers 400 with a message saying to link again", async () => {
    const user = await createUser();
    session.user = user;
    const expired = plaid.fake.createPublicToken(plaidItemData());
    plaid.fake.expirePublicToken(expired);
    for (const token of [expired, "public-sandbox-not-a-token"]) {
      plaid.fake.requests.length = 0;
      const answer = await post("/api/plaid/exchange", { public_token: token });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toBe("invalid_input");
      expect(String(answer.body.message)).toMatch(/expired or was already used.*link the bank again/i);
      // Plaid was asked (the 400 is its answer, not our own input check).
      expect(plaid.fake.requests.map((r) => r.path)).toContain("/item/public_token/exchange");
    }
    expect(plaid.fake.itemForPublicToken(expired)).toBeUndefined();
    expect(await connectionCount(user.id)).toBe(0);
  });

  it("reconnect: update-mode link token and exchange for one's own Plaid connection only", async () => {
    const owner = await createUser();
    session.user = owner;
    const publicToken = plaid.fake.createPublicToken(plaidItemData());
    const linked = await post("/api/plaid/exchange", { public_token: publicToken });
    const connectionId = String(linked.body.connection_id);
    const item = plaid.fake.itemForPublicToken(publicToken)!;
    plaid.fake.setItemError(item.itemId, "ITEM_LOGIN_REQUIRED");
    expect((await syncNow(getDb(), owner.id, connectionId)).status).toBe("reauth_required");

    const update = await post("/api/plaid/link-token", { connection_id: connectionId });
    expect(update.status).toBe(200);
    expect(plaid.fake.requests.filter((r) => r.path === "/link/token/create").at(-1)?.body.access_token).toBe(
      item.accessToken,
    );

    // Still broken at Plaid: the reconnect is refused and the state stays.
    const early = await post("/api/plaid/exchange", { mode: "update", connection_id: connectionId });
    expect(early.status).toBe(409);
    plaid.fake.setItemError(item.itemId, null);
    const done = await post("/api/plaid/exchange", { mode: "update", connection_id: connectionId });
    expect(done).toMatchObject({ status: 200, body: { status: "healthy", connection_id: connectionId } });

    // Another user cannot touch it.
    session.user = await createUser();
    expect((await post("/api/plaid/link-token", { connection_id: connectionId })).status).toBe(404);
    expect((await post("/api/plaid/exchange", { mode: "update", connection_id: connectionId })).status).toBe(
      404,
    );
  });
});
