/**
 * Redirect URI rules (OAuth 2.1 §2.3.1, RFC 8252 §7.1 and §7.3, RFC 9700 §4.1):
 * - `https:`, or `http:` on a loopback host (127.0.0.1, [::1], localhost);
 * - or a native app's private-use scheme in reverse-DNS form (RFC 8252 §7.1): the reverse domain
 *   is the scheme (`com.example.app:/oauth/callback`) or, as Cursor and VS Code write it, the
 *   authority (`cursor://anysphere.cursor-mcp/oauth/callback`). Schemes a browser or the system
 *   would act on (`javascript:`, `data:`, `file:`, `ftp:` …) are never private-use;
 * - no fragment, no user info, no whitespace or control characters anywhere (so
 *   `" javascript:…"` cannot sneak past a scheme check);
 * - matching at authorize is exact, except that a loopback URI may use any port.
 */
const MAX_LENGTH = 2000;
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);
/** Schemes that mean something to a browser or the system, never an app's own. */
const NEVER_PRIVATE_USE = new Set([
  "javascript:",
  "vbscript:",
  "data:",
  "file:",
  "blob:",
  "about:",
  "filesystem:",
  "view-source:",
  "jar:",
  "intent:",
  "ftp:",
  "ftps:",
  "sftp:",
  "ws:",
  "wss:",
  "mailto:",
  "tel:",
  "sms:",
  "chrome:",
  "resource:",
]);
const DOTTED_NAME = /^[a-z0-9-]+(\.[a-z0-9-]+)+$/i;

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
  if (NEVER_PRIVATE_USE.has(url.protocol)) {
    return `The scheme ${url.protocol} is not allowed; use https, http on loopback, or an app's own reverse-DNS scheme.`;
  }
  const reverseDnsScheme = url.protocol.slice(0, -1).includes(".");
  const reverseDnsAuthority = uri.toLowerCase().startsWith(`${url.protocol}//`) && DOTTED_NAME.test(url.host);
  if (!reverseDnsScheme && !reverseDnsAuthority) {
    return `The scheme ${url.protocol} is not allowed: a native app's own scheme must be in reverse-DNS form (com.example.app:/callback, or cursor://vendor.app/callback).`;
  }
  return null;
}

function isLoopbackHttp(url: URL): boolean {
  return url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname);
}

/** True for an acceptable `http:` redirect URI on a loopback host (it returns to this computer). */
export function isLoopbackRedirectUri(uri: string): boolean {
  return redirectUriProblem(uri) === null && isLoopbackHttp(new URL(uri));
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
