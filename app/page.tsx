import Link from "next/link";

export default function LandingPage() {
  return (
    <main className="mx-auto max-w-3xl px-6 py-16">
      <h1 className="text-4xl font-semibold tracking-tight">Ledgerlink</h1>
      <p className="mt-4 text-lg text-slate-700">
        Let your AI assistant answer questions about your own money. Ledgerlink is a remote MCP server: link
        your banks, subscribe, and paste one URL into Claude, ChatGPT, Cursor, VS Code or any MCP client.
      </p>
      <ul className="mt-8 list-disc space-y-2 pl-6 text-slate-700">
        <li>
          12 read-only tools: balances, transactions, spending, cash flow, bills, investments, debt, net
          worth.
        </li>
        <li>Numbers computed in the database over your whole history, right to the cent.</li>
        <li>Connect with an API key or with OAuth: no key to copy.</li>
      </ul>
      <div className="mt-10 flex gap-4">
        <Link href="/dashboard" className="rounded-md bg-slate-900 px-4 py-2 text-white hover:bg-slate-700">
          Open the dashboard
        </Link>
      </div>
    </main>
  );
}
