import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { oauthCodes, oauthGrants, oauthTokens } from "@/db/schema";
import { hashSecret } from "@/lib/api-keys";
import { resetEnvCache } from "@/lib/env";
import { verifyBearerToken } from "@/lib/mcp/auth";
import { keepGrant, listConnectedApps } from "@/lib/oauth/tokens";
// Aliased: Biome reads a `use…` call at module level as a React hook.
import { useTestDatabase } from "../helpers/db";
import {
  createSignedInUser,
  exchangeRefreshToken,
  mcpResource,
  obtainCode,
  obtainTokens,
  pkcePair,
  registerClient,
  type TokenSet,
  token,
} from "../helpers/oauth";

const getDb = useTestDatabase();

async function expectOAuthError(res: Response, status: number, error: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get("cache-control")).toBe("no-store");
  const body = (await res.json()) as { error: string; error_description: string };
  expect(body.error).toBe(error);
  expect(typeof body.error_description).toBe("string");
}

async function codeSetup() {
  const db = getDb();
  const user = await createSignedInUser(db);
  const client = await registerClient();
  const { verifier, challenge } = pkcePair();
  const code = await obtainCode(user, client, challenge);
  const exchange = (extra: Record<string, string | undefined> = {}) => {
    const form: Record<string, string> = {};
    const base: Record<string, string | undefined> = {
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      redirect_uri: client.redirectUri,
      client_id: client.clientId,
      resource: mcpResource(),
      ...extra,
    };
    for (const [k, v] of Object.entries(base)) if (v !== undefined) form[k] = v;
    return token(form);
  };
  return { db, user, client, code, verifier, exchange };
}

describe("token: authorization_code with PKCE", () => {
  it("issues opaque Bearer tokens with no-store, lifetimes from the environment, stored as SHA-256 only", async () => {
    const { db, user, exchange } = await codeSetup();
    const res = await exchange();
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = (await res.json()) as TokenSet;
    expect(body.token_type).toBe("Bearer");
    expect(body.expires_in).toBe(3600);
    expect(body.scope).toBe("finance:read");
    expect(body.access_token).toMatch(/^llat_/);
    expect(body.refresh_token).toMatch(/^llrt_/);
    const rows = await db.select().from(oauthTokens).where(eq(oauthTokens.userId, user.userId));
    expect(rows.map((r) => r.tokenHash).sort()).toEqual(
      [hashSecret(body.access_token), hashSecret(body.refresh_token!)].sort(),
    );
    const refresh = rows.find((r) => r.kind === "refresh")!;
    const days = (refresh.expiresAt.getTime() - refresh.createdAt.getTime()) / 86_400_000;
    expect(days).toBeGreaterThan(89.9);
    expect(days).toBeLessThan(90.1);
    expect(JSON.stringify(rows)).not.toContain(body.access_token);
    const verified = await verifyBearerToken(db, body.access_token, mcpResource());
    expect(verified?.userId).toBe(user.userId);
  });

  it("wrong verifier → invalid_grant, and the code still works with the right one", async () => {
    const { exchange } = await codeSetup();
    await expectOAuthError(await exchange({ code_verifier: pkcePair().verifier }), 400, "invalid_grant");
    await expectOAuthError(await exchange({ code_verifier: "short" }), 400, "invalid_grant");
    expect((await exchange()).status).toBe(200);
  });

  it("missing verifier → invalid_grant", async () => {
    const { exchange } = await codeSetup();
    await expectOAuthError(await exchange({ code_verifier: undefined }), 400, "invalid_grant");
  });

  it("a verifier when no challenge was sent → rejected", async () => {
    // The authorize step refuses requests without a challenge, so such a code can only be a
    // legacy or forged row; the token endpoint must still refuse to redeem it with a verifier.
    const { db, user, client, exchange } = await codeSetup();
    const [grant] = await db.select().from(oauthGrants).where(eq(oauthGrants.userId, user.userId));
    const code = `llac_${"A".repeat(43)}`;
    await db.insert(oauthCodes).values({
      codeHash: hashSecret(code),
      grantId: grant!.id,
      clientId: client.clientId,
      userId: user.userId,
      redirectUri: client.redirectUri,
      codeChallenge: "",
      resource: mcpResource(),
      scope: "finance:read",
      expiresAt: new Date(Date.now() + 60_000),
    });
    await expectOAuthError(
      await exchange({ code, code_verifier: pkcePair().verifier }),
      400,
      "invalid_grant",
    );
  });

  it("replay: the second exchange fails with invalid_grant and revokes what the first issued", async () => {
    const { db, client, exchange } = await codeSetup();
    const first = (await (await exchange()).json()) as TokenSet;
    expect(await verifyBearerToken(db, first.access_token, mcpResource())).not.toBeNull();
    await expectOAuthError(await exchange(), 400, "invalid_grant");
    expect(await verifyBearerToken(db, first.access_token, mcpResource())).toBeNull();
    await expectOAuthError(
      await exchangeRefreshToken(first.refresh_token!, client.clientId),
      400,
      "invalid_grant",
    );
  });

  it("replay revokes tokens obtained by refreshing the first exchange's refresh token", async () => {
    const { db, client, exchange } = await codeSetup();
    const first = (await (await exchange()).json()) as TokenSet;
    const res = await exchangeRefreshToken(first.refresh_token!, client.clientId);
    expect(res.status).toBe(200);
    const second = (await res.json()) as TokenSet;
    expect(await verifyBearerToken(db, second.access_token, mcpResource())).not.toBeNull();
    await expectOAuthError(await exchange(), 400, "invalid_grant");
    expect(await verifyBearerToken(db, second.access_token, mcpResource())).toBeNull();
    await expectOAuthError(
      await exchangeRefreshToken(second.refresh_token!, client.clientId),
      400,
      "invalid_grant",
    );
  });

  it("two exchanges of one code at once: exactly one succeeds", async () => {
    const { exchange } = await codeSetup();
    const results = await Promise.all([exchange(), exchange(), exchange()]);
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 200)) await expectOAuthError(r, 400, "invalid_grant");
  });

  it("expired code → invalid_grant", async () => {
    const { db, code, exchange } = await codeSetup();
    await db
      .update(oauthCodes)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(oauthCodes.codeHash, hashSecret(code)));
    await expectOAuthError(await exchange(), 400, "invalid_grant");
  });

  it("a code is bound to its client, redirect URI and resource", async () => {
    const { exchange } = await codeSetup();
    const other = await registerClient();
    await expectOAuthError(await exchange({ client_id: other.clientId }), 400, "invalid_grant");
    await expectOAuthError(await exchange({ redirect_uri: `${other.redirectUri}` }), 400, "invalid_grant");
    await expectOAuthError(await exchange({ redirect_uri: undefined }), 400, "invalid_grant");
    await expectOAuthError(
      await exchange({ resource: "https://evil.example/api/mcp" }),
      400,
      "invalid_target",
    );
    // None of those burned the code.
    expect((await exchange()).status).toBe(200);
  });

  it("unknown code, unknown client, unsupported grant type, wrong content type", async () => {
    const { exchange } = await codeSetup();
    await expectOAuthError(await exchange({ code: `llac_${"B".repeat(43)}` }), 400, "invalid_grant");
    await expectOAuthError(await exchange({ code: "garbage" }), 400, "invalid_grant");
    await expectOAuthError(await exchange({ client_id: "nobody" }), 401, "invalid_client");
    await expectOAuthError(await exchange({ grant_type: "password" }), 400, "unsupported_grant_type");
    await expectOAuthError(
      await exchange({ grant_type: "client_credentials" }),
      400,
      "unsupported_grant_type",
    );
    const { POST } = await import("@/app/api/oauth/token/route");
    const json = await POST(
      new Request("http://localhost:3000/api/oauth/token", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ grant_type: "authorization_code" }),
      }),
    );
    await expectOAuthError(json, 400, "invalid_request");
  });

  it("confidential clients authenticate with client_secret_basic or client_secret_post; a wrong secret is invalid_client", async () => {
    const db = getDb();
    const user = await createSignedInUser(db);
    const client = await registerClient({ token_endpoint_auth_method: "client_secret_basic" });
    const basic = (id: string, secret: string) =>
      `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`;
    const run = async (auth: "basic" | "post" | "wrong" | "none") => {
      const { verifier, challenge } = pkcePair();
      const code = await obtainCode(user, client, challenge);
      const form: Record<string, string> = {
        grant_type: "authorization_code",
        code,
        code_verifier: verifier,
        redirect_uri: client.redirectUri,
      };
      const headers: Record<string, string> = {};
      if (auth === "basic") headers.authorization = basic(client.clientId, client.clientSecret!);
      if (auth === "wrong") headers.authorization = basic(client.clientId, "llcs_wrong");
      if (auth === "post")
        Object.assign(form, { client_id: client.clientId, client_secret: client.clientSecret! });
      if (auth === "none") form.client_id = client.clientId;
      return token(form, headers);
    };
    expect((await run("basic")).status).toBe(200);
    expect((await run("post")).status).toBe(200);
    const wrong = await run("wrong");
    expect(wrong.headers.get("www-authenticate")).toContain("Basic");
    await expectOAuthError(wrong, 401, "invalid_client");
    await expectOAuthError(await run("none"), 401, "invalid_client");
  });
});

describe("token: refresh_token", () => {
  it("rotates on every use; the new pair works and the old refresh token does not", async () => {
    const db = getDb();
    const { client, tokens } = await obtainTokens(db);
    const res = await exchangeRefreshToken(tokens.refresh_token!, client.clientId);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const next = (await res.json()) as TokenSet;
    expect(next.refresh_token).not.toBe(tokens.refresh_token);
    expect(next.access_token).not.toBe(tokens.access_token);
    expect(await verifyBearerToken(db, next.access_token, mcpResource())).not.toBeNull();
    const again = await exchangeRefreshToken(next.refresh_token!, client.clientId);
    expect(again.status).toBe(200);
  });

  it("a rotated refresh token works again within the 30 s grace: a working pair of the same grant", async () => {
    const db = getDb();
    const { user, client, tokens } = await obtainTokens(db);
    const first = (await (
      await exchangeRefreshToken(tokens.refresh_token!, client.clientId)
    ).json()) as TokenSet;
    const retried = await exchangeRefreshToken(tokens.refresh_token!, client.clientId);
    expect(retried.status).toBe(200);
    const second = (await retried.json()) as TokenSet;
    for (const pair of [first, second]) {
      expect(await verifyBearerToken(db, pair.access_token, mcpResource())).not.toBeNull();
    }
    const grants = await db.select().from(oauthGrants).where(eq(oauthGrants.userId, user.userId));
    expect(grants).toHaveLength(1);
    expect(grants[0]?.revokedAt).toBeNull();
    // Both new refresh tokens belong to the one grant and work.
    expect((await exchangeRefreshToken(first.refresh_token!, client.clientId)).status).toBe(200);
    expect((await exchangeRefreshToken(second.refresh_token!, client.clientId)).status).toBe(200);
  });

  it("reuse after the grace fails and revokes the grant", async () => {
    const db = getDb();
    const { user, client, tokens } = await obtainTokens(db);
    const rotated = (await (
      await exchangeRefreshToken(tokens.refresh_token!, client.clientId)
    ).json()) as TokenSet;
    // The rotation happened 31 seconds ago.
    await db
      .update(oauthTokens)
      .set({ usedAt: new Date(Date.now() - 31_000) })
      .where(eq(oauthTokens.tokenHash, hashSecret(tokens.refresh_token!)));
    await expectOAuthError(
      await exchangeRefreshToken(tokens.refresh_token!, client.clientId),
      400,
      "invalid_grant",
    );
    expect(await verifyBearerToken(db, rotated.access_token, mcpResource())).toBeNull();
    expect(await verifyBearerToken(db, tokens.access_token, mcpResource())).toBeNull();
    await expectOAuthError(
      await exchangeRefreshToken(rotated.refresh_token!, client.clientId),
      400,
      "invalid_grant",
    );
    const [grant] = await db.select().from(oauthGrants).where(eq(oauthGrants.userId, user.userId));
    expect(grant?.revokedAt).not.toBeNull();
  });

  it("a grant ends a year after consent: refresh and its access tokens then fail; keeping it or approving again renews the year", async () => {
    const db = getDb();
    const { user, client, tokens } = await obtainTokens(db);
    const [grant] = await db.select().from(oauthGrants).where(eq(oauthGrants.userId, user.userId));
    // Approval sets the end a year ahead.
    expect(Math.round((grant!.expiresAt.getTime() - grant!.createdAt.getTime()) / 86_400_000)).toBe(365);
    const ended = new Date(Date.now() - 1_000);
    await db.update(oauthGrants).set({ expiresAt: ended }).where(eq(oauthGrants.id, grant!.id));
    expect(await verifyBearerToken(db, tokens.access_token, mcpResource())).toBeNull();
    expect(await listConnectedApps(db, user.userId)).toEqual([]);
    // An ended grant cannot be kept: the app must ask again.
    expect(await keepGrant(db, grant!.id, user.userId)).toBeNull();
    const answer = await exchangeRefreshToken(tokens.refresh_token!, client.clientId);
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({
      error: "invalid_grant",
      error_description: expect.stringContaining("365 days"),
    });

    // Kept a day before its end: a year from that day, and refresh works.
    const second = await obtainTokens(db);
    const [live] = await db.select().from(oauthGrants).where(eq(oauthGrants.userId, second.user.userId));
    await db
      .update(oauthGrants)
      .set({ expiresAt: new Date(Date.now() + 86_400_000) })
      .where(eq(oauthGrants.id, live!.id));
    expect(await keepGrant(db, live!.id, user.userId)).toBeNull(); // not this user's grant
    const now = new Date();
    const kept = await keepGrant(db, live!.id, second.user.userId, now);
    expect(kept?.getTime()).toBe(now.getTime() + 365 * 86_400_000);
    const [app] = await listConnectedApps(db, second.user.userId);
    expect(app?.expiresAt.getTime()).toBe(kept?.getTime());
    expect((await exchangeRefreshToken(second.tokens.refresh_token!, second.client.clientId)).status).toBe(
      200,
    );

    // Approving the same client again starts the year afresh too.
    await db
      .update(oauthGrants)
      .set({ expiresAt: new Date(Date.now() + 60_000) })
      .where(eq(oauthGrants.id, live!.id));
    await obtainTokens(db, second.user, second.client);
    const [renewed] = await db.select().from(oauthGrants).where(eq(oauthGrants.id, live!.id));
    expect(renewed!.expiresAt.getTime()).toBeGreaterThan(Date.now() + 364 * 86_400_000);
  });

  it("racing refreshes with one token: each gets a working pair of the same grant", async () => {
    const db = getDb();
    const { user, client, tokens } = await obtainTokens(db);
    const attempt = () => exchangeRefreshToken(tokens.refresh_token!, client.clientId);
    const results = await Promise.all([attempt(), attempt(), attempt(), attempt()]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    for (const r of results) {
      const pair = (await r.json()) as TokenSet;
      expect(await verifyBearerToken(db, pair.access_token, mcpResource())).not.toBeNull();
    }
    const grants = await db.select().from(oauthGrants).where(eq(oauthGrants.userId, user.userId));
    expect(grants.map((g) => g.revokedAt)).toEqual([null]);
    const minted = await db
      .select()
      .from(oauthTokens)
      .where(and(eq(oauthTokens.userId, user.userId), eq(oauthTokens.kind, "refresh")));
    expect(minted).toHaveLength(5);
  });

  it("refresh cannot widen scope (invalid_scope) but may repeat it", async () => {
    const db = getDb();
    const { client, tokens } = await obtainTokens(db);
    await expectOAuthError(
      await exchangeRefreshToken(tokens.refresh_token!, client.clientId, {
        scope: "finance:read finance:write",
      }),
      400,
      "invalid_scope",
    );
    const same = await exchangeRefreshToken(tokens.refresh_token!, client.clientId, {
      scope: "finance:read",
    });
    expect(same.status).toBe(200);
    expect(((await same.json()) as TokenSet).scope).toBe("finance:read");
  });

  it("another client cannot use the refresh token; an access token is not a refresh token", async () => {
    const db = getDb();
    const { client, tokens } = await obtainTokens(db);
    const other = await registerClient();
    await expectOAuthError(
      await exchangeRefreshToken(tokens.refresh_token!, other.clientId),
      400,
      "invalid_grant",
    );
    await expectOAuthError(
      await exchangeRefreshToken(tokens.access_token, client.clientId),
      400,
      "invalid_grant",
    );
    // The foreign attempt did not burn it.
    expect((await exchangeRefreshToken(tokens.refresh_token!, client.clientId)).status).toBe(200);
  });

  it("an expired refresh token → invalid_grant; a client without the refresh grant gets no refresh token", async () => {
    const db = getDb();
    const { client, tokens } = await obtainTokens(db);
    await db
      .update(oauthTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(oauthTokens.tokenHash, hashSecret(tokens.refresh_token!)));
    await expectOAuthError(
      await exchangeRefreshToken(tokens.refresh_token!, client.clientId),
      400,
      "invalid_grant",
    );
    const noRefresh = await registerClient({ grant_types: ["authorization_code"] });
    const { tokens: only } = await obtainTokens(db, undefined, noRefresh);
    expect(only.refresh_token).toBeUndefined();
  });

  it("token lifetimes follow OAUTH_ACCESS_TOKEN_TTL_SECONDS and OAUTH_REFRESH_TOKEN_TTL_SECONDS", async () => {
    const db = getDb();
    process.env.OAUTH_ACCESS_TOKEN_TTL_SECONDS = "120";
    process.env.OAUTH_REFRESH_TOKEN_TTL_SECONDS = "7200";
    resetEnvCache();
    try {
      const { user, tokens } = await obtainTokens(db);
      expect(tokens.expires_in).toBe(120);
      const rows = await db.select().from(oauthTokens).where(eq(oauthTokens.userId, user.userId));
      for (const row of rows) {
        const seconds = Math.round((row.expiresAt.getTime() - row.createdAt.getTime()) / 1000);
        expect(Math.abs(seconds - (row.kind === "access" ? 120 : 7200))).toBeLessThanOrEqual(2);
      }
    } finally {
      delete process.env.OAUTH_ACCESS_TOKEN_TTL_SECONDS;
      delete process.env.OAUTH_REFRESH_TOKEN_TTL_SECONDS;
      resetEnvCache();
    }
  });
});
