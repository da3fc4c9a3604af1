/**
 * What the MCP endpoint tells an operator, checked over real HTTP with the SDK registered as
 * production registers it (lib/telemetry-sdk.ts), its spans going to an in-memory exporter and
 * its metrics to a reader the test collects, and the request log hook installed
 * (lib/request-log.ts) with the console captured:
 * - one SERVER span per MCP request, named `{method} {tool or prompt}`, with the conventions'
 *   attributes; `error.type` for an `isError` answer (`tool_error`) and a JSON-RPC error (its code);
 * - a CLIENT span per statement under it, named for the statement, with no text or values;
 * - a `traceparent` header, and one in `params._meta` (SEP-414), continued;
 * - the `mcp.server.operation.duration` histogram, in seconds;
 * - every log line one JSON object, one line per request under the id its answer carried;
 * - and neither spans nor log lines holding the key, the email, or any of the person's amounts,
 *   merchants or descriptions, though the answers did.
 */
import { context, metrics, propagation, trace } from "@opentelemetry/api";
import { DataPointType, type HistogramMetricData, MetricReader } from "@opentelemetry/sdk-metrics";
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { transactions } from "@/db/schema";
import { createApiKey } from "@/lib/api-keys";
import { listSandboxInstitutions } from "@/lib/banking/connections";
import { watchHttpRequests } from "@/lib/request-log";
import { startTelemetry } from "@/lib/telemetry-sdk";
import { useTestDatabase } from "../helpers/db";
import { createTestUser, linkSandboxBank } from "../helpers/fixtures";
import { connectV2Client, initializeRequest, rpc } from "../helpers/mcp-client";
import { type ServedRoutes, serveRoutes } from "../helpers/serve";

/** A reader the test collects on demand. */
class CollectingReader extends MetricReader {
  protected async onShutdown(): Promise<void> {}
  protected async onForceFlush(): Promise<void> {}
}

const getDb = useTestDatabase();
const exporter = new InMemorySpanExporter();
const reader = new CollectingReader();
const lines: string[] = [];

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN = "00f067aa0ba902b7";
const META_TRACE = "0af7651916cd43dd8448eb211c80319c";
const META_SPAN = "b7ad6b7169203331";

describe("telemetry of the MCP endpoint", () => {
  let server: ServedRoutes;
  let apiKey: string;
  let email: string;
  let userId: string;
  const answers: string[] = [];
  const requestIds: string[] = [];
  /** Every span of every call (the exporter is emptied before each). */
  const allSpans: ReadableSpan[] = [];

  beforeAll(async () => {
    startTelemetry({ spanProcessors: [new SimpleSpanProcessor(exporter)], metricReaders: [reader] });
    watchHttpRequests();
    for (const method of ["log", "info", "warn", "error"] as const)
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void lines.push(args.join(" ")));
    const user = await createTestUser(getDb(), "telemetry", { subscription: "active" });
    ({ id: userId, email } = user);
    const institution = listSandboxInstitutions()[0]?.id ?? "";
    await linkSandboxBank(getDb(), userId, institution, new Date());
    apiKey = (await createApiKey(getDb(), userId, "telemetry")).key;
    server = await serveRoutes({ "/api/mcp": () => import("@/app/api/mcp/route") });
  });

  afterAll(async () => {
    await server?.close();
    vi.restoreAllMocks();
    // The SDK is global to this process: leave none of it to the next file.
    trace.disable();
    metrics.disable();
    propagation.disable();
    context.disable();
  });

  /** One JSON-RPC POST with the key (and MCP-Protocol-Version unless `version` is null); what it made is kept. */
  const call = async (
    body: unknown,
    headers: Record<string, string> = {},
    version: string | null = "2025-06-18",
  ) => {
    exporter.reset();
    const answer = await rpc(server.url("/api/mcp"), body, {
      apiKey,
      headers: { ...(version ? { "mcp-protocol-version": version } : {}), ...headers },
    });
    answers.push(answer.text);
    requestIds.push(answer.headers.get("x-request-id") ?? "");
    const spans = exporter.getFinishedSpans();
    allSpans.push(...spans);
    return { answer, spans };
  };
  const toolCall = (id: number, name: string, args: Record<string, unknown> = {}, meta?: unknown) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
  });
  const serverSpans = (spans: ReadableSpan[]) =>
    spans.filter((s) => s.instrumentationScope.name === "ledgerlink" && s.kind === 1);
  const childrenOf = (spans: ReadableSpan[], parent: ReadableSpan) =>
    spans.filter((s) => s.parentSpanContext?.spanId === parent.spanContext().spanId);
  /** A span's attributes but `operation.name`, which @vercel/otel adds to every span for Datadog. */
  const own = (span: ReadableSpan | undefined) => {
    const { "operation.name": _datadog, ...rest } = span?.attributes ?? {};
    return rest;
  };

  it("a tools/call is one SERVER span named for its tool, continuing the traceparent header, its statements as children without values", async () => {
    const { answer, spans } = await call(toolCall(7, "list_accounts"), {
      traceparent: `00-${TRACE}-${CLIENT_SPAN}-01`,
    });
    expect(answer.status).toBe(200);
    const [span, ...others] = serverSpans(spans);
    expect(others).toEqual([]);
    expect(span?.name).toBe("tools/call list_accounts");
    expect(own(span)).toEqual({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "list_accounts",
      "gen_ai.operation.name": "execute_tool",
      "mcp.protocol.version": "2025-06-18",
      "jsonrpc.request.id": "7",
      "network.transport": "tcp",
      "network.protocol.name": "http",
    });
    expect(span?.status.code).not.toBe(2);
    expect(span?.spanContext().traceId).toBe(TRACE);
    expect(span?.parentSpanContext?.spanId).toBe(CLIENT_SPAN);

    const statements = childrenOf(spans, span as ReadableSpan);
    expect(statements.length).toBeGreaterThan(0);
    for (const statement of statements) {
      expect(statement.kind).toBe(2); // CLIENT
      expect(statement.name).toMatch(/^(SELECT|WITH|INSERT) [a-z_]+$/);
      expect(Object.keys(own(statement)).sort()).toEqual(
        ["db.collection.name", "db.operation.name", "db.system.name"].sort(),
      );
      expect(statement.spanContext().traceId).toBe(TRACE);
    }
    expect(statements.map((s) => s.name)).toContain("SELECT bank_accounts");
  });

  it("an isError answer is error.type tool_error; a JSON-RPC error is its code", async () => {
    const invalid = await call(toolCall(8, "search_transactions", { limt: 2 }));
    expect((invalid.answer.body as { result?: { isError?: boolean } }).result?.isError).toBe(true);
    const [failed] = serverSpans(invalid.spans);
    expect(failed?.name).toBe("tools/call search_transactions");
    expect(failed?.attributes["error.type"]).toBe("tool_error");
    expect(failed?.status.code).toBe(2); // ERROR

    const unknown = await call({ jsonrpc: "2.0", id: 9, method: "no/such_method", params: {} });
    const code = (unknown.answer.body as { error?: { code?: number } }).error?.code;
    expect(code).toBeTypeOf("number");
    const [refused] = serverSpans(unknown.spans);
    expect(refused?.attributes["error.type"]).toBe(String(code));
    expect(refused?.attributes["rpc.response.status_code"]).toBe(String(code));
    expect(refused?.status.code).toBe(2);

    const ok = await call(toolCall(10, "get_connection_status"));
    expect(serverSpans(ok.spans)[0]?.attributes["error.type"]).toBeUndefined();
  });

  it("a batch (2025-03-26) is a span per message, each with its own outcome", async () => {
    const { answer, spans } = await call(
      [toolCall(20, "list_accounts"), toolCall(21, "search_transactions", { limt: 2 })],
      {},
      "2025-03-26",
    );
    expect(answer.status).toBe(200);
    const batch = serverSpans(spans);
    expect(batch.map((s) => s.name).sort()).toEqual([
      "tools/call list_accounts",
      "tools/call search_transactions",
    ]);
    const byId = (id: string) => batch.find((s) => s.attributes["jsonrpc.request.id"] === id);
    expect(byId("20")?.attributes["error.type"]).toBeUndefined();
    expect(byId("21")?.attributes).toMatchObject({
      "error.type": "tool_error",
      "mcp.protocol.version": "2025-03-26",
    });
  });

  it("a traceparent in params._meta (SEP-414) is the parent, before the header's", async () => {
    const { spans } = await call(
      toolCall(11, "get_financial_overview", {}, { traceparent: `00-${META_TRACE}-${META_SPAN}-01` }),
      { traceparent: `00-${TRACE}-${CLIENT_SPAN}-01` },
    );
    const [span] = serverSpans(spans);
    expect(span?.name).toBe("tools/call get_financial_overview");
    expect(span?.spanContext().traceId).toBe(META_TRACE);
    expect(span?.parentSpanContext?.spanId).toBe(META_SPAN);
    for (const statement of childrenOf(spans, span as ReadableSpan))
      expect(statement.spanContext().traceId).toBe(META_TRACE);
  });

  it("initialize, a prompt and a real client's session each make their own span", async () => {
    // No MCP-Protocol-Version on initialize: the revision is the one the answer negotiated.
    const init = await call(initializeRequest("2025-06-18", 12), {}, null);
    expect(serverSpans(init.spans)[0]?.attributes).toMatchObject({
      "mcp.method.name": "initialize",
      "mcp.protocol.version": "2025-06-18",
    });
    const prompt = await call({
      jsonrpc: "2.0",
      id: 13,
      method: "prompts/get",
      params: { name: "subscription_audit" },
    });
    const [promptSpan] = serverSpans(prompt.spans);
    expect(promptSpan?.name).toBe("prompts/get subscription_audit");
    expect(promptSpan?.attributes["gen_ai.prompt.name"]).toBe("subscription_audit");

    exporter.reset();
    const client = await connectV2Client(server.url("/api/mcp"), apiKey);
    try {
      await client.client.listTools();
      const result = await client.client.callTool({ name: "search_transactions", arguments: { limit: 5 } });
      answers.push(JSON.stringify(result));
    } finally {
      await client.close();
    }
    allSpans.push(...exporter.getFinishedSpans());
    const names = serverSpans(exporter.getFinishedSpans()).map((s) => s.name);
    expect(names).toEqual(
      expect.arrayContaining(["initialize", "tools/list", "tools/call search_transactions"]),
    );
  });

  it("mcp.server.operation.duration is a histogram in seconds, by method, tool and outcome", async () => {
    const { resourceMetrics } = await reader.collect();
    const metric = resourceMetrics.scopeMetrics
      .flatMap((scope) => scope.metrics)
      .find((m) => m.descriptor.name === "mcp.server.operation.duration") as HistogramMetricData | undefined;
    expect(metric?.descriptor.unit).toBe("s");
    expect(metric?.dataPointType).toBe(DataPointType.HISTOGRAM);
    const points = metric?.dataPoints ?? [];
    const listAccounts = points.find((p) => p.attributes["gen_ai.tool.name"] === "list_accounts");
    expect(listAccounts?.attributes).toMatchObject({ "mcp.method.name": "tools/call" });
    expect(listAccounts?.value.count).toBe(1);
    expect(listAccounts?.value.buckets.boundaries).toEqual([
      0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
    ]);
    // Seconds, not milliseconds: one local call is well under a minute.
    expect(listAccounts?.value.sum).toBeLessThan(60);
    const toolError = points.find(
      (p) => p.attributes["gen_ai.tool.name"] === "search_transactions" && p.attributes["error.type"],
    );
    expect(toolError?.attributes["error.type"]).toBe("tool_error");
  });

  it("log lines are JSON, one per request under its answer's id; no span or line holds the key, the email or the person's money", async () => {
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const requests = new Map(
      entries.filter((e) => e.msg === "request").map((e) => [e.request_id, e] as const),
    );
    expect(requestIds.length).toBeGreaterThan(5);
    for (const id of requestIds) {
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(requests.get(id), id).toMatchObject({
        method: "POST",
        route: "/api/mcp",
        status: expect.any(Number),
        duration_ms: expect.any(Number),
        statements: expect.any(Number),
        credential: "api_key",
        mcp_method: expect.any(String),
      });
    }
    const listed = [...requests.values()].find((e) => e.tool === "list_accounts");
    expect(listed).toMatchObject({ mcp_method: "tools/call", status: 200 });
    expect(listed?.statements).toBeGreaterThanOrEqual(2); // the caller's statement and the tool's
    expect([...requests.values()].find((e) => e.error_type === "tool_error")).toBeDefined();

    // What must appear nowhere, though the answers carried it.
    const rows = await getDb()
      .select({
        amount: transactions.amountMinor,
        merchant: transactions.merchantName,
        name: transactions.name,
      })
      .from(transactions)
      .where(eq(transactions.userId, userId));
    const amounts = [
      ...new Set(rows.map((r) => Math.abs(Number(r.amount))).filter((m) => m % 100 !== 0)),
    ].map(
      (minor) =>
        `${Math.floor(minor / 100)}.${String(minor % 100)
          .padStart(2, "0")
          .replace(/0$/, "")}`,
    );
    const texts = [...new Set(rows.flatMap((r) => [r.merchant, r.name]))].filter(
      (t): t is string => typeof t === "string" && t.length >= 6,
    );
    const answered = answers.join("\n");
    const shown = amounts.filter((a) => answered.includes(a));
    expect(shown.length, "the answers carried some of the person's amounts").toBeGreaterThan(3);

    expect(allSpans.length).toBeGreaterThan(20);
    const spanText = JSON.stringify(allSpans.map((s) => ({ name: s.name, attributes: s.attributes })));
    const serverSpanText = JSON.stringify(
      allSpans
        .filter((s) => s.instrumentationScope.name === "ledgerlink")
        .map((s) => ({ name: s.name, attributes: s.attributes })),
    );
    // The test's own requests are traced too (fetch spans name the test server's address); the
    // client's address must be in no span of the server's and no log line.
    expect(lines.join("\n"), "an IP address is in the log").not.toMatch(/\b127\.0\.0\.1\b/);
    expect(serverSpanText, "an IP address is in the server's spans").not.toMatch(/\b127\.0\.0\.1\b/);
    const everything = { log: lines.join("\n"), spans: spanText };
    for (const [where, text] of Object.entries(everything)) {
      expect(text.includes(apiKey), `the API key is in the ${where}`).toBe(false);
      expect(text.includes(apiKey.slice(4, 24)), `part of the API key is in the ${where}`).toBe(false);
      expect(text.includes(email), `the email is in the ${where}`).toBe(false);
      for (const amount of amounts) {
        const pattern = new RegExp(`(?<![\\d.])${amount.replace(".", "\\.")}(?!\\d)`);
        expect(pattern.test(text), `the amount ${amount} is in the ${where}`).toBe(false);
      }
      for (const value of texts) expect(text.includes(value), `"${value}" is in the ${where}`).toBe(false);
    }
  });
});
