/**
 * Where to send a user after sign-in. Only a same-site path is accepted ("/…", never "//host" or
 * "/\host", which browsers treat as another origin), so a crafted sign-in link cannot bounce the
 * user to someone else's site (an open redirect).
 */
export const DEFAULT_AFTER_SIGN_IN = "/dashboard";

/** `value` when it is a same-site path, otherwise the dashboard (no open redirects). */
export function safeCallbackPath(value: unknown): string {
  if (typeof value !== "string" || value.length > 2048) return DEFAULT_AFTER_SIGN_IN;
  if (!value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\"))
    return DEFAULT_AFTER_SIGN_IN;
  // Reject control characters (a tab or newline inside "/\t/evil.example" is stripped by browsers).
  for (let i = 0; i < value.length; i++) if (value.charCodeAt(i) < 0x20) return DEFAULT_AFTER_SIGN_IN;
  return value;
}
