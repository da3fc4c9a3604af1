import Link from "next/link";
import type { DashboardRun } from "@/lib/mcp/dashboard-run";
import { count } from "@/lib/words";
import { Badge } from "./ui/badge";
import { ScrollRegion } from "./ui/scroll-region";

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const heading = (key: string) => key.replaceAll("_", " ");

/** A cell: scalars as they are, anything nested as compact JSON (the raw view has it whole). */
function cell(value: Json | undefined): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** What a row of a list can lead to, by list name (search_transactions: change a row's category). */
type RowActions = Record<string, (row: JsonObject) => React.ReactNode>;

/**
 * A transaction of search_transactions: its category is changed on the dashboard's Transactions
 * page. The link is positioned so its screen-reader text stays inside the table's scrolling
 * region (an absolute element otherwise escapes it and widens the page on a phone).
 */
function changeCategoryLink(row: JsonObject): React.ReactNode {
  if (typeof row.id !== "string") return null;
  return (
    <Link
      href={`/dashboard/transactions?id=${encodeURIComponent(row.id)}`}
      className="relative whitespace-nowrap underline"
    >
      Change category
      <span className="sr-only">{` of ${cell(row.merchant) || cell(row.name)} on ${cell(row.date)}`}</span>
    </Link>
  );
}

/** Rows of objects as a table; the columns are every key the rows have, then the row's action if any. */
function RowsTable({
  name,
  rows,
  action,
}: {
  name: string;
  rows: JsonObject[];
  action?: RowActions[string];
}) {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  return (
    <ScrollRegion label={heading(name)}>
      <table className="min-w-full text-left text-sm">
        <caption className="py-1 text-left text-xs font-medium uppercase tracking-wide text-slate-500">
          {heading(name)} ({count(rows.length)})
        </caption>
        <thead className="border-b border-slate-200 text-xs text-slate-500">
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col" className="py-1.5 pr-4 font-medium whitespace-nowrap">
                {heading(column)}
              </th>
            ))}
            {action ? (
              <th scope="col" className="relative py-1.5 pr-4 font-medium whitespace-nowrap">
                <span className="sr-only">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {rows.map((row, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows are shown once, never reordered
            <tr key={index}>
              {columns.map((column) => (
                <td
                  key={column}
                  className={`py-1.5 pr-4 align-top ${typeof row[column] === "number" ? "text-right tabular-nums" : ""}`}
                >
                  {cell(row[column])}
                </td>
              ))}
              {action ? <td className="py-1.5 pr-4 align-top">{action(row)}</td> : null}
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}

/** An object as labelled values, its lists of rows as tables, nested objects one level deeper. */
function ObjectView({
  value,
  depth = 0,
  actions,
}: {
  value: JsonObject;
  depth?: number;
  actions?: RowActions;
}) {
  const scalars = Object.entries(value).filter(([, v]) => !isObject(v) && !Array.isArray(v));
  const nested = Object.entries(value).filter(([, v]) => isObject(v) || Array.isArray(v));
  return (
    <div className="space-y-4">
      {scalars.length > 0 ? (
        <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-4 gap-y-1 text-sm">
          {scalars.map(([key, v]) => (
            <div key={key} className="contents">
              <dt className="text-slate-600">{heading(key)}</dt>
              <dd className={typeof v === "number" ? "tabular-nums" : "break-words"}>{cell(v)}</dd>
            </div>
          ))}
        </dl>
      ) : null}
      {nested.map(([key, v]) => {
        if (Array.isArray(v)) {
          if (v.length === 0)
            return (
              <p key={key} className="text-sm text-slate-600">
                {heading(key)}: none
              </p>
            );
          if (v.every(isObject)) return <RowsTable key={key} name={key} rows={v} action={actions?.[key]} />;
          return (
            <p key={key} className="text-sm">
              <span className="text-slate-600">{heading(key)}:</span> {v.map(cell).join(", ")}
            </p>
          );
        }
        const object = v as JsonObject;
        return (
          <section
            key={key}
            aria-label={heading(key)}
            className={depth < 2 ? "border-l-2 border-slate-100 pl-3" : ""}
          >
            <h4 className="mb-1 text-xs font-medium uppercase tracking-wide text-slate-500">
              {heading(key)}
            </h4>
            {depth < 2 ? (
              <ObjectView value={object} depth={depth + 1} />
            ) : (
              <p className="text-sm">{cell(object)}</p>
            )}
          </section>
        );
      })}
    </div>
  );
}

function parse(text: string): JsonObject | null {
  try {
    const value = JSON.parse(text) as Json;
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}

/** One run's answer: readable first, then the raw text block with its size. */
export function ToolAnswer({ run }: { run: DashboardRun }) {
  const envelope = run.isError ? null : parse(run.text);
  const warnings = Array.isArray(envelope?.warnings) ? envelope.warnings.filter(isObject) : [];
  const data = envelope?.data;
  return (
    <section aria-label="Answer" className="space-y-4 border-t border-slate-200 pt-4">
      <h3 className="flex flex-wrap items-center gap-2 text-sm font-semibold text-slate-900">
        Answer to <span className="font-mono">{run.tool}</span>
        <Badge tone={run.isError ? "red" : envelope?.status === "ok" ? "green" : "amber"}>
          {run.isError ? "error" : String(envelope?.status ?? "")}
        </Badge>
      </h3>
      <p className="text-xs text-slate-600">
        Arguments sent: <code className="break-all">{JSON.stringify(run.args)}</code>
      </p>
      {run.isError ? (
        <p role="alert" className="rounded-md bg-red-50 p-3 text-sm text-red-800">
          {run.text}
        </p>
      ) : null}
      {envelope?.status === "setup_required" ? (
        <p className="rounded-md bg-amber-50 p-3 text-sm text-amber-900">
          {cell(envelope.message)}{" "}
          {typeof envelope.setup_url === "string" ? (
            <a href={envelope.setup_url} className="font-medium underline">
              Finish setup
            </a>
          ) : null}
        </p>
      ) : null}
      {warnings.length > 0 ? (
        <ul className="space-y-1 rounded-md bg-amber-50 p-3 text-sm text-amber-900">
          {warnings.map((w, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: warnings are shown once, never reordered
            <li key={index}>
              <span className="font-mono text-xs">{cell(w.code)}</span> {cell(w.message)}{" "}
              {typeof w.action_url === "string" ? (
                <a href={w.action_url} className="underline">
                  Fix it
                </a>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
      {isObject(data) ? (
        <ObjectView
          value={data}
          actions={run.tool === "search_transactions" ? { transactions: changeCategoryLink } : undefined}
        />
      ) : null}
      {isObject(envelope?.page) ? (
        <p className="text-xs text-slate-600">
          {count(Number(envelope.page.total_count ?? 0))} matches in all
          {envelope.page.has_more ? "; your assistant asks for more with page.next_cursor." : "."}
        </p>
      ) : null}
      <div>
        <h4 className="text-xs font-medium uppercase tracking-wide text-slate-500">
          Raw answer, {count(run.bytes)} bytes as sent (shown indented)
        </h4>
        <ScrollRegion
          label={`Raw answer of ${run.tool}`}
          className="mt-1 max-h-96 rounded-md bg-slate-900 p-3"
        >
          <pre className="text-xs text-slate-100">
            {envelope ? JSON.stringify(envelope, null, 2) : run.text}
          </pre>
        </ScrollRegion>
      </div>
    </section>
  );
}
