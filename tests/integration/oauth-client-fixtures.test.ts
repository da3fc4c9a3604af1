/**
 * The assistants people use, connecting the way they really do: Cursor, VS Code, Claude (the
 * claude.ai custom connector and Claude Code) and ChatGPT. Each fixture sends that client's own
 * requests over real HTTP to the real routes (tests/helpers/serve.ts): the unauthenticated MCP
 * call and its 401, discovery, registration (RFC 7591) or its client metadata document (CIMD),
 * the authorization request, the consent a signed-in person approves, the token request with
 * the client's own authentication, then a `tools/call` through a real MCP client
 * (@modelcontextprotocol/sdk) and a refresh, and a second `tools/call` with the refreshed token.
 *
 * Where each request's shape comes from is said above it. Documents are served from a loopback
 * origin named in OAUTH_CIMD_TEST_ORIGINS; the https URL the client really publishes is given in
 * a comment. The consent screen itself (the page) is driven in Chromium by tests/e2e/oauth.test.ts;
 * here the person's approval is the page's form POST with their session cookie and its CSRF token,
 * after the same validation the page runs.
 */
import { createHash, randomBytes } from "node:crypto";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { sessions } from "@/db/schema";
import { validateAuthorizationRequest } from "@/lib/oauth/authorize";
import { consentCsrfToken } from "@/lib/oauth/session";
import { useDocumentServer } from "../helpers/client-documents";
// Aliased: Biome reads a `use…` call at module level as a React hook.
import { useTestDatabase } from "../helpers/db";
import { connectSdkClient, createUserInState } from "../helpers/mcp-client";
import { everyAccountOf } from "../helpers/oauth";
import { type ServedRoutes, serveRoutes } from "../helpers/serve";

const getDb = useTestDatabase();
const documents = useDocumentServer();

let server: ServedRoutes;
let mcpUrl: string;
beforeAll(async () => {
  server = await serveRoutes({
    "/api/mcp": () => import("@/app/api/mcp/route"),
    "/.well-known/oauth-protected-resource/api/mcp": () =>
      import("@/app/.well-known/oauth-protected-resource/api/mcp/route"),
    "/.well-known/oauth-authorization-server": () =>
      import("@/app/.well-known/oauth-authorization-server/route"),
    "/api/oauth/register": () => import("@/app/api/oauth/register/route"),
    "/api/oauth/authorize": () => import("@/app/api/oauth/authorize/route"),
    "/api/oauth/token": () => import("@/app/api/oauth/token/route"),
  });
  mcpUrl = server.url("/api/mcp");
});

const pkce = () => {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
};

const tokenSchema = z.object({
  access_token: z.string(),
  token_type: z.literal("Bearer"),
  expires_in: z.number(),
  refresh_token: z.string(),
  scope: z.string(),
});

interface Person {
  userId: string;
  cookie: string;
  sessionToken: string;
}

/** A person with an active subscription and two linked banks, signed in (an Auth.js session). */
async function signedInPersonWithData(): Promise<Person> {
  const db = getDb();
  const { userId } = await createUserInState(db, "active");
  const sessionToken = randomBytes(32).toString("hex");
  await db.insert(sessions).values({ sessionToken, userId, expires: new Date(Date.now() + 3600_000) });
  return { userId, sessionToken, cookie: `authjs.session-token=${sessionToken}` };
}

/**
 * What every client does first (MCP authorization, "Authorization Server Discovery"): call the
 * endpoint, read the 401's challenge, fetch the protected-resource and authorization-server
 * metadata it points to.
 */
async function discover() {
  const unauthorized = await fetch(mcpUrl, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "probe", version: "1" },
      },
    }),
  });
  expect(unauthorized.status).toBe(401);
  const challenge = unauthorized.headers.get("www-authenticate") ?? "";
  const resourceMetadata = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
  const scope = /scope="([^"]+)"/.exec(challenge)?.[1];
  expect(scope).toBe("finance:read");
  const prm = (await (await fetch(resourceMetadata!)).json()) as {
    resource: string;
    authorization_servers: string[];
    scopes_supported: string[];
  };
  const as = (await (
    await fetch(`${prm.authorization_servers[0]}/.well-known/oauth-authorization-server`)
  ).json()) as Record<string, unknown> & {
    authorization_endpoint: string;
    token_endpoint: string;
    registration_endpoint: string;
  };
  return { scope: scope!, resource: prm.resource, as };
}

/**
 * The person at the consent screen: the page validates the request (what it shows is returned),
 * then its form posts the request back with the session's CSRF token and "approve". Returns the
 * redirect the browser is sent to.
 */
async function approve(authorizationUrl: URL, person: Person) {
  const params = authorizationUrl.searchParams;
  const shown = await validateAuthorizationRequest(getDb(), params);
  if (shown.kind !== "ok") throw new Error(`consent page refused: ${JSON.stringify(shown)}`);
  const form = new URLSearchParams(params);
  form.set("csrf_token", consentCsrfToken(person.sessionToken));
  form.set("decision", "approve");
  // Every account box ticked, as the screen shows them.
  for (const id of await everyAccountOf(person.sessionToken)) form.append("accountIds", id);
  const decided = await fetch(server.url("/api/oauth/authorize"), {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      cookie: person.cookie,
      origin: server.origin,
    },
    body: form,
    redirect: "manual",
  });
  expect(decided.status).toBe(303);
  return { shown: shown.request, back: new URL(decided.headers.get("location")!) };
}

/** A form POST to the token endpoint, as every client sends it (RFC 6749 §4.1.3, §6). */
async function tokenRequest(tokenEndpoint: string, form: Record<string, string>) {
  const res = await fetch(tokenEndpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: new URLSearchParams(form),
  });
  const body = (await res.json()) as unknown;
  expect(res.status, JSON.stringify(body)).toBe(200);
  expect(res.headers.get("cache-control")).toBe("no-store");
  return tokenSchema.parse(body);
}

/**
 * A real MCP client with the access token calls `list_accounts`: the two accounts of 123.45 each
 * from createUserInState, so assets are 2 × 12 345 cents = 246.90.
 */
async function callTools(accessToken: string) {
  const { client, close } = await connectSdkClient(mcpUrl, accessToken);
  try {
    const result = await client.callTool({ name: "list_accounts", arguments: {} });
    expect(result.isError ?? false).toBe(false);
    const envelope = result.structuredContent as {
      status: string;
      data: {
        accounts: { name: string; current_balance: number }[];
        totals: { currency: string; assets: number }[];
      };
    };
    expect(envelope.status).toBe("ok");
    expect(envelope.data.accounts.map((a) => a.name).sort()).toEqual([
      "First Platypus Bank Checking",
      "Tartan Credit Union Checking",
    ]);
    expect(envelope.data.totals).toEqual([
      expect.objectContaining({ currency: "USD", assets: (2 * 12_345) / 100 }),
    ]);
  } finally {
    await close();
  }
}

/** The code and state from the redirect, which also names us (RFC 9207 `iss`). */
function codeFrom(back: URL, redirectUri: string, state: string) {
  expect(back.href.split("?")[0]).toBe(redirectUri);
  expect(back.searchParams.get("state")).toBe(state);
  expect(back.searchParams.get("iss")).toBe(server.origin);
  const code = back.searchParams.get("code");
  expect(code).toMatch(/^llac_/);
  return code!;
}

describe("Cursor (Dynamic Client Registration, public client)", () => {
  it("registers its three redirect URIs in one request, authorizes on localhost:8787, calls a tool, refreshes", async () => {
    const person = await signedInPersonWithData();
    const { scope, resource, as } = await discover();

    // Registration. The three redirect URIs in one body: Cursor's docs (cursor.com/docs/context/mcp:
    // "Web and Cursor Agents: https://www.cursor.com/agents/mcp/oauth/callback; Desktop app:
    // http://localhost:8787/callback") and the registration body quoted in public reports
    // (erp-mafia/accounted#2225, soflyy/agent-connector-for-wp#111, issue 33), with the legacy
    // cursor:// scheme first. A public client (token_endpoint_auth_method none, different-ai/openwork#3059).
    const registration = await fetch(as.registration_endpoint, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: "Cursor",
        redirect_uris: [
          "cursor://anysphere.cursor-mcp/oauth/callback",
          "https://www.cursor.com/agents/mcp/oauth/callback",
          "http://localhost:8787/callback",
        ],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      }),
    });
    expect(registration.status).toBe(201);
    const client = (await registration.json()) as {
      client_id: string;
      redirect_uris: string[];
      scope: string;
    };
    expect(client.redirect_uris).toHaveLength(3);
    expect(client.scope).toBe("finance:read");

    // Authorization: the desktop app's loopback callback (since Cursor 3.10.17), PKCE S256, the
    // scope from the 401 challenge, resource (RFC 8707), as the MCP TypeScript SDK builds it.
    const redirectUri = "http://localhost:8787/callback";
    const { verifier, challenge } = pkce();
    const state = randomBytes(16).toString("base64url");
    const url = new URL(as.authorization_endpoint);
    url.search = new URLSearchParams({
      response_type: "code",
      client_id: client.client_id,
      code_challenge: challenge,
      code_challenge_method: "S256",
      redirect_uri: redirectUri,
      state,
      scope,
      resource,
    }).toString();
    const { shown, back } = await approve(url, person);
    expect(shown.client.clientName).toBe("Cursor");
    expect(shown.client.documentExpiresAt).toBeNull();
    const code = codeFrom(back, redirectUri, state);

    // Token and refresh, public client: client_id in the body, resource again.
    const tokens = await tokenRequest(as.token_endpoint, {
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      redirect_uri: redirectUri,
      client_id: client.client_id,
      resource,
    });
    expect(tokens.scope).toBe("finance:read");
    await callTools(tokens.access_token);
    const refreshed = await tokenRequest(as.token_endpoint, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: client.client_id,
      resource,
    });
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    await callTools(refreshed.access_token);
  });
});

describe("VS Code (Client ID Metadata Document, public client)", () => {
  it("is known by its document, authorizes on 127.0.0.1:33418, calls a tool, refreshes", async () => {
    const person = await signedInPersonWithData();
    const { scope, resource, as } = await discover();
    expect(as.client_id_metadata_document_supported).toBe(true);

    // The document VS Code publishes at https://vscode.dev/oauth/client-metadata.json (microsoft/vscode#270811;
    // its contents as fetched and quoted in public server docs, September 2026), served here from loopback.
    const path = "/oauth/client-metadata.json";
    const clientId = documents().url(path);
    documents().publish(path, {
      headers: { "cache-control": "public, max-age=3600" },
      body: {
        client_name: "Visual Studio Code",
        logo_uri: "https://code.visualstudio.com/assets/branding/code-stable.png",
        grant_types: ["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
        application_type: "native",
        client_id: clientId,
        client_uri: "https://vscode.dev/product",
        redirect_uris: ["http://127.0.0.1:33418/", "https://vscode.dev/redirect"],
      },
    });

    // Authorization as VS Code sends it (a public server log of VS Code against a CIMD server:
    // client_id, response_type, code_challenge, S256, scope, resource, redirect_uri
    // http://127.0.0.1:33418/, state), its loopback server on port 33418.
    const redirectUri = "http://127.0.0.1:33418/";
    const { verifier, challenge } = pkce();
    const state = randomBytes(16).toString("base64");
    const url = new URL(as.authorization_endpoint);
    url.search = new URLSearchParams({
      client_id: clientId,
      response_type: "code",
      code_challenge: challenge,
      code_challenge_method: "S256",
      scope,
      resource,
      redirect_uri: redirectUri,
      state,
    }).toString();
    const { shown, back } = await approve(url, person);
    expect(shown.client.clientName).toBe("Visual Studio Code");
    expect(shown.client.documentExpiresAt).not.toBeNull();
    // The device_code grant VS Code also lists is simply not used.
    expect(shown.client.grantTypes).toEqual(["authorization_code", "refresh_token"]);
    const code = codeFrom(back, redirectUri, state);

    // Token and refresh: a public client. VS Code's token requests carry resource per the
    // 2025-06-18 authorization spec (RFC 8707); our server accepts them with or without.
    const tokens = await tokenRequest(as.token_endpoint, {
      grant_type: "authorization_code",
      code,
      redirect_uri: redirectUri,
      client_id: clientId,
      code_verifier: verifier,
      resource,
    });
    await callTools(tokens.access_token);
    const refreshed = await tokenRequest(as.token_endpoint, {
      client_id: clientId,
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      resource,
    });
    await callTools(refreshed.access_token);
    // One fetch of the document served every step (cached for its max-age of an hour).
    expect(documents().hits(path)).toBe(1);
  });
});

describe("Claude: the claude.ai custom connector (Dynamic Client Registration, client_secret_post)", () => {
  it("registers https://claude.ai/api/mcp/auth_callback, authenticates with its secret in the body, calls a tool, refreshes", async () => {
    const person = await signedInPersonWithData();
    const { scope, resource, as } = await discover();

    // The registration claude.ai's backend sends, as captured by server developers
    // (PostHog/posthog#48397, anthropics/claude-ai-mcp#1043): a confidential client,
    // client_secret_post, one redirect URI.
    const registration = await fetch(as.registration_endpoint, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        redirect_uris: ["https://claude.ai/api/mcp/auth_callback"],
        token_endpoint_auth_method: "client_secret_post",
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        client_name: "Claude",
      }),
    });
    expect(registration.status).toBe(201);
    const client = (await registration.json()) as { client_id: string; client_secret: string };
    expect(client.client_secret).toMatch(/^llcs_/);

    // Authorization with PKCE and resource, the redirect to claude.ai's callback
    // (claude.com/docs/connectors/building/authentication).
    const redirectUri = "https://claude.ai/api/mcp/auth_callback";
    const { verifier, challenge } = pkce();
    const state = randomBytes(24).toString("base64url");
    const url = new URL(as.authorization_endpoint);
    url.search = new URLSearchParams({
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: redirectUri,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state,
      scope,
      resource,
    }).toString();
    const { shown, back } = await approve(url, person);
    expect(shown.client.clientName).toBe("Claude");
    const code = codeFrom(back, redirectUri, state);

    // Token and refresh with client_secret_post: the secret in the form body, never Basic
    // (anthropics/claude-ai-mcp#667).
    const tokens = await tokenRequest(as.token_endpoint, {
      grant_type: "authorization_code",
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
      client_id: client.client_id,
      client_secret: client.client_secret,
      resource,
    });
    await callTools(tokens.access_token);
    const refreshed = await tokenRequest(as.token_endpoint, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: client.client_id,
      client_secret: client.client_secret,
      resource,
    });
    await callTools(refreshed.access_token);
  });
});

describe("Claude Code (Client ID Metadata Document with portless loopback redirects)", () => {
  it("lists http://localhost/callback, comes back on an ephemeral port, asks for offline_access, calls a tool, refreshes", async () => {
    const person = await signedInPersonWithData();
    const { scope, resource, as } = await discover();

    // The document Claude Code publishes at https://claude.ai/oauth/claude-code-client-metadata, as
    // quoted in anthropics/claude-code#42301, #44429 and #37747: portless loopback redirect URIs.
    const path = "/oauth/claude-code-client-metadata";
    const clientId = documents().url(path);
    documents().publish(path, {
      body: {
        client_id: clientId,
        client_name: "Claude Code",
        client_uri: "https://claude.ai",
        redirect_uris: ["http://localhost/callback", "http://127.0.0.1/callback"],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      },
    });

    // Authorization: its callback server listens on an ephemeral port (http://localhost:55611/callback
    // in anthropics/claude-code#44429); offline_access is appended to the scope (code.claude.com/docs/en/mcp);
    // resource is the server URL (anthropics/claude-code#76096).
    const redirectUri = "http://localhost:55611/callback";
    const { verifier, challenge } = pkce();
    const state = randomBytes(32).toString("base64url");
    const url = new URL(as.authorization_endpoint);
    url.search = new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      code_challenge: challenge,
      code_challenge_method: "S256",
      redirect_uri: redirectUri,
      state,
      scope: `${scope} offline_access`,
      resource,
    }).toString();
    const { shown, back } = await approve(url, person);
    expect(shown.client.clientName).toBe("Claude Code");
    expect(shown.scope).toBe("finance:read");
    const code = codeFrom(back, redirectUri, state);

    const tokens = await tokenRequest(as.token_endpoint, {
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      redirect_uri: redirectUri,
      client_id: clientId,
      resource,
    });
    // offline_access changed nothing: the granted scope says so, and a refresh token came anyway.
    expect(tokens.scope).toBe("finance:read");
    await callTools(tokens.access_token);
    const refreshed = await tokenRequest(as.token_endpoint, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: clientId,
      resource,
    });
    await callTools(refreshed.access_token);
  });
});

describe("ChatGPT (Client ID Metadata Document, private_key_jwt)", () => {
  let key: CryptoKey;
  let publicJwk: JWK;
  // The key id ChatGPT's JWK Set carried when engram-app/Engram#1633 looked (2026-09); the key
  // pair is this test's own.
  const KID = "cimd-20260428030119";
  beforeAll(async () => {
    const pair = await generateKeyPair("RS256");
    key = pair.privateKey;
    publicJwk = { ...(await exportJWK(pair.publicKey)), kid: KID, alg: "RS256", use: "sig" };
  });

  /**
   * ChatGPT's client assertion (RFC 7523 §3, OpenID Connect Core §9): iss = sub = client_id, aud =
   * our token endpoint (the value a real ChatGPT /token request carried, as reported publicly),
   * exp, a fresh jti, iat; RS256 with its kid.
   */
  function clientAssertion(clientId: string, tokenEndpoint: string) {
    return new SignJWT({ jti: randomBytes(16).toString("hex") })
      .setProtectedHeader({ alg: "RS256", kid: KID, typ: "JWT" })
      .setIssuer(clientId)
      .setSubject(clientId)
      .setAudience(tokenEndpoint)
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(key);
  }

  it("is known by its document, signs its token requests with its published key, calls a tool, refreshes", async () => {
    const person = await signedInPersonWithData();
    const { scope, resource, as } = await discover();
    expect(as.token_endpoint_auth_methods_supported).toContain("private_key_jwt");

    // https://chatgpt.com/oauth/jwks.json and https://chatgpt.com/oauth/client.json, the document's
    // members as quoted in django-oauth/django-oauth-toolkit#1845 (2026-08).
    documents().publish("/oauth/jwks.json", { body: { keys: [publicJwk] } });
    const clientId = documents().url("/oauth/client.json");
    documents().publish("/oauth/client.json", {
      body: {
        client_id: clientId,
        client_uri: "https://chatgpt.com/",
        redirect_uris: ["https://chatgpt.com/connector_platform_oauth_redirect"],
        token_endpoint_auth_method: "private_key_jwt",
        token_endpoint_auth_methods_supported: ["none", "private_key_jwt"],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        client_name: "ChatGPT",
        logo_uri: "https://persistent.oaistatic.com/sonic/misc/openai-logo.png",
        token_endpoint_auth_signing_alg: "RS256",
        jwks_uri: documents().url("/oauth/jwks.json"),
      },
    });

    // Authorization: the stable redirect, used when the server supports RFC 9207 iss; resource
    // on the authorization and the token requests (developers.openai.com/plugins/build/auth).
    expect(as.authorization_response_iss_parameter_supported).toBe(true);
    const redirectUri = "https://chatgpt.com/connector_platform_oauth_redirect";
    const { verifier, challenge } = pkce();
    const state = randomBytes(24).toString("base64url");
    const url = new URL(as.authorization_endpoint);
    url.search = new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: redirectUri,
      scope,
      state,
      code_challenge: challenge,
      code_challenge_method: "S256",
      resource,
    }).toString();
    const { shown, back } = await approve(url, person);
    expect(shown.client.clientName).toBe("ChatGPT");
    expect(shown.client.tokenEndpointAuthMethod).toBe("private_key_jwt");
    const code = codeFrom(back, redirectUri, state);

    const tokens = await tokenRequest(as.token_endpoint, {
      grant_type: "authorization_code",
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
      resource,
      client_id: clientId,
      client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
      client_assertion: await clientAssertion(clientId, as.token_endpoint),
    });
    await callTools(tokens.access_token);
    const refreshed = await tokenRequest(as.token_endpoint, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      resource,
      client_id: clientId,
      client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
      client_assertion: await clientAssertion(clientId, as.token_endpoint),
    });
    await callTools(refreshed.access_token);
    // Without its signature the same refresh token gets nothing.
    const unsigned = await fetch(as.token_endpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: refreshed.refresh_token,
        client_id: clientId,
      }),
    });
    expect(unsigned.status).toBe(401);
    // The document and its keys were each fetched once for the whole flow (cached five minutes:
    // the document says nothing about caching).
    expect(documents().hits("/oauth/client.json")).toBe(1);
    expect(documents().hits("/oauth/jwks.json")).toBe(1);
  });
});
