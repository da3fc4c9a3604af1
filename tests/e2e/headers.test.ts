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
