import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { oauthCodes, oauthGrants } from "@/db/schema";
import { hashSecret } from "@/lib/api-keys";
import { validateAuthorizationRequest } from "@/lib/oauth/authorize";
// Aliased: Biome reads a `use…` call at module level as a React hook.
import { useTestDatabase } from "../helpers/db";
import {
  appUrl,
  authorizationParams,
  createSignedInUser,
  pkcePair,
  postConsent,
  registerClient,
} from "../helpers/oauth";

const getDb = useTestDatabase();

/** Asserts a 303 to the client's redirect URI carrying `error` and the unchanged state. */
function expectRedirectError(res: Response, redirectUri: string, error: string, state?: string) {
  expect(res.status).toBe(303);
  const location = new URL(res.headers.get("location")!);
  expect(`${location.origin}${location.pathname}`).toBe(redirectUri);
  expect(location.searchParams.get("error")).toBe(error);
  expect(location.searchParams.get("code")).toBeNull();
  expect(location.searchParams.get("iss")).toBe(appUrl());
  if (state !== undefined) expect(location.searchParams.get("state")).toBe(state);
}

describe("authorize: errors before the redirect URI is trusted are pages, never redirects", () => {
  it("unknown client → error page, no Location", async () => {
    const db = getDb();
    const user = await createSignedInUser(db);
    const client = await registerClient();
    const params = authorizationParams(
      { ...client, clientId: "llci_unknownunknownunknownunknownunknownunknown" },
      pkcePair().challenge,
    );
    const res = await postConsent(user, params);
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
    expect(await res.text()).toContain("not registered");
    expect((await validateAuthorizationRequest(db, params)).kind).toBe("page_error");
  });

  it("unregistered or missing redirect URI → error page, no Location", async () => {
    const db = getDb();
    const user = await createSignedInUser(db);
    const client = await registerClient();
    for (const redirect_uri of ["https://attacker.example/cb", `${client.redirectUri}/extra`, undefined]) {
      const params = authorizationParams(client, pkcePair().challenge, { redirect_uri });
      const res = await postConsent(user, params);
      expect(res.status).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      expect((await validateAuthorizationRequest(db, params)).kind).toBe("page_error");
    }
  });

  it("a repeated parameter → error page", async () => {
    const db = getDb();
    const client = await registerClient();
    const params = authorizationParams(client, pkcePair().challenge);
    params.append("redirect_uri", "https://attacker.example/cb");
    expect((await validateAuthorizationRequest(db, params)).kind).toBe("page_error");
  });
});

describe("authorize: errors after the redirect URI is trusted go back to the client", () => {
  it("missing code_challenge → invalid_request, state unchanged", async () => {
    const db = getDb();
    const user = await createSignedInUser(db);
    const client = await registerClient();
    const params = authorizationParams(client, pkcePair().challenge, { code_challenge: undefined });
    expectRedirectError(
      await postConsent(user, params),
      client.redirectUri,
      "invalid_request",
      params.get("state")!,
    );
  });

  it("method plain, or no method (which means plain) → invalid_request", async () => {
    const db = getDb();
    const user = await createSignedInUser(db);
    const client = await registerClient();
    for (const method of ["plain", undefined, "s256"]) {
      const params = authorizationParams(client, pkcePair().challenge, { code_challenge_method: method });
      expectRedirectError(await postConsent(user, params), client.redirectUri, "invalid_request");
    }
  });

  it("response_type=token → unsupported_response_type; missing → invalid_request", async () => {
    const db = getDb();
    const user = await createSignedInUser(db);
    const client = await registerClient();
    const token = authorizationParams(client, pkcePair().challenge, { response_type: "token" });
    expectRedirectError(await postConsent(user, token), client.redirectUri, "unsupported_response_type");
    const missing = authorizationParams(client, pkcePair().challenge, { response_type: undefined });
    expectRedirectError(await postConsent(user, missing), client.redirectUri, "invalid_request");
  });

  it("a resource other than <APP_URL>/api/mcp → invalid_target", async () => {
    const db = getDb();
    const user = await createSignedInUser(db);
    const client = await registerClient();
    for (const resource of [
      "https://evil.example/api/mcp",
      `${appUrl()}/api/other`,
      `${appUrl()}/api/mcp/`,
    ]) {
      const params = authorizationParams(client, pkcePair().challenge, { resource });
      expectRedirectError(await postConsent(user, params), client.redirectUri, "invalid_target");
    }
  });

  it("a scope we do not have is dropped, not refused (RFC 6749 §3.3): the code carries what is granted", async () => {
    const db = getDb();
    const user = await createSignedInUser(db);
    const client = await registerClient();
    for (const [scope, granted] of [
      ["finance:read finance:write offline_access", "finance:read"],
      ["openid offline_access mcp:tools", "finance:read"],
    ]) {
      const params = authorizationParams(client, pkcePair().challenge, { scope });
      const res = await postConsent(user, params);
      expect(res.status).toBe(303);
      const code = new URL(res.headers.get("location")!).searchParams.get("code");
      expect(code, scope).toMatch(/^llac_/);
      const [row] = await db
        .select()
        .from(oauthCodes)
        .where(eq(oauthCodes.codeHash, hashSecret(code!)));
      expect(row?.scope, scope).toBe(granted);
    }
  });

  it("Deny → access_denied with the state", async () => {
    const db = getDb();
    const user = await createSignedInUser(db);
    const client = await registerClient();
    const params = authorizationParams(client, pkcePair().challenge);
    expectRedirectError(
      await postConsent(user, params, "deny"),
      client.redirectUri,
      "access_denied",
      params.get("state")!,
    );
    const grants = await db.select().from(oauthGrants).where(eq(oauthGrants.userId, user.userId));
    expect(grants).toHaveLength(0);
  });
});

describe("authorize: the consent decision", () => {
  it("Approve → a code for this client, state byte-for-byte, code stored as SHA-256 and bound to the request", async () => {
    const db = getDb();
    const user = await createSignedInUser(db);
    const client = await registerClient();
    const { challenge } = pkcePair();
    const state = "a b+c/d=e&f%20g~ü😀";
    const params = authorizationParams(client, challenge, { state });
    const res = await postConsent(user, params);
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get("location")!);
    expect(`${location.origin}${location.pathname}`).toBe(client.redirectUri);
    expect(location.searchParams.get("state")).toBe(state);
    const code = location.searchParams.get("code")!;
    expect(code).toMatch(/^llac_/);
    const [row] = await db
      .select()
      .from(oauthCodes)
      .where(and(eq(oauthCodes.codeHash, hashSecret(code)), eq(oauthCodes.userId, user.userId)));
    expect(row).toMatchObject({
      clientId: client.clientId,
      redirectUri: client.redirectUri,
      codeChallenge: challenge,
      resource: `${appUrl()}/api/mcp`,
      scope: "finance:read",
    });
    const lifetime = row!.expiresAt.getTime() - row!.createdAt.getTime();
    expect(lifetime).toBeGreaterThan(0);
    expect(lifetime).toBeLessThanOrEqual(10 * 60 * 1000 + 1000);
  });

  it("a loopback redirect URI may use another port (RFC 8252), nothing else may differ", async () => {
    const db = getDb();
    const user = await createSignedInUser(db);
    const client = await registerClient();
    const otherPort = client.redirectUri.replace(":49152", ":50001");
    const res = await postConsent(
      user,
      authorizationParams(client, pkcePair().challenge, { redirect_uri: otherPort }),
    );
    expect(res.status).toBe(303);
    expect(res.headers.get("location")!.startsWith(`${otherPort}?`)).toBe(true);
  });

  it("without a session → sign-in, then back to the same request; nothing issued", async () => {
    const db = getDb();
    const client = await registerClient();
    const params = authorizationParams(client, pkcePair().challenge);
    const res = await postConsent(null, params);
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get("location")!);
    expect(location.pathname).toBe("/sign-in");
    const back = new URL(location.searchParams.get("callbackUrl")!, appUrl());
    expect(back.pathname).toBe("/oauth/authorize");
    expect(back.searchParams.get("client_id")).toBe(client.clientId);
    expect(back.searchParams.get("state")).toBe(params.get("state"));
    const codes = await db.select().from(oauthCodes).where(eq(oauthCodes.clientId, client.clientId));
    expect(codes).toHaveLength(0);
  });

  it("an expired session counts as signed out", async () => {
    const db = getDb();
    const user = await createSignedInUser(db);
    const { sessions } = await import("@/db/schema");
    await db
      .update(sessions)
      .set({ expires: new Date(Date.now() - 1000) })
      .where(eq(sessions.userId, user.userId));
    const client = await registerClient();
    const res = await postConsent(user, authorizationParams(client, pkcePair().challenge));
    expect(new URL(res.headers.get("location")!).pathname).toBe("/sign-in");
  });

  it("a wrong CSRF token, another session's token, or a foreign Origin → 403, no code", async () => {
    const db = getDb();
    const user = await createSignedInUser(db);
    const other = await createSignedInUser(db);
    const client = await registerClient();
    const params = authorizationParams(client, pkcePair().challenge);
    const { consentCsrfToken } = await import("@/lib/oauth/session");
    for (const extra of [
      { csrf: "nope" },
      { csrf: consentCsrfToken(other.sessionToken) },
      { origin: "https://evil.example" },
    ]) {
      const res = await postConsent(user, params, "approve", extra);
      expect(res.status).toBe(403);
      expect(res.headers.get("location")).toBeNull();
    }
    const codes = await db.select().from(oauthCodes).where(eq(oauthCodes.clientId, client.clientId));
    expect(codes).toHaveLength(0);
  });

  it("prompt=none can never skip consent → consent_required", async () => {
    const db = getDb();
    const user = await createSignedInUser(db);
    const client = await registerClient();
    const params = authorizationParams(client, pkcePair().challenge, { prompt: "none" });
    expectRedirectError(await postConsent(user, params), client.redirectUri, "consent_required");
  });
});
