import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { GET as metadataGet } from "@/app/.well-known/oauth-authorization-server/route";
import { oauthClients } from "@/db/schema";
import { hashSecret } from "@/lib/api-keys";
// Aliased: Biome reads a `use…` call at module level as a React hook.
import { useTestDatabase } from "../helpers/db";
import {
  appUrl,
  createSignedInUser,
  obtainTokens,
  pkcePair,
  register,
  registerClient,
} from "../helpers/oauth";

const getDb = useTestDatabase();

describe("authorization-server metadata (RFC 8414)", () => {
  it("advertises S256 only, code only, the two grants, the endpoints and the scopes", async () => {
    const res = metadataGet();
    expect(res.status).toBe(200);
    const meta = (await res.json()) as Record<string, unknown>;
    const base = appUrl();
    expect(meta.issuer).toBe(base);
    expect(meta.authorization_endpoint).toBe(`${base}/oauth/authorize`);
    expect(meta.token_endpoint).toBe(`${base}/api/oauth/token`);
    expect(meta.registration_endpoint).toBe(`${base}/api/oauth/register`);
    expect(meta.revocation_endpoint).toBe(`${base}/api/oauth/revoke`);
    expect(meta.response_types_supported).toEqual(["code"]);
    expect(meta.grant_types_supported).toEqual(["authorization_code", "refresh_token"]);
    expect(meta.code_challenge_methods_supported).toEqual(["S256"]);
    expect(meta.token_endpoint_auth_methods_supported).toEqual([
      "none",
      "client_secret_post",
      "client_secret_basic",
      "private_key_jwt",
    ]);
    expect(meta.token_endpoint_auth_signing_alg_values_supported).toContain("RS256");
    expect(meta.token_endpoint_auth_signing_alg_values_supported).not.toContain("HS256");
    expect(meta.client_id_metadata_document_supported).toBe(true);
    // offline_access changes nothing (refresh tokens come with the refresh_token grant): not listed.
    expect(meta.scopes_supported).toEqual(["finance:read"]);
  });
});

describe("dynamic client registration (RFC 7591)", () => {
  const badRedirects = [
    "javascript:alert(1)",
    "JavaScript:alert(1)",
    " javascript:alert(1)",
    "\tjavascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "DATA:text/html,hi",
    " data:text/html,hi",
    "file:///etc/passwd",
    "FILE:///etc/passwd",
    " file:///etc/passwd",
    "vbscript:msgbox(1)",
    "ftp://example.com/cb",
    "myapp://callback",
    // Private-use schemes must be in reverse-DNS form; browser and system schemes never are.
    "cursor://callback",
    "cursor:oauth/callback",
    "javascript://example.com/%0aalert(1)",
    "JAVASCRIPT://example.com/%0aalert(1)",
    "data://example.com/x",
    "file://example.com/etc/passwd",
    "intent://example.com/x",
    "wss://example.com/cb",
    "about:blank",
    " cursor://anysphere.cursor-mcp/oauth/callback",
    "cursor://anysphere.cursor-mcp/oauth/callback#x",
    "https://example.com/cb#fragment",
    "https://example.com/cb#",
    "http://example.com/cb",
    "HTTP://example.com/cb",
    "http://127.0.0.1.example.com/cb",
    "http://192.168.1.10/cb",
    " https://example.com/cb",
    "https://example.com/cb ",
    "https://user:pass@example.com/cb",
    "/relative/callback",
    "",
  ];
  it.each(badRedirects)("rejects redirect URI %j with 400 invalid_redirect_uri", async (uri) => {
    const res = await register({ redirect_uris: [uri], token_endpoint_auth_method: "none" });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; error_description: string };
    expect(body.error).toBe("invalid_redirect_uri");
    expect(body.error_description.length).toBeGreaterThan(0);
  });

  it("rejects a bad URI hidden among good ones", async () => {
    const res = await register({ redirect_uris: ["https://example.com/cb", "javascript:alert(1)"] });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe("invalid_redirect_uri");
  });

  it.each([
    "https://example.com/cb",
    "http://127.0.0.1:8080/cb",
    "http://[::1]:8080/cb",
    "http://localhost:33418/cb",
  ])("accepts %s", async (uri) => {
    const res = await register({ redirect_uris: [uri], token_endpoint_auth_method: "none" });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.redirect_uris).toEqual([uri]);
    expect(body.client_secret).toBeUndefined();
  });

  it.each([
    "cursor://anysphere.cursor-mcp/oauth/callback",
    "com.example.app:/oauth2redirect",
    "vscode://vscode.github-authentication/did-authenticate",
  ])("accepts the native app's private-use scheme %s (RFC 8252 §7.1)", async (uri) => {
    const res = await register({ redirect_uris: [uri], token_endpoint_auth_method: "none" });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { redirect_uris: string[] }).redirect_uris).toEqual([uri]);
  });

  it("drops a scope we do not have and states the scope registered (RFC 6749 §3.3)", async () => {
    for (const [scope, stated] of [
      ["mcp:tools", "finance:read"],
      ["finance:read admin offline_access", "finance:read"],
      [undefined, "finance:read"],
    ]) {
      const res = await register({ redirect_uris: ["https://example.com/cb"], scope });
      expect(res.status, String(scope)).toBe(201);
      expect(((await res.json()) as { scope: string }).scope, String(scope)).toBe(stated);
    }
  });

  it("accepts application_type native or web, and names a wrong one", async () => {
    for (const applicationType of ["native", "web"]) {
      const res = await register({
        redirect_uris: ["http://127.0.0.1:9/cb"],
        token_endpoint_auth_method: "none",
        application_type: applicationType,
      });
      expect(res.status).toBe(201);
    }
    const wrong = await register({ redirect_uris: ["https://example.com/cb"], application_type: "robot" });
    expect(wrong.status).toBe(400);
    const body = (await wrong.json()) as { error: string; error_description: string };
    expect(body.error).toBe("invalid_client_metadata");
    expect(body.error_description).toContain("application_type");
  });

  it("rejects missing redirect_uris, unsupported grant types and non-JSON", async () => {
    const missing = await register({ client_name: "x" });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: string }).error).toBe("invalid_redirect_uri");
    const grant = await register({ redirect_uris: ["https://example.com/cb"], grant_types: ["implicit"] });
    expect(grant.status).toBe(400);
    expect(((await grant.json()) as { error: string }).error).toBe("invalid_client_metadata");
    const notJson = await register("redirect_uris=https://example.com", "application/x-www-form-urlencoded");
    expect(notJson.status).toBe(400);
  });

  it("registers a confidential client with a secret stored only as its SHA-256", async () => {
    const db = getDb();
    const client = await registerClient({ token_endpoint_auth_method: "client_secret_basic" });
    expect(client.clientSecret).toMatch(/^llcs_[A-Za-z0-9_-]{43}$/);
    const [row] = await db.select().from(oauthClients).where(eq(oauthClients.clientId, client.clientId));
    expect(row?.clientSecretHash).toBe(hashSecret(client.clientSecret!));
    expect(JSON.stringify(row)).not.toContain(client.clientSecret!);
  });

  it("defaults to client_secret_basic as RFC 7591 says, and answers with no-store", async () => {
    const res = await register({ redirect_uris: ["https://example.com/cb"] });
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.token_endpoint_auth_method).toBe("client_secret_basic");
    expect(typeof body.client_secret).toBe("string");
  });

  it("expires a client that never completes a grant, and keeps one that does", async () => {
    const db = getDb();
    const unused = await registerClient();
    const used = await registerClient();
    const [fresh] = await db.select().from(oauthClients).where(eq(oauthClients.clientId, unused.clientId));
    expect(fresh?.expiresAt?.getTime()).toBeGreaterThan(Date.now());

    await obtainTokens(db, await createSignedInUser(db), used);
    const [kept] = await db.select().from(oauthClients).where(eq(oauthClients.clientId, used.clientId));
    expect(kept?.expiresAt).toBeNull();

    // Once past its expiry the unused registration is as good as unknown.
    await db
      .update(oauthClients)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(oauthClients.clientId, unused.clientId));
    const { validateAuthorizationRequest } = await import("@/lib/oauth/authorize");
    const params = new URLSearchParams({
      client_id: unused.clientId,
      redirect_uri: unused.redirectUri,
      response_type: "code",
      code_challenge: pkcePair().challenge,
      code_challenge_method: "S256",
    });
    expect((await validateAuthorizationRequest(db, params)).kind).toBe("page_error");
    // The next registration cleans it up.
    await registerClient();
    const gone = await db.select().from(oauthClients).where(eq(oauthClients.clientId, unused.clientId));
    expect(gone).toHaveLength(0);
  });
});
