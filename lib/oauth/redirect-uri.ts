/**
 * Redirect URI rules (OAuth 2.1 §2.3.1, RFC 8252 §7.3, RFC 9700 §4.1):
 * - only `https:`, or `http:` on a loopback host (127.0.0.1, [::1], localhost);
 * - no fragment, no user info, no whitespace or control characters anywhere (so
 *   `" javascript:…"` cannot sneak past a scheme check);
 * - matching at authorize is exact, except that a loopback URI may use any port.
 */
const MAX_LENGTH = 2000;
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

/** Returns null when `uri` is acceptable for registration, else a sentence saying why not. */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length === 0 || uri.length > MAX_LENGTH) return "A redirect URI must be 1 to 2000 characters.";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we reject.
  if (/[\s\u0000-\u001f\u007f]/.test(uri))
    return "A redirect URI must not contain spaces or control characters.";
  if (uri.includes("#")) return "A redirect URI must not contain a fragment.";
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return "A redirect URI must be an absolute URL.";
  }
  if (url.username || url.password) return "A redirect URI must not contain user information.";
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:") {
    return LOOPBACK_HOSTS.has(url.hostname)
      ? null
      : "Plain http redirect URIs are allowed only on loopback (127.0.0.1, [::1], localhost); use https.";
  }
  return `The scheme ${url.protocol} is not allowed; use https (or http on loopback).`;
}

function isLoopbackHttp(url: URL): boolean {
  return url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname);
}

/**
 * The registered URI that `requested` matches, or null. Exact string comparison, except for
 * loopback http URIs where the port may differ (native apps pick a free port, RFC 8252 §7.3).
 */
export function matchRedirectUri(registered: readonly string[], requested: string): string | null {
  if (registered.includes(requested)) return requested;
  if (redirectUriProblem(requested) !== null) return null;
  const wanted = new URL(requested);
  if (!isLoopbackHttp(wanted)) return null;
  for (const candidate of registered) {
    let url: URL;
    try {
      url = new URL(candidate);
    } catch {
      continue;
    }
    if (!isLoopbackHttp(url)) continue;
    url.port = wanted.port;
    if (url.href === wanted.href) return requested;
  }
  return null;
}
