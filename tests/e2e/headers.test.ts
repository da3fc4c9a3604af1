/**
 * Security headers on every surface of the production build: pages (landing, sign-in, dashboard,
 * consent), the MCP endpoint and the discovery documents. A page that can be framed by another
 * site would let it trick a signed-in person into rotating keys or removing banks.
 */
import { describe, expect, inject, it } from "vitest";

const skipReason = inject("e2eSkipReason");

describe.skipIf(Boolean(skipReason))("security headers", () => {
  const paths = [
    "/",
    "/sign-in",
    "/dashboard",
    "/dashboard/keys",
    "/oauth/authorize",
    "/api/mcp",
    "/.well-known/oauth-protected-resource",
  ];
  for (const path of paths) {
    it(`${path}: no framing, no sniffing, a strict referrer policy`, async () => {
      const answer = await fetch(`${inject("e2eBaseUrl")}${path}`, { redirect: "manual" });
      expect(answer.headers.get("x-frame-options")).toBe("DENY");
      expect(answer.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
      expect(answer.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    });
  }

  for (const [method, path, allow] of [
    ["GET", "/api/mcp", "POST"],
    ["DELETE", "/api/mcp", "POST"],
    ["GET", "/api/oauth/token", "POST"],
    ["GET", "/api/oauth/register", "POST"],
    ["GET", "/api/oauth/revoke", "POST"],
    ["PUT", "/api/webhooks/stripe", "POST"],
  ] as const) {
    it(`${method} ${path}: 405 with Allow: ${allow}`, async () => {
      const answer = await fetch(`${inject("e2eBaseUrl")}${path}`, { method });
      expect(answer.status).toBe(405);
      expect(answer.headers.get("allow")?.split(/,\s*/)).toContain(allow);
    });
  }
});

describe.skipIf(Boolean(skipReason))("Auth.js routes with odd query strings", () => {
  for (const path of [
    "/api/auth/session?callbackUrl=x",
    "/api/auth/session?callbackUrl=https://evil.example/",
    "/api/auth/csrf?callbackUrl=%00",
    "/api/auth/signin?callbackUrl=javascript:alert(1)",
    "/api/auth/providers?callbackUrl=//evil.example",
  ]) {
    it(`${path}: never a server error, never a redirect off-site`, async () => {
      const answer = await fetch(`${inject("e2eBaseUrl")}${path}`, { redirect: "manual" });
      expect(answer.status).toBeLessThan(500);
      const location = answer.headers.get("location");
      if (location)
        expect(new URL(location, inject("e2eBaseUrl")).origin).toBe(new URL(inject("e2eBaseUrl")).origin);
    });
  }

  it("a bad callback-url cookie is no server error either", async () => {
    const answer = await fetch(`${inject("e2eBaseUrl")}/api/auth/session`, {
      headers: { cookie: "authjs.callback-url=x" },
    });
    expect(answer.status).toBe(200);
  });
});
