import type { Metadata } from "next";
import Link from "next/link";

// The title is the page's own element, not Next's metadata (set to none here, so there is one
// title). The sign-in form lands here by a client-side navigation, and Next streams a page's
// metadata after its content: for a moment the page showed "Check your email" with no title at
// all (axe `document-title`, and a screen reader's announcement of the new page). React puts this
// element in the document's head in the same commit as the heading.
export const metadata: Metadata = { title: null };

const TITLE = "Check your email · Ledgerlink";

export default function CheckEmailPage() {
  return (
    <main className="mx-auto flex min-h-screen max-w-sm flex-col justify-center px-6 py-16">
      <title>{TITLE}</title>
      <h1 className="text-2xl font-semibold tracking-tight">Check your email</h1>
      <p role="status" className="mt-3 text-sm text-slate-700">
        A sign-in link is on its way. It works once and expires in 15 minutes.
      </p>
      <Link href="/sign-in" className="mt-6 text-sm text-slate-700 underline">
        Use another address
      </Link>
    </main>
  );
}
