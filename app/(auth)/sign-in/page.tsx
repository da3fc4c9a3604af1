import Link from "next/link";
import { redirect } from "next/navigation";
import { EmailSignInForm } from "@/components/email-sign-in-form";
import { GitHubSignInForm } from "@/components/github-sign-in-form";
import { getSessionUser, signInMethods } from "@/lib/auth";
import { safeCallbackPath } from "@/lib/safe-redirect";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sign in · Ledgerlink" };

// Auth.js sends errors here as ?error=<type>; say something useful without leaking internals.
const ERRORS: Record<string, string> = {
  Verification: "That sign-in link has expired or was already used. Ask for a new one.",
  AccessDenied: "Sign-in was refused.",
  OAuthAccountNotLinked: "This email is already linked to another sign-in method. Use that one.",
};

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<{ error?: string; callbackUrl?: string }>;
}) {
  const { error, callbackUrl: requested } = await searchParams;
  const callbackUrl = safeCallbackPath(requested);
  if (await getSessionUser()) redirect(callbackUrl);
  const methods = signInMethods();
  const errorText = error ? (ERRORS[error] ?? "Sign-in did not work. Please try again.") : null;
  return (
    <main className="mx-auto flex min-h-screen max-w-sm flex-col justify-center px-6 py-16">
      <Link href="/" className="text-sm font-semibold tracking-tight text-slate-900">
        Ledgerlink
      </Link>
      <h1 className="mt-6 text-2xl font-semibold tracking-tight">Sign in</h1>
      <p className="mt-2 text-sm text-slate-600">
        Link your banks, subscribe and issue keys for your AI assistant.
      </p>
      {errorText ? (
        <p role="alert" className="mt-4 rounded-md bg-red-50 p-3 text-sm text-red-800">
          {errorText}
        </p>
      ) : null}
      <div className="mt-6 space-y-6">
        {methods.email ? <EmailSignInForm callbackUrl={callbackUrl} /> : null}
        {methods.email && methods.github ? (
          <p className="text-center text-xs uppercase tracking-wide text-slate-500">or</p>
        ) : null}
        {methods.github ? <GitHubSignInForm callbackUrl={callbackUrl} /> : null}
        {!methods.email && !methods.github ? (
          <p role="alert" className="rounded-md bg-amber-50 p-3 text-sm text-amber-900">
            No sign-in method is configured. Set SMTP_URL (email links) or AUTH_GITHUB_ID and
            AUTH_GITHUB_SECRET.
          </p>
        ) : null}
      </div>
    </main>
  );
}
