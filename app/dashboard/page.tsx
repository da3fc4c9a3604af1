import Link from "next/link";
import { McpSetup } from "@/components/mcp-setup";
import { NextStep } from "@/components/next-step";
import { SetupChecklist, type SetupStep } from "@/components/setup-checklist";
import { SubscriptionSummary } from "@/components/subscription-summary";
import { Card } from "@/components/ui/card";
import { getDb } from "@/db";
import { getAccess } from "@/lib/access";
import { hasAnsweredCall, listRecentToolCalls } from "@/lib/activity";
import { listApiKeys } from "@/lib/api-keys";
import { requirePageUser } from "@/lib/auth";
import { getEnv } from "@/lib/env";
import { listConnectedApps } from "@/lib/oauth/tokens";

export const dynamic = "force-dynamic";
export const metadata = { title: "Overview · Ledgerlink" };

export default async function OverviewPage() {
  const user = await requirePageUser();
  const db = await getDb();
  const [access, keys, apps, answered, recent] = await Promise.all([
    getAccess(db, user.id),
    listApiKeys(db, user.id),
    listConnectedApps(db, user.id),
    hasAnsweredCall(db, user.id),
    listRecentToolCalls(db, user.id, 5),
  ]);
  const live = access.connections.filter((c) => c.status !== "disconnected");
  const accountCount = live.reduce((sum, c) => sum + c.accountCount, 0);
  const mcpUrl = `${getEnv().APP_URL}/api/mcp`;
  if (!answered) {
    // Set-up: a checklist until the assistant's first answer with data.
    const steps: SetupStep[] = [
      {
        title: "Subscribe",
        text: "Your assistant's tools answer with data once the subscription is active.",
        done: access.subscription === "active",
        href: "/dashboard/billing",
        action: access.subscription === "past_due" ? "Fix billing" : "Subscribe",
      },
      {
        title: "Link a bank",
        text: "Sign in to your bank; Ledgerlink reads its accounts and transactions.",
        done: access.hasConnections,
        href: "/dashboard/banks",
        action: "Link a bank",
      },
      {
        title: "Create a key, or connect an app with OAuth",
        text: "Editors and Claude Code use a key; Claude and ChatGPT connectors sign in with OAuth instead.",
        done: keys.length > 0 || apps.length > 0,
        href: "/dashboard/keys",
        action: "Create a key",
      },
      {
        title: "Connect your assistant and ask it about your money",
        text: "Add Ledgerlink to your AI app (below), then ask “what did I spend on groceries last month?”.",
        done: false,
        href: "#connect",
        action: "Show how",
      },
    ];
    const connecting = steps.slice(0, 3).every((step) => step.done);
    return (
      <div className="space-y-6">
        <h1 className="text-2xl font-semibold tracking-tight">Get set up</h1>
        <Card>
          <SetupChecklist steps={steps} />
        </Card>
        {connecting ? (
          <Card
            id="connect"
            title="Connect your AI client"
            description="Paste one URL into any MCP client that speaks streamable HTTP."
          >
            <McpSetup mcpUrl={mcpUrl} />
            <p className="mt-4 text-sm text-slate-700">
              Curious what your assistant will receive?{" "}
              <Link href="/dashboard/tools" className="underline">
                Run its tools yourself
              </Link>
              .
            </p>
          </Card>
        ) : null}
      </div>
    );
  }
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold tracking-tight">Overview</h1>
      <Card title="Next step">
        <NextStep access={access} hasCredential={keys.length > 0 || apps.length > 0} />
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
      <Card title="Recent activity">
        <ul className="space-y-1 text-sm text-slate-700" data-testid="recent-activity">
          {recent.map((call) => (
            <li key={call.id}>
              {call.tool} · {call.status.replaceAll("_", " ")} ·{" "}
              {call.credentialLabel ?? "a removed credential"}
            </li>
          ))}
        </ul>
        <Link href="/dashboard/activity" className="mt-3 inline-block text-sm text-slate-700 underline">
          All activity
        </Link>
      </Card>
      <details className="rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
        <summary className="cursor-pointer text-base font-semibold text-slate-900">
          Connect another AI client
        </summary>
        <div className="mt-4">
          <McpSetup mcpUrl={mcpUrl} />
        </div>
      </details>
    </div>
  );
}
