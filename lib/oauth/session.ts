/**
 * The signed-in user behind a consent request, read straight from the Auth.js database session
 * (a row in `sessions` named by the `authjs.session-token` cookie, `__Secure-` prefixed on
 * https). Reading it here rather than through `auth()` keeps the consent decision a plain route
 * handler that tests can call in-process; both read the same row.
 *
 * The consent form's CSRF token is bound to that session: a keyed hash of the session token,
 * which only someone holding the (httpOnly) cookie can know.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { and, eq, gt } from "drizzle-orm";
import type { Database } from "@/db";
import { sessions } from "@/db/schema";

export const SESSION_COOKIE_NAMES = ["__Secure-authjs.session-token", "authjs.session-token"] as const;

/** Reads one cookie from a Cookie header. */
export function readCookie(cookieHeader: string | null, name: string): string | undefined {
  if (!cookieHeader) return undefined;
  for (const part of cookieHeader.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** The session token from a Cookie header, secure name first. */
export function sessionTokenFromCookies(cookieHeader: string | null): string | undefined {
  for (const name of SESSION_COOKIE_NAMES) {
    const value = readCookie(cookieHeader, name);
    if (value) return value;
  }
  return undefined;
}

export interface ConsentSession {
  userId: string;
  sessionToken: string;
}

/** The live session for `sessionToken`, or null. */
export async function getConsentSession(
  db: Database,
  sessionToken: string | undefined,
): Promise<ConsentSession | null> {
  if (!sessionToken || sessionToken.length > 512) return null;
  const [row] = await db
    .select({ userId: sessions.userId })
    .from(sessions)
    .where(and(eq(sessions.sessionToken, sessionToken), gt(sessions.expires, new Date())))
    .limit(1);
  return row ? { userId: row.userId, sessionToken } : null;
}

/** The CSRF token for the consent form of this session. */
export function consentCsrfToken(sessionToken: string): string {
  return createHash("sha256")
    .update(`ledgerlink/oauth-consent/v1\0${sessionToken}`, "utf8")
    .digest("base64url");
}

/** True when `presented` is the consent form's CSRF token for this session (compared in constant time). */
export function isValidConsentCsrf(sessionToken: string, presented: string | null): boolean {
  if (!presented) return false;
  const expected = Buffer.from(consentCsrfToken(sessionToken));
  const actual = Buffer.from(presented);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
