import type { Metadata } from "next";
import { connection } from "next/server";
import "./globals.css";

export const metadata: Metadata = {
  title: "Ledgerlink",
  description:
    "Let your AI assistant read your bank data, safely: a remote MCP server for your linked banks.",
};

// Every page is rendered per request: Next puts the request's CSP nonce (proxy.ts) on its scripts.
export default async function RootLayout({ children }: { children: React.ReactNode }) {
  await connection();
  return (
    <html lang="en">
      <body className="min-h-screen bg-slate-50 text-slate-900 antialiased">{children}</body>
    </html>
  );
}
