import { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
import { proxy } from "@/proxy";

const policyOf = (url: string) => proxy(new NextRequest(url)).headers.get("content-security-policy") ?? "";
const directive = (policy: string, name: string) =>
  policy
    .split("; ")
    .find((d) => d.startsWith(`${name} `))
    ?.slice(name.length + 1);

describe("the page Content-Security-Policy (proxy.ts)", () => {
  it("a fresh nonce per request, scripts only with it (or loaded by a script that has it)", () => {
    const first = directive(policyOf("http://localhost:3000/dashboard"), "script-src");
    const second = directive(policyOf("http://localhost:3000/dashboard"), "script-src");
    expect(first).toMatch(/^'self' 'nonce-[A-Za-z0-9+/]{22}==' 'strict-dynamic'$/);
    expect(second).not.toBe(first);
  });

  it("forms post to us (and Stripe Checkout); the consent form also to the client's redirect URI", () => {
    expect(directive(policyOf("http://localhost:3000/dashboard/billing"), "form-action")).toBe(
      "'self' https://checkout.stripe.com",
    );
    const consent = (redirect: string) =>
      directive(
        policyOf(
          `http://localhost:3000/oauth/authorize?client_id=x&redirect_uri=${encodeURIComponent(redirect)}`,
        ),
        "form-action",
      );
    expect(consent("https://claude.ai/api/mcp/auth_callback?x=1")).toBe(
      "'self' https://checkout.stripe.com https://claude.ai",
    );
    expect(consent("http://127.0.0.1:33418/callback")).toBe(
      "'self' https://checkout.stripe.com http://127.0.0.1:33418",
    );
    expect(consent("cursor://anysphere.cursor-mcp/oauth/callback")).toBe(
      "'self' https://checkout.stripe.com cursor:",
    );
    // Nothing that could smuggle another directive or source in.
    expect(consent("https://a.example; script-src *")).toBe("'self' https://checkout.stripe.com");
    expect(consent("not a url")).toBe("'self' https://checkout.stripe.com");
  });

  it("never framed, no plugins, base URI pinned", () => {
    const policy = policyOf("http://localhost:3000/");
    expect(directive(policy, "frame-ancestors")).toBe("'none'");
    expect(directive(policy, "object-src")).toBe("'none'");
    expect(directive(policy, "base-uri")).toBe("'self'");
  });
});
