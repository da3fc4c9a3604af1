/**
 * The consent decision: the consent page's form POSTs the authorization request back together
 * with the user's choice and a CSRF token bound to the session. Everything is validated again
 * here; the answer is a redirect to the client (code or error), to sign-in, or an error page.
 */
import { z } from "zod";
import type { Database } from "@/db";
import { consentAccountsField, resolveConsentChoice } from "@/lib/account-access";
import { isAppError } from "@/lib/errors";
import { AUTHORIZATION_PARAMS, buildRedirect, validateAuthorizationRequest } from "./authorize";
import { issueAuthorizationCode } from "./codes";
import { getOAuthConfig } from "./config";
import { getConsentSession, isValidConsentCsrf, sessionTokenFromCookies } from "./session";

/** `/oauth/authorize?…` carrying only the authorization parameters. */
export function authorizePagePath(params: URLSearchParams): string {
  const query = new URLSearchParams();
  for (const name of AUTHORIZATION_PARAMS) for (const value of params.getAll(name)) query.append(name, value);
  return `/oauth/authorize?${query.toString()}`;
}

/** The consent page's query flag for an approval that ticked no account (the page says so). */
export const NO_ACCOUNT_TICKED = "accounts_error";

/** Where a signed-out user goes: sign in, then straight back to the same request. */
export function signInRedirectUrl(params: URLSearchParams): string {
  return `${getOAuthConfig().issuer}/sign-in?callbackUrl=${encodeURIComponent(authorizePagePath(params))}`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A plain error page (never a redirect to an untrusted URI). */
export function errorPage(message: string, status: number): Response {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authorization error · Ledgerlink</title></head><body style="font-family:system-ui;max-width:36rem;margin:4rem auto;padding:0 1rem"><h1>Authorization error</h1><p id="oauth-error">${escapeHtml(message)}</p><p><a href="/">Back to Ledgerlink</a></p></body></html>`;
  return new Response(html, {
    status,
    headers: { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" },
  });
}

function redirect(location: string): Response {
  return new Response(null, { status: 303, headers: { Location: location, "Cache-Control": "no-store" } });
}

/**
 * The accounts the approval gives (lib/account-access.ts): null for all, the ticked ids, "none"
 * when no box was ticked (the consent screen asks again), or an error page for an id that is not
 * the person's.
 */
async function consentAccounts(
  db: Database,
  userId: string,
  form: URLSearchParams,
): Promise<string[] | null | "none" | Response> {
  const parsed = z.object(consentAccountsField).safeParse({ accountIds: form.getAll("accountIds") });
  if (!parsed.success)
    return errorPage(parsed.error.issues[0]?.message ?? "The accounts are not valid.", 400);
  try {
    return await resolveConsentChoice(db, userId, parsed.data.accountIds);
  } catch (error) {
    if (!isAppError(error) || error.code !== "invalid_input") throw error;
    return parsed.data.accountIds.length === 0 ? "none" : errorPage(error.message, 400);
  }
}

/** Handles the consent form POST. */
export async function decideConsent(
  db: Database,
  request: Request,
  form: URLSearchParams,
): Promise<Response> {
  // A form posted from another site is refused outright (the CSRF token is the second line).
  const origin = request.headers.get("origin");
  if (origin && origin !== new URL(getOAuthConfig().issuer).origin) {
    return errorPage("This request did not come from Ledgerlink.", 403);
  }
  const session = await getConsentSession(db, sessionTokenFromCookies(request.headers.get("cookie")));
  if (!session) return redirect(signInRedirectUrl(form));
  if (!isValidConsentCsrf(session.sessionToken, form.get("csrf_token"))) {
    return errorPage(
      "The form expired or did not come from Ledgerlink. Go back to the app and try again.",
      403,
    );
  }
  const validation = await validateAuthorizationRequest(db, form);
  if (validation.kind === "page_error") return errorPage(validation.message, 400);
  if (validation.kind === "redirect_error") return redirect(validation.redirectUrl);
  const { request: valid } = validation;
  const decision = form.get("decision");
  if (decision === "approve") {
    const accountIds = await consentAccounts(db, session.userId, form);
    if (accountIds === "none")
      return redirect(
        `${getOAuthConfig().issuer}${authorizePagePath(form)}&${NO_ACCOUNT_TICKED}=none#accounts`,
      );
    if (accountIds instanceof Response) return accountIds;
    const code = await issueAuthorizationCode(db, session.userId, valid, accountIds);
    return redirect(buildRedirect(valid.redirectUri, { code }, valid.state));
  }
  return redirect(
    buildRedirect(
      valid.redirectUri,
      { error: "access_denied", error_description: "The user declined to connect this app." },
      valid.state,
    ),
  );
}
