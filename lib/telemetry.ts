/**
 * What the server tells OpenTelemetry, through the API only (@opentelemetry/api): with no SDK
 * registered (OTEL_EXPORTER_OTLP_ENDPOINT unset, lib/telemetry-sdk.ts) every call here meets the
 * API's no-op tracer and does next to nothing. This module holds the database side: one CLIENT
 * span per statement, a child of whatever span is active (the MCP request's, Next's HTTP span),
 * named for the statement's operation and main table, and never carrying its text or values.
 * It is the process-wide QueryObserver db/index.ts puts on every driver, which also counts each
 * statement against the current request's log line (lib/request-context.ts).
 * https://opentelemetry.io/docs/specs/semconv/database/database-spans/
 */
import { type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { QueryObserver } from "@/db";
import { countStatement } from "@/lib/request-context";

/** The tracer every Ledgerlink span comes from. */
export function ledgerlinkTracer() {
  return trace.getTracer("ledgerlink");
}

export interface StatementSummary {
  /** The statement's first keyword: SELECT, INSERT, UPDATE, DELETE, WITH … */
  operation: string;
  /** The first table it names (after FROM, INTO, UPDATE or JOIN; not a function), without its schema. */
  table?: string;
}

const summaries = new Map<string, StatementSummary>();

/**
 * A statement's operation and main table, from its text: comments and quoted literals are
 * dropped first, so nothing of a value can become part of the name (values are parameters, and
 * the few literals in our SQL are ours). Remembered per text, as the texts are few.
 */
export function summarizeStatement(text: string): StatementSummary {
  let summary = summaries.get(text);
  if (summary) return summary;
  const bare = text
    .replace(/\/\*[\s\S]*?\*\//g, " ")
    .replace(/--[^\n]*/g, " ")
    .replace(/'(?:[^']|'')*'/g, "''");
  const operation = /^\s*([A-Za-z]+)/.exec(bare)?.[1]?.toUpperCase() ?? "STATEMENT";
  const table =
    /\b(?:from|into|update|join)\s+(?:"?[A-Za-z_][\w$]*"?\s*\.\s*)?"?([A-Za-z_][\w$]{0,62})\b"?(?!\s*\()/i.exec(
      bare,
    )?.[1];
  summary = table ? { operation, table } : { operation };
  if (summaries.size < 1_000) summaries.set(text, summary);
  return summary;
}

/** The span name for a statement: `SELECT transactions` (the conventions' `{operation} {collection}`). */
export function statementSpanName(summary: StatementSummary): string {
  return summary.table ? `${summary.operation} ${summary.table}` : summary.operation;
}

function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
  const cause = (error as { cause?: unknown } | null)?.cause;
  return cause && cause !== error ? sqlState(cause) : undefined;
}

/** Ends a statement's span, marking it failed (by SQLSTATE or kind, never by message) when it was. */
function endStatement(span: Span, error: unknown): void {
  if (error !== undefined) {
    const state = sqlState(error);
    if (state) span.setAttribute("db.response.status_code", state);
    span.setAttribute("error.type", state ?? (error instanceof Error ? error.name : "_OTHER"));
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/**
 * Told of every statement at the driver (db/index.ts): counts it for the request's log line and,
 * when a recording span is active, opens its child span until the statement is answered. A
 * statement outside any traced work (a script, a timer) makes no span of its own.
 */
export const statementTelemetry: QueryObserver = {
  started(text) {
    countStatement();
    const parent = trace.getActiveSpan();
    if (!parent?.isRecording()) return;
    const summary = summarizeStatement(text);
    const span = ledgerlinkTracer().startSpan(statementSpanName(summary), {
      kind: SpanKind.CLIENT,
      attributes: {
        "db.system.name": "postgresql",
        "db.operation.name": summary.operation,
        ...(summary.table ? { "db.collection.name": summary.table } : {}),
      },
    });
    return (error) => endStatement(span, error);
  },
  finished() {},
};
