import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { POST as mcpPost } from "@/app/api/mcp/route";
import { oauthGrants, oauthTokens } from "@/db/schema";
import { verifyBearerToken } from "@/lib/mcp/auth";
import { countLiveTokens, listConnectedApps, revokeGrant } from "@/lib/oauth/tokens";
// Aliased: Biome reads a `use…` call at module level as a React hook.
import { useTestDatabase } from "../helpers/db";
import {
  appUrl,
  createSignedInUser,
  exchangeRefreshToken,
  mcpResource,
  obtainTokens,
  registerClient,
  revoke,
} from "../helpers/oauth";

const getDb = useTestDatabase();

function mcpRequest(accessToken: string) {
  return mcpPost(
    new Request(`${appUrl()}/api/mcp`, {
      method: "POST",
      headers: {
        host: new URL(appUrl()).host,
        authorization: `Bearer ${accessToken}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-06-18",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    }),
  );
}

describe("revocation (RFC 7009)", () => {
  it("an unknown token → 200", async () => {
    const client = await registerClient();
    for (const t of ["llat_unknown", `llat_${"x".repeat(43)}`, `llrt_${"y".repeat(43)}`, "whatever"]) {
      const res = await revoke({ token: t, client_id: client.clientId });
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("no-store");
    }
  });

  it("another client's token is not revoked (and the answer is still 200)", async () => {
    const db = getDb();
    const { tokens } = await obtainTokens(db);
    const stranger = await registerClient();
    for (const t of [tokens.access_token, tokens.refresh_token!]) {
      expect((await revoke({ token: t, client_id: stranger.clientId })).status).toBe(200);
    }
    expect(await verifyBearerToken(db, tokens.access_token, mcpResource())).not.toBeNull();
  });

  it("revoking an access token ends it; revoking a refresh token ends the grant", async () => {
    const db = getDb();
    const { client, tokens } = await obtainTokens(db);
    expect(
      (
        await revoke({
          token: tokens.access_token,
          client_id: client.clientId,
          token_type_hint: "access_token",
        })
      ).status,
    ).toBe(200);
    expect(await verifyBearerToken(db, tokens.access_token, mcpResource())).toBeNull();
    const refreshed = await exchangeRefreshToken(tokens.refresh_token!, client.clientId);
    expect(refreshed.status).toBe(200);
    const next = (await refreshed.json()) as { access_token: string; refresh_token: string };
    expect((await revoke({ token: next.refresh_token, client_id: client.clientId })).status).toBe(200);
    expect(await verifyBearerToken(db, next.access_token, mcpResource())).toBeNull();
    const after = await exchangeRefreshToken(next.refresh_token, client.clientId);
    expect(after.status).toBe(400);
  });

  it("requires client authentication: unknown client → 401 invalid_client; missing token → invalid_request", async () => {
    const client = await registerClient();
    const res = await revoke({ token: "x", client_id: "nobody" });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: string }).error).toBe("invalid_client");
    const missing = await revoke({ client_id: client.clientId });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: string }).error).toBe("invalid_request");
  });
});

describe("access tokens at /api/mcp", () => {
  it("verifyBearerToken (OAuth): null for another resource, expired, revoked, refresh tokens and garbage", async () => {
    const db = getDb();
    const { user, tokens } = await obtainTokens(db);
    expect(await verifyBearerToken(db, tokens.access_token, "https://other.example/api/mcp")).toBeNull();
    expect(await verifyBearerToken(db, tokens.access_token, `${appUrl()}/api/other`)).toBeNull();
    expect(await verifyBearerToken(db, tokens.refresh_token!, mcpResource())).toBeNull();
    expect(await verifyBearerToken(db, "llk_notatoken", mcpResource())).toBeNull();
    const ok = await verifyBearerToken(db, tokens.access_token, mcpResource());
    expect(ok).toMatchObject({ userId: user.userId, scopes: ["finance:read"] });
    await db
      .update(oauthTokens)
      .set({ expiresAt: new Date(Date.now() - 1) })
      .where(eq(oauthTokens.userId, user.userId));
    expect(await verifyBearerToken(db, tokens.access_token, mcpResource())).toBeNull();
  });

  it("a token issued for another resource → 401 at /api/mcp; ours → 200", async () => {
    const db = getDb();
    const { user, tokens } = await obtainTokens(db);
    const good = await mcpRequest(tokens.access_token);
    expect(good.status).toBe(200);
    // Re-bind the token's audience elsewhere, as a token minted for another resource would be.
    await db
      .update(oauthTokens)
      .set({ resource: "https://other.example/api/mcp" })
      .where(eq(oauthTokens.userId, user.userId));
    const res = await mcpRequest(tokens.access_token);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("records the grant's last use at most once a minute", async () => {
    const db = getDb();
    const { user, tokens } = await obtainTokens(db);
    const lastUsed = async () =>
      (await db.select().from(oauthGrants).where(eq(oauthGrants.userId, user.userId)))[0]?.lastUsedAt ?? null;
    expect(await lastUsed()).toBeNull();
    await verifyBearerToken(db, tokens.access_token, mcpResource());
    const first = await lastUsed();
    expect(first).not.toBeNull();
    await verifyBearerToken(db, tokens.access_token, mcpResource());
    expect((await lastUsed())?.getTime()).toBe(first!.getTime());
    const old = new Date(Date.now() - 61_000);
    await db.update(oauthGrants).set({ lastUsedAt: old }).where(eq(oauthGrants.userId, user.userId));
    await verifyBearerToken(db, tokens.access_token, mcpResource());
    expect((await lastUsed())!.getTime()).toBeGreaterThan(old.getTime());
  });
});

describe("connected apps", () => {
  it("lists only the user's own grants, and Revoke ends every token at once", async () => {
    const db = getDb();
    const user = await createSignedInUser(db);
    const other = await createSignedInUser(db);
    const client = await registerClient({ client_name: "Claude test" });
    const { tokens } = await obtainTokens(db, user, client);
    const { tokens: othersTokens } = await obtainTokens(db, other, client);
    const apps = await listConnectedApps(db, user.userId);
    expect(apps).toHaveLength(1);
    expect(apps[0]).toMatchObject({ clientName: "Claude test", clientId: client.clientId });
    const grantId = apps[0]!.grantId;
    expect(await countLiveTokens(db, grantId, user.userId)).toBe(2);

    // Another user cannot revoke it.
    expect(await revokeGrant(db, grantId, other.userId)).toBe(false);
    expect(await verifyBearerToken(db, tokens.access_token, mcpResource())).not.toBeNull();

    expect(await revokeGrant(db, grantId, user.userId)).toBe(true);
    expect(await countLiveTokens(db, grantId, user.userId)).toBe(0);
    expect(await verifyBearerToken(db, tokens.access_token, mcpResource())).toBeNull();
    expect((await mcpRequest(tokens.access_token)).status).toBe(401);
    const refresh = await exchangeRefreshToken(tokens.refresh_token!, client.clientId);
    expect(refresh.status).toBe(400);
    expect(await listConnectedApps(db, user.userId)).toHaveLength(0);
    // The other user's connection to the same client is untouched.
    expect(await verifyBearerToken(db, othersTokens.access_token, mcpResource())).not.toBeNull();
  });
});
