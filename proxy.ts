/**
 * A Content-Security-Policy per page request, with a fresh nonce that Next puts on its own
 * scripts (it reads the nonce from this request header while rendering; every page is rendered
 * per request for that, see app/layout.tsx). Scripts run only when they carry the nonce or were
 * loaded by one that does ('strict-dynamic': react-plaid-link adds Plaid's script that way).
 * Plaid Link opens its frame from cdn.plaid.com; Stripe Checkout is a navigation to
 * checkout.stripe.com (a form may be redirected there). API routes keep next.config.ts's policy.
 * https://plaid.com/docs/link/web/#content-security-policy
 */
import { type NextRequest, NextResponse } from "next/server";
import { getEnv } from "@/lib/env";

export function contentSecurityPolicy(nonce: string, development: boolean): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${development ? " 'unsafe-eval'" : ""}`,
    // Tailwind's stylesheet is ours; React and Next set a few style attributes at run time.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob: https:",
    "font-src 'self'",
    "connect-src 'self' https://cdn.plaid.com https://sandbox.plaid.com https://production.plaid.com",
    "frame-src https://cdn.plaid.com",
    "form-action 'self' https://checkout.stripe.com",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "object-src 'none'",
  ].join("; ");
}

export function proxy(request: NextRequest): NextResponse {
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
  const policy = contentSecurityPolicy(nonce, getEnv().NODE_ENV === "development");
  const headers = new Headers(request.headers);
  headers.set("content-security-policy", policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", policy);
  return response;
}

export const config = {
  matcher: [
    {
      // Pages only: not API routes, static files or prefetches (which carry no scripts of their own).
      source: "/((?!api/|_next/static|_next/image|favicon.ico|\\.well-known/).*)",
      missing: [
        { type: "header", key: "next-router-prefetch" },
        { type: "header", key: "purpose", value: "prefetch" },
      ],
    },
  ],
};
