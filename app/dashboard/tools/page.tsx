import type { Metadata } from "next";
import Link from "next/link";
import { type RunAsOption, ToolRunner } from "@/components/tool-runner";
import { Card } from "@/components/ui/card";
import { getDb } from "@/db";
import { listApiKeys } from "@/lib/api-keys";
import { requirePageUser } from "@/lib/auth";
import { findTool } from "@/lib/mcp/dashboard-run";
import { formFieldsOf } from "@/lib/mcp/tool-form";
import { allTools } from "@/lib/mcp/tools";
import { listConnectedApps } from "@/lib/oauth/tokens";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "What your assistant sees · Ledgerlink" };

// GET /dashboard/tools?tool=<name> – run any tool as your assistant would, and see its answer
export default async function ToolsPage({ searchParams }: { searchParams: Promise<{ tool?: string }> }) {
  const user = await requirePageUser();
  const { tool: wanted } = await searchParams;
  const tool = (wanted ? findTool(wanted) : undefined) ?? allTools[0];
  if (!tool) throw new Error("no tools are defined");
  const db = await getDb();
  const [keys, apps] = await Promise.all([listApiKeys(db, user.id), listConnectedApps(db, user.id)]);
  // Whose accounts a run reads: the person's, or what one of their keys or apps sees.
  const runAs: RunAsOption[] = [
    ...keys.map((k) => ({ value: `key:${k.id}`, label: k.name, group: "API keys" as const })),
    ...apps.map((a) => ({
      value: `app:${a.grantId}`,
      label: a.clientName ?? "Unnamed app",
      group: "Connected apps" as const,
    })),
  ];
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">What your assistant sees</h1>
        <p className="mt-1 text-sm text-slate-600">
          Run any of the {allTools.length} tools yourself. The answer is exactly what your assistant receives:
          same checks, same data, same words. Run as one of your keys or apps to see only the accounts it may
          read. Runs appear in Activity as “Dashboard (you)”.
        </p>
      </div>
      <div className="grid gap-6 md:grid-cols-[14rem_minmax(0,1fr)]">
        <nav aria-label="Tools">
          <ul className="grid grid-cols-2 gap-1 md:grid-cols-1">
            {allTools.map((t) => (
              <li key={t.name}>
                <Link
                  href={`/dashboard/tools?tool=${t.name}`}
                  aria-current={t.name === tool.name ? "page" : undefined}
                  className={`block rounded-md px-3 py-2 text-sm ${
                    t.name === tool.name
                      ? "bg-slate-900 font-medium text-white"
                      : "text-slate-700 hover:bg-slate-100"
                  }`}
                >
                  {t.title}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <Card title={tool.title} description={tool.description} className="min-w-0">
          <p className="-mt-2 mb-4 font-mono text-xs text-slate-600">{tool.name}</p>
          <ToolRunner key={tool.name} tool={tool.name} fields={formFieldsOf(tool)} runAs={runAs} />
        </Card>
      </div>
    </div>
  );
}
