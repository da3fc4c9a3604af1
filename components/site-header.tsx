import Link from "next/link";
import { SignOutForm } from "./sign-out-form";

/** The header on every dashboard page: product name and who is signed in. */
export function SiteHeader({ user }: { user: { email: string | null; name: string | null } }) {
  const who = user.email ?? user.name ?? "Signed in";
  return (
    <header className="border-b border-slate-200 bg-white">
      <div className="mx-auto flex max-w-5xl flex-wrap items-center justify-between gap-3 px-4 py-3 sm:px-6">
        <Link href="/dashboard" className="text-base font-semibold tracking-tight text-slate-900">
          Ledgerlink
        </Link>
        <div className="flex items-center gap-3 text-sm text-slate-700">
          <span>
            Signed in as{" "}
            <strong className="font-medium text-slate-900" data-testid="signed-in-as">
              {who}
            </strong>
          </span>
          <SignOutForm />
        </div>
      </div>
    </header>
  );
}
