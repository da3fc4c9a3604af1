/**
 * A Content-Security-Policy per page request, with a fresh nonce that Next puts on its own
 * scripts (it reads the nonce from this request header while rendering; every page is rendered
 * per request for that, see app/layout.tsx). Scripts run only when they carry the nonce or were
 * loaded by one that does ('strict-dynamic': react-plaid-link adds Plaid's script that way).
 * Plaid Link opens its frame from cdn.plaid.com; Stripe Checkout is a navigation to
 * checkout.stripe.com (a form may be redirected there); the consent form, to the client's
 * redirect URI. API routes keep next.config.ts's policy.
 * https://plaid.com/docs/link/web/#content-security-policy
 */
import { type NextRequest, NextResponse } from "next/server";
import { getEnv } from "@/lib/env";

/**
 * Where the consent form may send the browser: after Approve or Deny our endpoint redirects to
 * the client's redirect URI, and Chromium applies `form-action` to that redirect too. The URI is
 * the one in the page's query (the server refuses any that is not registered).
 */
function consentTarget(request: NextRequest): string | null {
  if (request.nextUrl.pathname !== "/oauth/authorize") return null;
  const raw = request.nextUrl.searchParams.get("redirect_uri");
  if (!raw) return null;
  try {
    const url = new URL(raw);
    if (url.protocol === "http:" || url.protocol === "https:") return url.origin;
    // A native app's own scheme (cursor:, vscode:): a scheme source; no quotes or spaces can pass.
    return /^[a-z][a-z0-9+.-]*:$/.test(url.protocol) ? url.protocol : null;
  } catch {
    return null;
  }
}

export function contentSecurityPolicy(
  nonce: string,
  development: boolean,
  formTarget: string | null = null,
): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${development ? " 'unsafe-eval'" : ""}`,
    // Tailwind's stylesheet is ours; React and Next set a few style attributes at run time.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob: https:",
    "font-src 'self'",
    "connect-src 'self' https://cdn.plaid.com https://sandbox.plaid.com https://production.plaid.com",
    "frame-src https://cdn.plaid.com",
    `form-action 'self' https://checkout.stripe.com${formTarget ? ` ${formTarget}` : ""}`,
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "object-src 'none'",
  ].join("; ");
}

export function proxy(request: NextRequest): NextResponse {
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
  const policy = contentSecurityPolicy(nonce, getEnv().NODE_ENV === "development", consentTarget(request));
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
