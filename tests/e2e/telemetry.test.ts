/**
 * OpenTelemetry as a deployment runs it: the production build under `next start`, exporting over
 * OTLP/HTTP (JSON) to a local collector (tests/fixtures/otlp-sink.ts), through @vercel/otel as
 * instrumentation.ts registers it.
 * - A `traceparent` header is continued by Next's HTTP span; the MCP request's span is inside that
 *   trace and the statements are its children. One in `params._meta` (SEP-414) is the MCP span's
 *   parent, with the span of the HTTP request's trace that was current linked.
 * - `mcp.server.operation.duration` arrives as a histogram in seconds.
 * - No URL in any span keeps its query (a sign-in callback's token and email), and nothing
 *   exported holds the key.
 * - Without OTEL_EXPORTER_OTLP_ENDPOINT nothing is exported, even with the per-signal endpoints
 *   (which the SDK would use) pointing at the collector.
 */
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { openDatabase } from "@/db";
import { subscriptions, users } from "@/db/schema";
import { createApiKey } from "@/lib/api-keys";
import { linkConnection, listSandboxInstitutions } from "@/lib/banking/connections";
import { type OtlpSink, type SinkSpan, startOtlpSink } from "../fixtures/otlp-sink";
import { type StartedServer, startServer } from "./helpers";

const skip = Boolean(inject("e2eSkipReason"));

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN = "00f067aa0ba902b7";
const META_TRACE = "0af7651916cd43dd8448eb211c80319c";
const META_SPAN = "b7ad6b7169203331";

/** Waits (bounded) until `ready()` holds. */
async function until(ready: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`${what} did not arrive within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A trace as an indented tree, for the log of the run. */
function tree(spans: SinkSpan[], root: SinkSpan, depth = 0): string[] {
  const kinds = ["", "internal", "server", "client"];
  const line = `${"  ".repeat(depth)}${root.name} (${kinds[root.kind] ?? root.kind})`;
  const children = spans
    .filter((s) => s.parentSpanId === root.spanId)
    .sort((a, b) => a.startNanos - b.startNanos);
  return [line, ...children.flatMap((child) => tree(spans, child, depth + 1))];
}

describe.skipIf(skip)("OpenTelemetry on the production build", () => {
  const pgliteDir = path.join(
    inject("e2eAppDir"),
    ".data",
    `e2e-telemetry-${randomBytes(4).toString("hex")}`,
  );
  let sink: OtlpSink;
  let server: StartedServer | undefined;
  let apiKey: string;

  beforeAll(async () => {
    // The person, their bank and key, written before the server opens the same PGlite folder.
    const handle = await openDatabase({ pgliteDir, migrate: true });
    try {
      const [user] = await handle.db
        .insert(users)
        .values({ email: `telemetry-${randomBytes(4).toString("hex")}@example.test` })
        .returning({ id: users.id });
      if (!user) throw new Error("no user");
      await handle.db
        .insert(subscriptions)
        .values({ userId: user.id, provider: "local", customerId: `cus_${user.id}`, status: "active" });
      await linkConnection(handle.db, {
        userId: user.id,
        provider: "sandbox",
        institutionId: listSandboxInstitutions()[0]?.id,
      });
      apiKey = (await createApiKey(handle.db, user.id, "telemetry")).key;
    } finally {
      await handle.close();
    }
    sink = await startOtlpSink();
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    await sink?.close();
    await fs.rm(pgliteDir, { recursive: true, force: true });
  });

  const settings = (env: Record<string, string>) => ({
    PGLITE_DIR: pgliteDir,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_BSP_SCHEDULE_DELAY: "200",
    OTEL_METRIC_EXPORT_INTERVAL: "500",
    ...env,
  });
  const mcp = (baseUrl: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${baseUrl}/api/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${apiKey}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-06-18",
        ...headers,
      },
      body: JSON.stringify(body),
    }).then(async (response) => ({ status: response.status, text: await response.text() }));
  const toolCall = (id: number, name: string, meta?: Record<string, string>) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: {}, ...(meta ? { _meta: meta } : {}) },
  });

  it("continues traceparent through Next's HTTP span into the MCP span and its statements, exports the histogram, strips queries", async () => {
    server = await startServer({
      name: "telemetry",
      env: settings({ OTEL_EXPORTER_OTLP_ENDPOINT: sink.url }),
    });
    const { baseUrl } = server;
    expect(
      (await mcp(baseUrl, toolCall(1, "list_accounts"), { traceparent: `00-${TRACE}-${CLIENT_SPAN}-01` }))
        .status,
    ).toBe(200);
    expect(
      (
        await mcp(
          baseUrl,
          toolCall(2, "get_connection_status", { traceparent: `00-${META_TRACE}-${META_SPAN}-01` }),
        )
      ).status,
    ).toBe(200);
    const secretQuery = `token=${randomBytes(16).toString("hex")}&email=someone%40example.test`;
    expect((await fetch(`${baseUrl}/sign-in?${secretQuery}`)).status).toBe(200);

    const named = (name: string) => sink.spans.find((s) => s.name === name);
    await until(
      () => Boolean(named("tools/call list_accounts") && named("tools/call get_connection_status")),
      "MCP spans",
    );
    await until(() => sink.spans.some((s) => s.name === "GET /sign-in"), "the sign-in page's span");
    await until(
      () => sink.dataPoints.some((p) => p.attributes["gen_ai.tool.name"] === "get_connection_status"),
      "the duration histogram",
    );

    // The header's trace: Next's HTTP span continues it, the MCP span is inside it.
    const mcpSpan = named("tools/call list_accounts") as SinkSpan;
    expect(mcpSpan.traceId).toBe(TRACE);
    expect(mcpSpan.kind).toBe(2);
    expect(mcpSpan.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "list_accounts",
      "mcp.protocol.version": "2025-06-18",
    });
    const inTrace = sink.spans.filter((s) => s.traceId === TRACE);
    const http = inTrace.find((s) => s.name === "POST /api/mcp");
    expect(http?.parentSpanId).toBe(CLIENT_SPAN);
    const ancestors: string[] = [];
    for (let at: SinkSpan | undefined = mcpSpan; at?.parentSpanId; ) {
      ancestors.push(at.parentSpanId);
      at = inTrace.find((s) => s.spanId === at?.parentSpanId);
    }
    expect(ancestors).toContain(http?.spanId);
    const statements = inTrace.filter((s) => s.parentSpanId === mcpSpan.spanId);
    expect(statements.map((s) => s.name)).toContain("SELECT bank_accounts");
    for (const statement of statements) {
      expect(statement.kind).toBe(3);
      expect(Object.keys(statement.attributes).filter((k) => k.startsWith("db."))).toEqual(
        expect.arrayContaining(["db.system.name", "db.operation.name"]),
      );
      expect(statement.attributes).not.toHaveProperty("db.query.text");
    }
    const root = inTrace.find((s) => s.parentSpanId === CLIENT_SPAN) as SinkSpan;
    console.log(`[telemetry] the trace of one tools/call:\n${tree(sink.spans, root).join("\n")}`);

    // _meta's trace: the MCP span's parent is the client's span, the HTTP span is linked.
    const metaSpan = named("tools/call get_connection_status") as SinkSpan;
    expect(metaSpan.traceId).toBe(META_TRACE);
    expect(metaSpan.parentSpanId).toBe(META_SPAN);
    const linked = sink.spans.find((s) => s.spanId === metaSpan.links[0]?.spanId);
    expect(linked?.name).toBe("executing api route (app) /api/mcp");
    expect(sink.spans.find((s) => s.traceId === linked?.traceId && !s.parentSpanId)?.name).toBe(
      "POST /api/mcp",
    );

    const point = sink.dataPoints.find(
      (p) =>
        p.metric === "mcp.server.operation.duration" && p.attributes["gen_ai.tool.name"] === "list_accounts",
    );
    expect(point).toMatchObject({ unit: "s", attributes: { "mcp.method.name": "tools/call" } });
    expect(point?.count).toBeGreaterThanOrEqual(1);

    const signIn = sink.spans.filter((s) => s.traceId === named("GET /sign-in")?.traceId);
    expect(signIn.some((s) => s.attributes["http.target"] === "/sign-in")).toBe(true);
    const exported = sink.bodies.join("\n");
    expect(exported).not.toContain(secretQuery.slice(0, 20));
    expect(exported).not.toContain("someone%40example.test");
    expect(exported).not.toContain(apiKey);
    await server.stop();
    server = undefined;
  });

  it("exports nothing without OTEL_EXPORTER_OTLP_ENDPOINT, even with the per-signal endpoints set", async () => {
    const quiet = await startOtlpSink();
    try {
      server = await startServer({
        name: "telemetry-off",
        env: settings({
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${quiet.url}/v1/traces`,
          OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `${quiet.url}/v1/metrics`,
        }),
      });
      expect((await mcp(server.baseUrl, toolCall(1, "list_accounts"))).status).toBe(200);
      // Ten export intervals of a server that would export.
      await new Promise((r) => setTimeout(r, 2_000));
      expect(quiet.bodies).toEqual([]);
    } finally {
      await server?.stop();
      server = undefined;
      await quiet.close();
    }
  });
});
