/**
 * OAuth 2.1 end to end against the production server, with two independent real clients:
 * 1. the MCP TypeScript SDK's own OAuth support (discovery from the 401, registration, PKCE,
 *    code exchange, then MCP calls), consent approved by a signed-in user in Chromium;
 * 2. oauth4webapi (discovery, registration, authorization code grant, refresh, revocation), a
 *    confidential client, consent given over HTTP with the same user's session cookie.
 * Then "Connected apps" in the dashboard revokes one, and its token stops working at once.
 */

import { promises as fs } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { type OAuthClientProvider, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import * as oauth from "oauth4webapi";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { e2eServer, launchBrowser, readSignInLink, screenshot, signIn } from "./helpers";

const server = e2eServer();

/** A loopback "app" that receives the authorization redirect. */
async function startCallbackServer() {
  const hits: URL[] = [];
  const srv = http.createServer((req, res) => {
    hits.push(new URL(req.url ?? "/", "http://127.0.0.1"));
    res.writeHead(200, { "content-type": "text/plain" }).end("You can close this window.");
  });
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const { port } = srv.address() as AddressInfo;
  return { redirectUri: `http://127.0.0.1:${port}/callback`, hits, close: () => srv.close() };
}

/** An OAuthClientProvider whose "redirect" is a Chromium page that approves consent. */
class BrowserConsentProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  code: string | undefined;
  consentText = "";

  constructor(
    private readonly page: Page,
    readonly redirectUri: string,
  ) {}

  get redirectUrl() {
    return this.redirectUri;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "MCP SDK e2e client",
      redirect_uris: [this.redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state() {
    return "sdk-state-42";
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  async redirectToAuthorization(url: URL) {
    await this.page.goto(url.href);
    await this.page.getByRole("button", { name: "Approve" }).waitFor();
    this.consentText = (await this.page.locator("main").textContent()) ?? "";
    await screenshot(this.page, "oauth-consent");
    await Promise.all([
      this.page.waitForURL((u) => u.href.startsWith(this.redirectUri)),
      this.page.getByRole("button", { name: "Approve" }).click(),
    ]);
    const back = new URL(this.page.url());
    expect(back.searchParams.get("state")).toBe("sdk-state-42");
    this.code = back.searchParams.get("code") ?? undefined;
  }
}

async function mcpToolsList(accessToken: string) {
  return fetch(`${server.baseUrl}/api/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${accessToken}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
}

describe.skipIf(server.skipReason)("OAuth 2.1 with real clients", () => {
  let browser: Browser;
  let page: Page;
  let callback: Awaited<ReturnType<typeof startCallbackServer>>;
  let sdkAccessToken = "";
  const email = `oauth-e2e-${Date.now()}@example.test`;

  /** Registers a public client for the callback server and returns its client_id. */
  async function registerPublicClient(clientName?: string): Promise<string> {
    const reg = await fetch(`${server.baseUrl}/api/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: clientName,
        redirect_uris: [callback.redirectUri],
        token_endpoint_auth_method: "none",
      }),
    });
    expect(reg.status).toBe(201);
    return ((await reg.json()) as { client_id: string }).client_id;
  }

  /** A valid authorization request (PKCE S256) for `clientId`. */
  function authorizationRequest(clientId: string, state: string): URLSearchParams {
    return new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: callback.redirectUri,
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
      state,
    });
  }

  beforeAll(async () => {
    browser = await launchBrowser();
    page = await browser.newPage();
    callback = await startCallbackServer();
    await signIn(page, email);
  });
  afterAll(async () => {
    callback?.close();
    await browser?.close();
  });

  it("the MCP SDK client: 401 → discovery → registration → consent in Chromium → code exchange → tools", async () => {
    const mcpUrl = new URL(`${server.baseUrl}/api/mcp`);
    const provider = new BrowserConsentProvider(page, callback.redirectUri);
    const client = new Client({ name: "ledgerlink-e2e-sdk", version: "1.0.0" });
    const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    await expect(client.connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    await first.close();

    // The consent screen named the app, where it will redirect, and what it may read.
    expect(provider.consentText).toContain("MCP SDK e2e client");
    expect(provider.consentText).toContain("127.0.0.1");
    expect(provider.consentText).toContain("Read your financial data");
    expect(provider.code).toMatch(/^llac_/);
    expect(provider.info?.client_id).toMatch(/^llci_/);

    const pending = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    await pending.finishAuth(provider.code!);
    expect(provider.saved?.access_token).toMatch(/^llat_/);
    expect(provider.saved?.refresh_token).toMatch(/^llrt_/);

    const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    await client.connect(transport);
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(12);
    await client.close();
    sdkAccessToken = provider.saved!.access_token;
  });

  it("oauth4webapi: discovery from the resource, registration, code grant with PKCE, refresh, revocation", async () => {
    const allowHttp = { [oauth.allowInsecureRequests]: true };
    // Discovery starts where a client starts: the 401 from the MCP endpoint.
    const unauthenticated = await fetch(`${server.baseUrl}/api/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(unauthenticated.status).toBe(401);
    const challenge = unauthenticated.headers.get("www-authenticate") ?? "";
    const prmUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    expect(prmUrl).toBe(`${server.baseUrl}/.well-known/oauth-protected-resource/api/mcp`);
    const resourceUrl = new URL(`${server.baseUrl}/api/mcp`);
    const prm = await oauth.processResourceDiscoveryResponse(
      resourceUrl,
      await oauth.resourceDiscoveryRequest(resourceUrl, allowHttp),
    );
    const issuer = new URL(prm.authorization_servers![0]!);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...allowHttp }),
    );
    expect(as.code_challenge_methods_supported).toEqual(["S256"]);

    const registered = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        {
          client_name: "oauth4webapi e2e client",
          redirect_uris: [callback.redirectUri],
          grant_types: ["authorization_code", "refresh_token"],
          token_endpoint_auth_method: "client_secret_basic",
        },
        allowHttp,
      ),
    );
    const client: oauth.Client = { client_id: registered.client_id };
    const clientAuth = oauth.ClientSecretBasic(String(registered.client_secret));

    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const authorizationUrl = new URL(as.authorization_endpoint!);
    for (const [k, v] of Object.entries({
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: callback.redirectUri,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      scope: "finance:read",
      resource: prm.resource,
      state,
    })) {
      authorizationUrl.searchParams.set(k, v);
    }

    // Consent over HTTP with the signed-in user's session cookie.
    const cookies = await page.context().cookies(server.baseUrl);
    const session = cookies.find((c) => c.name.endsWith("authjs.session-token"));
    expect(session).toBeDefined();
    const cookie = `${session!.name}=${session!.value}`;
    const consent = await fetch(authorizationUrl, { headers: { cookie }, redirect: "manual" });
    expect(consent.status).toBe(200);
    expect(consent.headers.get("x-frame-options")).toBe("DENY");
    const html = await consent.text();
    expect(html).toContain("oauth4webapi e2e client");
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(html)?.[1];
    expect(csrf).toBeDefined();
    const form = new URLSearchParams(authorizationUrl.searchParams);
    form.set("csrf_token", csrf!);
    form.set("decision", "approve");
    const decided = await fetch(`${server.baseUrl}/api/oauth/authorize`, {
      method: "POST",
      headers: { cookie, origin: server.baseUrl, "content-type": "application/x-www-form-urlencoded" },
      body: form,
      redirect: "manual",
    });
    expect(decided.status).toBe(303);
    const params = oauth.validateAuthResponse(as, client, new URL(decided.headers.get("location")!), state);

    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(
        as,
        client,
        clientAuth,
        params,
        callback.redirectUri,
        verifier,
        {
          additionalParameters: { resource: prm.resource },
          ...allowHttp,
        },
      ),
    );
    expect(tokens.token_type).toBe("bearer");
    expect((await mcpToolsList(tokens.access_token)).status).toBe(200);

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, allowHttp),
    );
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect((await mcpToolsList(refreshed.access_token)).status).toBe(200);

    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, clientAuth, refreshed.access_token, allowHttp),
    );
    expect((await mcpToolsList(refreshed.access_token)).status).toBe(401);

    // A retry of the rotated refresh token within the 30 s grace (the client lost the answer)
    // gets a working pair of the same grant instead of a logout.
    const retried = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, allowHttp),
    );
    expect((await mcpToolsList(retried.access_token)).status).toBe(200);

    // Revoking a refresh token ends the whole grant: nothing of it works any more.
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, clientAuth, retried.refresh_token!, allowHttp),
    );
    expect((await mcpToolsList(retried.access_token)).status).toBe(401);
    const afterRevoke = await oauth.refreshTokenGrantRequest(
      as,
      client,
      clientAuth,
      refreshed.refresh_token!,
      allowHttp,
    );
    expect(afterRevoke.status).toBe(400);
    expect(((await afterRevoke.json()) as { error: string }).error).toBe("invalid_grant");
  });

  it("the authorization page: unknown client is an error page; signed out → sign-in; missing PKCE → invalid_request", async () => {
    const unknown = await fetch(
      `${server.baseUrl}/oauth/authorize?response_type=code&client_id=nobody&redirect_uri=${encodeURIComponent("https://evil.example/cb")}`,
      { redirect: "manual" },
    );
    expect(unknown.status).toBe(200);
    expect(unknown.headers.get("location")).toBeNull();
    expect(await unknown.text()).toContain("not registered");

    // A valid request from a signed-out browser goes to sign-in, carrying the request back.
    const clientId = await registerPublicClient();
    const request = authorizationRequest(clientId, "signed-out");
    const signedOut = await fetch(`${server.baseUrl}/oauth/authorize?${request}`, { redirect: "manual" });
    expect([303, 307, 308]).toContain(signedOut.status);
    const location = new URL(signedOut.headers.get("location")!, server.baseUrl);
    expect(location.pathname).toBe("/sign-in");
    const back = new URL(location.searchParams.get("callbackUrl")!, server.baseUrl);
    expect(back.pathname).toBe("/oauth/authorize");
    expect(back.searchParams.get("client_id")).toBe(clientId);
    expect(back.searchParams.get("state")).toBe("signed-out");

    // Missing PKCE on a trusted redirect URI comes back to the client as invalid_request.
    request.delete("code_challenge");
    const noPkce = await fetch(`${server.baseUrl}/oauth/authorize?${request}`, { redirect: "manual" });
    const errorBack = new URL(noPkce.headers.get("location")!);
    expect(errorBack.href.startsWith(callback.redirectUri)).toBe(true);
    expect(errorBack.searchParams.get("error")).toBe("invalid_request");
    expect(errorBack.searchParams.get("state")).toBe("signed-out");
  });

  it("a signed-out browser signs in and comes straight back to the consent screen", async () => {
    const request = authorizationRequest(await registerPublicClient("Return Trip"), "round-trip");
    const context = await browser.newContext();
    const fresh = await context.newPage();
    try {
      const newcomer = `oauth-return-${Date.now()}@example.test`;
      const offset = (await fs.stat(server.logPath)).size;
      await fresh.goto(`${server.baseUrl}/oauth/authorize?${request}`);
      await fresh.waitForURL("**/sign-in?**");
      await fresh.getByLabel("Email address").fill(newcomer);
      await fresh.getByRole("button", { name: "Email me a sign-in link" }).click();
      await fresh.waitForURL("**/sign-in/check-email**");
      await fresh.goto(await readSignInLink(server.logPath, newcomer, offset));
      await fresh.waitForURL("**/oauth/authorize?**");
      await fresh.getByRole("button", { name: "Approve" }).waitFor();
      expect(await fresh.getByText("Return Trip").count()).toBeGreaterThan(0);
      expect(new URL(fresh.url()).searchParams.get("state")).toBe("round-trip");
    } finally {
      await context.close();
    }
  });

  it("Connected apps lists the approved client (not the one whose grant ended); Keep renews its year; Revoke ends its token at once", async () => {
    expect(sdkAccessToken).not.toBe("");
    expect((await mcpToolsList(sdkAccessToken)).status).toBe(200);
    await page.goto(`${server.baseUrl}/dashboard/apps`);
    // The app's row (its name is also in its buttons' names, for screen readers).
    await page.getByTestId("connected-app").filter({ hasText: "MCP SDK e2e client" }).waitFor();
    await expect(page.getByText("oauth4webapi e2e client").count()).resolves.toBe(0); // its grant ended on reuse
    await page.getByText(/Access ends .* unless you keep it/).waitFor();
    await page.getByRole("button", { name: /^Keep for a year\W+MCP SDK e2e client$/ }).click();
    await page.getByRole("status").filter({ hasText: "Kept for another year." }).waitFor();
    expect((await mcpToolsList(sdkAccessToken)).status).toBe(200);
    await page.getByRole("button", { name: "Revoke MCP SDK e2e client" }).click();
    await page.getByText("No apps are connected.").waitFor();
    expect((await mcpToolsList(sdkAccessToken)).status).toBe(401);
  });
});
