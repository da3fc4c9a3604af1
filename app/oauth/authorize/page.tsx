import { eq } from "drizzle-orm";
import type { Metadata } from "next";
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { AccountChoice } from "@/components/account-choice";
import { OAuthClientIdentity } from "@/components/oauth-client-identity";
import { getDb } from "@/db";
import { users } from "@/db/schema";
import { listChoosableAccounts } from "@/lib/account-access";
import { AUTHORIZATION_PARAMS, validateAuthorizationRequest } from "@/lib/oauth/authorize";
import { NO_ACCOUNT_TICKED, signInRedirectUrl } from "@/lib/oauth/consent";
import { isSupportedScope, OAUTH_SCOPES, parseScope } from "@/lib/oauth/scopes";
import { consentCsrfToken, getConsentSession, SESSION_COOKIE_NAMES } from "@/lib/oauth/session";
import { hasUnsafeText } from "@/lib/safe-text";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Connect an app · Ledgerlink", referrer: "same-origin" };

type SearchParams = Record<string, string | string[] | undefined>;

function toSearchParams(raw: SearchParams): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(raw)) {
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) params.append(name, v);
  }
  return params;
}

/** Whose screen this is: Ledgerlink's name and icon, above the consent and its errors. */
function Brand() {
  return (
    <p className="mb-6 flex items-center gap-2 font-semibold text-slate-900">
      {/* biome-ignore lint/performance/noImgElement: a 24 px static icon; no image optimisation to gain */}
      <img src="/icon.svg" alt="" width={24} height={24} className="size-6" />
      Ledgerlink
    </p>
  );
}

function ErrorScreen({ message }: { message: string }) {
  return (
    <main className="mx-auto max-w-lg px-6 py-12 sm:py-16">
      <Brand />
      <h1 className="text-2xl font-semibold">This app cannot connect</h1>
      <p id="oauth-error" className="mt-4 text-slate-700">
        {message}
      </p>
      <p className="mt-4 text-slate-600">
        Go back to the app and start again, or ask its developer for help.
      </p>
    </main>
  );
}

// GET /oauth/authorize – the authorization endpoint: validates the request and shows the consent screen
export default async function AuthorizePage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = toSearchParams(await searchParams);
  const unsafe = [...params].find(([name, value]) => hasUnsafeText(name) || hasUnsafeText(value));
  if (unsafe)
    return (
      <ErrorScreen
        message={`The request's parameter ${JSON.stringify(unsafe[0])} holds a NUL character or an unpaired surrogate.`}
      />
    );
  const db = await getDb();
  const validation = await validateAuthorizationRequest(db, params);
  if (validation.kind === "page_error") return <ErrorScreen message={validation.message} />;
  if (validation.kind === "redirect_error") redirect(validation.redirectUrl);

  const jar = await cookies();
  const token = SESSION_COOKIE_NAMES.map((name) => jar.get(name)?.value).find(Boolean);
  const session = await getConsentSession(db, token);
  if (!session) redirect(signInRedirectUrl(params));

  const { request } = validation;
  const [[user], accounts] = await Promise.all([
    db.select({ email: users.email }).from(users).where(eq(users.id, session.userId)).limit(1),
    listChoosableAccounts(db, session.userId),
  ]);
  // The approval came back with no account ticked (lib/oauth/consent.ts): ask again, saying so.
  const noAccountTicked = params.get(NO_ACCOUNT_TICKED) === "none";
  const scopes = parseScope(request.scope).filter(isSupportedScope);

  return (
    <main className="mx-auto max-w-lg px-6 py-12 sm:py-16">
      <Brand />
      <OAuthClientIdentity client={request.client} redirectUri={request.redirectUri} />
      <p className="mt-4 text-sm text-slate-600">Signed in as {user?.email ?? "you"}.</p>

      <section className="mt-6 rounded-md border border-slate-200 bg-white p-4">
        <h2 className="font-medium">It will be able to:</h2>
        <ul className="mt-2 list-disc space-y-2 pl-6 text-slate-700">
          {scopes.map((scope) => (
            <li key={scope}>
              <strong>{OAUTH_SCOPES[scope].title}</strong>: {OAUTH_SCOPES[scope].description}
            </li>
          ))}
        </ul>
        <h2 className="mt-4 font-medium">It will never be able to:</h2>
        <p className="mt-2 text-slate-700">
          Move money, pay anything or change anything at your bank: Ledgerlink only reads.
        </p>
        <p className="mt-4 text-sm text-slate-600">
          Its access lasts a year unless you keep it, and you can revoke it at any time under Connected apps.
        </p>
      </section>

      <form method="post" action="/api/oauth/authorize" className="mt-6">
        {AUTHORIZATION_PARAMS.map((name) => {
          const value = params.get(name);
          return value === null ? null : <input key={name} type="hidden" name={name} value={value} />;
        })}
        <input type="hidden" name="csrf_token" value={consentCsrfToken(session.sessionToken)} />
        <section id="accounts" className="rounded-md border border-slate-200 bg-white p-4">
          <AccountChoice
            accounts={accounts}
            initial={null}
            mode="boxes"
            legend="Accounts it may read"
            error={
              noAccountTicked ? "No account was ticked: tick at least one to approve, or deny." : undefined
            }
          />
        </section>
        <div className="mt-8 flex gap-3">
          <button
            type="submit"
            name="decision"
            value="approve"
            className="rounded-md bg-slate-900 px-4 py-2 text-white hover:bg-slate-700"
          >
            Approve
          </button>
          <button
            type="submit"
            name="decision"
            value="deny"
            className="rounded-md border border-slate-300 px-4 py-2 hover:bg-slate-100"
          >
            Deny
          </button>
        </div>
      </form>
    </main>
  );
}
