import { NextRequest } from "next/server";
import { handlers } from "@/lib/auth";
import { notAllowed } from "@/lib/http";
import { safeCallbackPath } from "@/lib/safe-redirect";

export const dynamic = "force-dynamic";

const CALLBACK_COOKIES = ["authjs.callback-url", "__Secure-authjs.callback-url"];

/**
 * Auth.js answers a callback URL it cannot use (`?callbackUrl=x`, or the same in its cookie)
 * with a 500 "server configuration" error. A callback URL that is not a same-site path is
 * dropped before Auth.js sees it, so it falls back to its default and odd query strings never
 * become server errors (nor open redirects).
 */
function withSafeCallback(req: NextRequest): NextRequest {
  const url = new URL(req.url);
  const given = url.searchParams.get("callbackUrl");
  let changed = false;
  if (given !== null && safeCallbackPath(given) !== given && !sameOrigin(given, url.origin)) {
    url.searchParams.delete("callbackUrl");
    changed = true;
  }
  const headers = new Headers(req.headers);
  const cookie = headers.get("cookie");
  if (cookie) {
    const kept = cookie
      .split(/;\s*/)
      .filter((pair) => {
        const [name = "", ...rest] = pair.split("=");
        if (!CALLBACK_COOKIES.includes(name)) return true;
        const value = decodeURIComponentSafe(rest.join("="));
        return safeCallbackPath(value) === value || sameOrigin(value, url.origin);
      })
      .join("; ");
    if (kept !== cookie) {
      headers.set("cookie", kept);
      changed = true;
    }
  }
  if (!changed) return req;
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  const init = hasBody
    ? { method: req.method, headers, body: req.body, duplex: "half" as const }
    : { method: req.method, headers };
  return new NextRequest(url, init);
}

function sameOrigin(value: string, origin: string): boolean {
  try {
    return new URL(value).origin === origin;
  } catch {
    return false;
  }
}

function decodeURIComponentSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

// GET|POST /api/auth/* – Auth.js endpoints (sign-in, callback, sign-out, session, csrf)
export function GET(req: NextRequest) {
  return handlers.GET(withSafeCallback(req));
}

export function POST(req: NextRequest) {
  return handlers.POST(withSafeCallback(req));
}

const otherMethods = notAllowed("GET", "POST");

export { otherMethods as DELETE, otherMethods as PATCH, otherMethods as PUT };
