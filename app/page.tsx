import Link from "next/link";
import { INCLUDED, priceLabel } from "@/lib/plan";

const STEPS = [
  { title: "Subscribe", text: "One plan, cancel any time." },
  { title: "Link your banks", text: "Sign in to your bank through Plaid; we never see your bank password." },
  {
    title: "Connect your assistant",
    text: "Paste one URL into Claude, ChatGPT, Cursor or VS Code, and ask about your money.",
  },
];

// GET / – what Ledgerlink is, what it costs, how to start, and what it can never do
export default async function LandingPage({ searchParams }: { searchParams: Promise<{ deleted?: string }> }) {
  const { deleted } = await searchParams;
  return (
    <main className="mx-auto max-w-3xl px-6 py-12 sm:py-16">
      {deleted === "1" ? (
        <p role="status" className="mb-6 rounded-md bg-emerald-50 p-3 text-sm text-emerald-900">
          Your account and all its data were deleted. Your banks are disconnected and your subscription is
          canceled.
        </p>
      ) : null}
      <header className="flex items-center justify-between">
        <span className="text-lg font-semibold tracking-tight">Ledgerlink</span>
        <Link
          href="/sign-in"
          className="text-sm font-medium text-slate-900 underline-offset-4 hover:underline"
        >
          Sign in
        </Link>
      </header>

      <h1 className="mt-12 text-4xl font-semibold tracking-tight">
        Ask your AI assistant about your own money.
      </h1>
      <p className="mt-4 text-lg text-slate-700">
        Ledgerlink lets Claude, ChatGPT and other assistants read your bank accounts, so “what did I spend on
        groceries last month?” gets an answer from your real transactions, right to the cent.
      </p>
      <div className="mt-8 flex flex-wrap items-center gap-4">
        <Link
          href="/sign-in"
          className="rounded-md bg-slate-900 px-5 py-2.5 font-medium text-white hover:bg-slate-700"
        >
          Get started
        </Link>
        <p className="text-slate-700">
          <span className="text-2xl font-semibold text-slate-900">{priceLabel()}</span>
        </p>
      </div>

      <section aria-labelledby="how" className="mt-14">
        <h2 id="how" className="text-xl font-semibold">
          How it works
        </h2>
        <ol className="mt-4 grid gap-4 sm:grid-cols-3">
          {STEPS.map((step, i) => (
            <li key={step.title} className="rounded-lg border border-slate-200 bg-white p-4">
              <p className="text-sm font-medium text-slate-500">Step {i + 1}</p>
              <p className="mt-1 font-semibold">{step.title}</p>
              <p className="mt-1 text-sm text-slate-700">{step.text}</p>
            </li>
          ))}
        </ol>
      </section>

      <section aria-labelledby="included" className="mt-12">
        <h2 id="included" className="text-xl font-semibold">
          What you get
        </h2>
        <ul className="mt-4 list-disc space-y-2 pl-6 text-slate-700">
          {INCLUDED.map((item) => (
            <li key={item}>{item}</li>
          ))}
        </ul>
      </section>

      <section aria-labelledby="safe" className="mt-12">
        <h2 id="safe" className="text-xl font-semibold">
          Your data, protected
        </h2>
        <ul className="mt-4 list-disc space-y-2 pl-6 text-slate-700">
          <li>Ledgerlink only reads. It cannot move money, pay bills or change anything at your bank.</li>
          <li>Bank access tokens are encrypted (AES-256-GCM); we never see or store your bank password.</li>
          <li>
            Every key and every connected app can be revoked from your dashboard, taking effect at once.
          </li>
        </ul>
      </section>
    </main>
  );
}
