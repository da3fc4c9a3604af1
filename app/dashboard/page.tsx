import Link from "next/link";
import { McpSetup } from "@/components/mcp-setup";
import { NextStep } from "@/components/next-step";
import { SubscriptionSummary } from "@/components/subscription-summary";
import { Card } from "@/components/ui/card";
import { getDb } from "@/db";
import { getAccess } from "@/lib/access";
import { listApiKeys } from "@/lib/api-keys";
import { requirePageUser } from "@/lib/auth";
import { getEnv } from "@/lib/env";

export const dynamic = "force-dynamic";
export const metadata = { title: "Overview · Ledgerlink" };

export default async function OverviewPage() {
  const user = await requirePageUser();
  const db = await getDb();
  const [access, keys] = await Promise.all([getAccess(db, user.id), listApiKeys(db, user.id)]);
  const live = access.connections.filter((c) => c.status !== "disconnected");
  const accountCount = live.reduce((sum, c) => sum + c.accountCount, 0);
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold tracking-tight">Overview</h1>
      <Card title="Next step">
        <NextStep access={access} keyCount={keys.length} />
      </Card>
      <div className="grid gap-4 md:grid-cols-3">
        <Card title="Subscription">
          <SubscriptionSummary state={access.subscription} />
          <Link href="/dashboard/billing" className="mt-3 inline-block text-sm text-slate-700 underline">
            Billing
          </Link>
        </Card>
        <Card title="Banks">
          <p className="text-sm text-slate-800" data-testid="bank-summary">
            {live.length === 0
              ? "No bank linked yet."
              : `${live.length} ${live.length === 1 ? "bank" : "banks"}, ${accountCount} ${accountCount === 1 ? "account" : "accounts"}.`}
          </p>
          {access.needsReauth.length > 0 ? (
            <p className="mt-1 text-sm text-amber-800">
              {access.needsReauth.length} need{access.needsReauth.length === 1 ? "s" : ""} reconnecting.
            </p>
          ) : null}
          <Link href="/dashboard/banks" className="mt-3 inline-block text-sm text-slate-700 underline">
            Banks
          </Link>
        </Card>
        <Card title="API keys">
          <p className="text-sm text-slate-800">
            {keys.length === 0
              ? "No keys yet."
              : `${keys.length} live ${keys.length === 1 ? "key" : "keys"}.`}
          </p>
          <Link href="/dashboard/keys" className="mt-3 inline-block text-sm text-slate-700 underline">
            API keys
          </Link>
        </Card>
      </div>
      <Card
        title="Connect your AI client"
        description="Paste one URL into any MCP client that speaks streamable HTTP."
      >
        <McpSetup mcpUrl={`${getEnv().APP_URL}/api/mcp`} />
      </Card>
    </div>
  );
}
