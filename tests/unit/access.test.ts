import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { bankAccounts, bankConnections } from "@/db/schema";
import { type ConnectionSummary, computeAccess, getAccess, mapSubscriptionStatus } from "@/lib/access";
import { useTestDatabase } from "../helpers/db";
import { createTestUser } from "../helpers/fixtures";

const db = useTestDatabase();

const conn = (status: ConnectionSummary["status"], id = randomUUID()): ConnectionSummary => ({
  id,
  institutionName: `Bank ${id.slice(0, 4)}`,
  provider: "sandbox",
  status,
  lastSyncedAt: new Date("2026-01-01T00:00:00Z"),
  lastErrorCode: null,
  accountCount: 2,
});

describe("mapSubscriptionStatus (product.md's table)", () => {
  it.each([
    ["active", "active"],
    ["trialing", "active"],
    ["incomplete", "none"],
    ["incomplete_expired", "none"],
    [null, "none"],
    [undefined, "none"],
    ["canceled", "canceled"],
    ["past_due", "past_due"],
    ["unpaid", "past_due"],
    ["paused", "past_due"],
  ] as const)("%s → %s", (status, state) => {
    expect(mapSubscriptionStatus(status)).toBe(state);
  });
});

describe("computeAccess: every row of the state table", () => {
  const appUrl = "https://ledgerlink.example";

  it.each(["none", "canceled", "past_due"] as const)(
    "subscription %s → tools disabled with a billing link",
    (s) => {
      const raw = { none: null, canceled: "canceled", past_due: "past_due" }[s];
      const state = computeAccess({ subscriptionStatus: raw, connections: [conn("healthy")], appUrl });
      expect(state.subscription).toBe(s);
      expect(state.toolsEnabled).toBe(false);
      expect(state.links.billing).toBe(`${appUrl}/dashboard/billing`);
    },
  );

  it("active with no bank → tools enabled, no connections", () => {
    const state = computeAccess({ subscriptionStatus: "active", connections: [], appUrl });
    expect(state.toolsEnabled).toBe(true);
    expect(state.hasConnections).toBe(false);
  });

  it("active with a bank needing re-authorization → that bank named, with its reconnect link", () => {
    const bad = conn("reauth_required");
    const state = computeAccess({
      subscriptionStatus: "active",
      connections: [conn("healthy"), bad],
      appUrl,
    });
    expect(state.toolsEnabled).toBe(true);
    expect(state.hasConnections).toBe(true);
    expect(state.needsReauth.map((c) => c.id)).toEqual([bad.id]);
    expect(state.links.reconnect(bad.id)).toBe(`${appUrl}/dashboard/banks?reconnect=${bad.id}`);
  });

  it("a disconnected bank counts as no bank", () => {
    const state = computeAccess({
      subscriptionStatus: "active",
      connections: [conn("disconnected")],
      appUrl,
    });
    expect(state.hasConnections).toBe(false);
  });
});

describe("getAccess loads the user's own rows", () => {
  it("reads subscription and connections with account counts, ignoring other users", async () => {
    const me = await createTestUser(db(), "access", { subscription: "past_due" });
    const other = await createTestUser(db(), "access", { subscription: "active" });
    const [c] = await db()
      .insert(bankConnections)
      .values({
        userId: me.id,
        provider: "sandbox",
        providerItemId: randomUUID(),
        institutionId: "ins_1",
        institutionName: "First Platypus Bank",
        status: "reauth_required",
        accessTokenCiphertext: "x",
        accessTokenKeyVersion: 1,
      })
      .returning();
    await db()
      .insert(bankAccounts)
      .values([
        {
          userId: me.id,
          connectionId: c!.id,
          providerAccountId: "a1",
          name: "Checking",
          type: "depository",
        },
        { userId: me.id, connectionId: c!.id, providerAccountId: "a2", name: "Card", type: "credit" },
      ]);

    const state = await getAccess(db(), me.id);
    expect(state.subscription).toBe("past_due");
    expect(state.connections).toHaveLength(1);
    expect(state.connections[0]?.accountCount).toBe(2);
    expect(state.needsReauth.map((x) => x.institutionName)).toEqual(["First Platypus Bank"]);

    const otherState = await getAccess(db(), other.id);
    expect(otherState.subscription).toBe("active");
    expect(otherState.hasConnections).toBe(false);
  });
});
