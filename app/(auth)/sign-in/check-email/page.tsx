import Link from "next/link";

export const metadata = { title: "Check your email · Ledgerlink" };

export default function CheckEmailPage() {
  return (
    <main className="mx-auto flex min-h-screen max-w-sm flex-col justify-center px-6 py-16">
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
