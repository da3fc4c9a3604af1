import type { RecentToolCall } from "@/lib/activity";
import { Badge, type BadgeTone } from "./ui/badge";
import { ScrollRegion } from "./ui/scroll-region";

const TONE: Record<string, BadgeTone> = {
  ok: "green",
  setup_required: "amber",
  invalid_arguments: "slate",
  error: "red",
};

/** `calls` with each time already written in the person's timezone (app/dashboard/format.ts). */
export function ActivityTable({ calls }: { calls: Array<RecentToolCall & { when: string }> }) {
  if (calls.length === 0) {
    return (
      <p className="text-sm text-slate-600">
        No tool calls yet. They appear here as your AI client uses Ledgerlink.
      </p>
    );
  }
  return (
    <ScrollRegion label="Recent tool calls">
      <table className="min-w-full text-left text-sm">
        <caption className="sr-only">Recent tool calls, newest first</caption>
        <thead className="border-b border-slate-200 text-xs uppercase tracking-wide text-slate-500">
          <tr>
            <th scope="col" className="py-2 pr-4 font-medium">
              Tool
            </th>
            <th scope="col" className="py-2 pr-4 font-medium">
              Client or key
            </th>
            <th scope="col" className="py-2 pr-4 font-medium">
              Status
            </th>
            <th scope="col" className="py-2 pr-4 text-right font-medium">
              Duration
            </th>
            <th scope="col" className="py-2 font-medium">
              Time
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {calls.map((c) => (
            <tr key={c.id}>
              <td className="py-2 pr-4 font-mono text-xs">{c.tool}</td>
              <td className="py-2 pr-4">
                {c.credentialLabel ?? (c.credentialKind === "oauth" ? "OAuth app" : "Deleted key")}
              </td>
              <td className="py-2 pr-4">
                <Badge tone={TONE[c.status] ?? "slate"}>{c.status.replace("_", " ")}</Badge>
              </td>
              <td className="py-2 pr-4 text-right tabular-nums">{c.durationMs} ms</td>
              <td className="py-2 whitespace-nowrap text-slate-600">{c.when}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
