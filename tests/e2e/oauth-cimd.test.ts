/**
 * The consent screen for clients known by their metadata document (CIMD), in Chromium against the
 * production build: a second `next start` with OAUTH_CIMD_TEST_ORIGINS naming a loopback document
 * server (tests/helpers/client-documents.ts), which the server announces at start-up.
 * - Claude Code's document (portless loopback redirects): "Claude Code (from <host>)", the
 *   redirect host, and the warning that any program on this computer could have asked;
 * - ChatGPT's document (an https redirect): the name from its host, no warning;
 * - both at 1280 × 800 and 390 × 844 with no serious or critical axe violation and nothing that
 *   scrolls sideways on the phone;
 * - approving Claude Code lands on its loopback callback with a code that buys a working token;
 * - a refused document is an error page naming the reason.
 */
import { promises as fs } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DocumentServer, startDocumentServer } from "../helpers/client-documents";
import {
  axe,
  e2eServer,
  launchBrowser,
  SIZES,
  type StartedServer,
  screenshot,
  signIn,
  startServer,
} from "./helpers";

const shared = e2eServer();
const CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
const VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"; // RFC 7636 appendix B

describe.skipIf(shared.skipReason)("OAuth consent for clients known by their metadata document", () => {
  let documents: DocumentServer;
  let server: StartedServer;
  let browser: Browser;
  let page: Page;
  let callback: http.Server;
  let callbackPort: number;
  let claudeCode: string;
  let chatgpt: string;

  beforeAll(async () => {
    documents = await startDocumentServer();
    server = await startServer({ name: "cimd", env: { OAUTH_CIMD_TEST_ORIGINS: documents.origin } });
    // Claude Code's and ChatGPT's documents (https://claude.ai/oauth/claude-code-client-metadata,
    // https://chatgpt.com/oauth/client.json; see tests/integration/oauth-client-fixtures.test.ts).
    claudeCode = documents.url("/oauth/claude-code-client-metadata");
    documents.publish("/oauth/claude-code-client-metadata", {
      body: {
        client_id: claudeCode,
        client_name: "Claude Code",
        client_uri: "https://claude.ai",
        redirect_uris: ["http://localhost/callback", "http://127.0.0.1/callback"],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      },
    });
    chatgpt = documents.url("/oauth/client.json");
    documents.publish("/oauth/client.json", {
      body: {
        client_id: chatgpt,
        client_name: "ChatGPT",
        client_uri: "https://chatgpt.com/",
        redirect_uris: ["https://chatgpt.com/connector_platform_oauth_redirect"],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "private_key_jwt",
        jwks: {
          keys: [
            {
              kty: "EC",
              crv: "P-256",
              x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
              y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0",
              kid: "k1",
            },
          ],
        },
      },
    });
    callback = http.createServer((_req, res) =>
      res.writeHead(200, { "content-type": "text/plain" }).end("done"),
    );
    await new Promise<void>((resolve) => callback.listen(0, "127.0.0.1", resolve));
    callbackPort = (callback.address() as AddressInfo).port;
    browser = await launchBrowser();
    page = await browser.newPage();
    await signIn(page, `cimd-${Date.now()}@example.test`, server);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    callback?.close();
    await server?.stop();
    await documents?.close();
  });

  function authorizeUrl(clientId: string, redirectUri: string, state: string) {
    return `${server.baseUrl}/oauth/authorize?${new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: CHALLENGE,
      code_challenge_method: "S256",
      scope: "finance:read offline_access",
      resource: `${server.baseUrl}/api/mcp`,
      state,
    })}`;
  }

  it("the server says at start-up that the test origins are on", async () => {
    const log = await fs.readFile(server.logPath, "utf8");
    expect(log).toContain(
      `[oauth] OAUTH_CIMD_TEST_ORIGINS is on: client metadata documents at ${documents.origin}`,
    );
  });

  for (const size of SIZES) {
    it(`at ${size.width} × ${size.height}: name from its host, redirect host, the loopback warning only where it applies; no serious axe violation`, async () => {
      const context = await browser.newContext({
        viewport: size,
        storageState: await page.context().storageState(),
      });
      const view = await context.newPage();
      const found: string[] = [];
      try {
        const host = new URL(documents.origin).host;
        for (const [clientId, redirectUri, name, redirectHost, warns] of [
          [
            claudeCode,
            `http://127.0.0.1:${callbackPort}/callback`,
            "Claude Code",
            `127.0.0.1:${callbackPort}`,
            true,
          ],
          [chatgpt, "https://chatgpt.com/connector_platform_oauth_redirect", "ChatGPT", "chatgpt.com", false],
        ] as const) {
          await view.goto(authorizeUrl(clientId, redirectUri, "look"));
          await view.getByRole("button", { name: "Approve" }).waitFor();
          const heading = await view.getByRole("heading", { level: 1 }).textContent();
          expect(heading).toBe(`Connect ${name} (from ${host}) to your Ledgerlink account?`);
          expect(await view.locator("#redirect-host").textContent()).toBe(redirectHost);
          expect(await view.locator("#loopback-warning").count(), name).toBe(warns ? 1 : 0);
          if (warns) {
            expect(await view.locator("#loopback-warning").textContent()).toContain(
              "any program here could have opened this page under Claude Code's name",
            );
          }
          for (const v of await axe(view))
            found.push(`${name}: ${v.impact} ${v.id} at ${v.targets.join(" | ")}`);
          if (size.name === "phone") {
            const overflow = await view.evaluate(
              () => document.documentElement.scrollWidth - window.innerWidth,
            );
            if (overflow > 0) found.push(`${name}: scrolls sideways by ${overflow} px`);
          }
          await screenshot(view, `oauth-cimd/${size.name}-${name.replace(/ /g, "-").toLowerCase()}`);
        }
      } finally {
        await context.close();
      }
      expect(found).toEqual([]);
    });
  }

  it("approving Claude Code returns to its loopback callback on any port with a code that buys a working token", async () => {
    const redirectUri = `http://127.0.0.1:${callbackPort}/callback`;
    await page.goto(authorizeUrl(claudeCode, redirectUri, "approve-me"));
    await Promise.all([
      page.waitForURL((u) => u.href.startsWith(redirectUri)),
      page.getByRole("button", { name: "Approve" }).click(),
    ]);
    const back = new URL(page.url());
    expect(back.searchParams.get("state")).toBe("approve-me");
    const code = back.searchParams.get("code");
    expect(code).toMatch(/^llac_/);
    const tokenAnswer = await fetch(`${server.baseUrl}/api/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: code!,
        code_verifier: VERIFIER,
        redirect_uri: redirectUri,
        client_id: claudeCode,
        resource: `${server.baseUrl}/api/mcp`,
      }),
    });
    expect(tokenAnswer.status).toBe(200);
    const tokens = (await tokenAnswer.json()) as { access_token: string; scope: string };
    expect(tokens.scope).toBe("finance:read");
    const listed = await fetch(`${server.baseUrl}/api/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${tokens.access_token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-06-18",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(listed.status).toBe(200);
  });

  it("a refused document is an error page that names the reason, never a redirect", async () => {
    const wrong = documents.url("/oauth/impostor.json");
    documents.publish("/oauth/impostor.json", {
      body: { client_id: chatgpt, client_name: "ChatGPT", redirect_uris: ["https://evil.example/cb"] },
    });
    await page.goto(authorizeUrl(wrong, "https://evil.example/cb", "x"));
    const message = await page.locator("#oauth-error").textContent();
    expect(message).toContain("is not the URL it was fetched from");
    expect(new URL(page.url()).host).toBe(new URL(server.baseUrl).host);
    await screenshot(page, "oauth-cimd/refused");
  });
});
