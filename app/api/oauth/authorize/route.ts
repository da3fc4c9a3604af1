import { getDb } from "@/db";
import { isDatabaseUnavailable } from "@/lib/errors";
import { notAllowed } from "@/lib/http";
import { decideConsent, errorPage } from "@/lib/oauth/consent";
import { logOAuthFailure, OAuthError } from "@/lib/oauth/errors";
import { readForm } from "@/lib/oauth/http";

export const dynamic = "force-dynamic";

// POST /api/oauth/authorize – the consent form's Approve/Deny: redirects to the client with a code or an error
export async function POST(request: Request) {
  try {
    return await decideConsent(await getDb(), request, await readForm(request));
  } catch (error) {
    if (error instanceof OAuthError) return errorPage(error.message, error.status);
    logOAuthFailure("consent", error);
    if (isDatabaseUnavailable(error))
      return errorPage("Ledgerlink is briefly unavailable. Please try again in a few seconds.", 503);
    return errorPage("Something went wrong on our side. Please try again.", 500);
  }
}

const otherMethods = notAllowed("POST");

export { otherMethods as DELETE, otherMethods as GET, otherMethods as PATCH, otherMethods as PUT };
