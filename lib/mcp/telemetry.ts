/**
 * One OpenTelemetry SERVER span per MCP request, as the semantic conventions for MCP say: named
 * `{mcp.method.name} {target}` (the tool's or prompt's name when there is one), with
 * `mcp.method.name`, `gen_ai.tool.name` / `gen_ai.prompt.name`, `mcp.protocol.version`,
 * `jsonrpc.request.id`, `network.transport` and, when the request failed, `error.type` (the
 * JSON-RPC error code, the HTTP status of a refusal, or `tool_error` for a tool answer with
 * `isError`, which runTool reports through `markToolError`). Its parent is the W3C trace context
 * in `params._meta` (SEP-414) when the client sent one, linked to the HTTP span; otherwise the
 * HTTP span, which Next continued from the `traceparent` header (or, outside Next, the header
 * itself). The request's database statements are its children (lib/telemetry.ts). Each request
 * also records `mcp.server.operation.duration` (seconds) and notes its method, target and
 * outcome for the request's log line. No argument, result or message text is recorded.
 * https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/
 */
import { TRACEPARENT_META_KEY, TRACESTATE_META_KEY } from "@modelcontextprotocol/server";
import {
  type Attributes,
  type Context,
  context,
  createContextKey,
  type Histogram,
  type Link,
  type MeterProvider,
  metrics,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  trace,
} from "@opentelemetry/api";
import { noteRequest } from "@/lib/request-context";
import { ledgerlinkTracer } from "@/lib/telemetry";

export interface McpOperationStart {
  /** The JSON-RPC method: `tools/call`, `initialize` … */
  method: string;
  /** The tool called (`tools/call`) or the prompt got (`prompts/get`). */
  tool?: string;
  prompt?: string;
  /** The JSON-RPC id of a request (absent for a notification). */
  id?: unknown;
  /** The revision the request is served in. */
  protocolVersion?: string;
  /** The request's `params._meta`, which may carry `traceparent` and `tracestate` (SEP-414). */
  meta?: unknown;
  /** The HTTP request's headers (`traceparent` when no span continued it yet). */
  headers: Headers;
}

/** What the endpoint answered: its HTTP status and, for the JSON-RPC error code, its body. */
export interface McpAnswer {
  status: number;
  text: string;
}

/** Bucket boundaries the conventions give for MCP durations (seconds). */
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** An operation in progress: its outcome, once known (set by `markToolError` or the answer). */
interface Operation {
  errorType?: string;
  rpcCode?: string;
  /** The revision an `initialize` negotiated, read from its answer. */
  protocolVersion?: string;
}

const OPERATION = createContextKey("ledgerlink.mcp-operation");

let duration: { provider: MeterProvider; histogram: Histogram } | undefined;

/** The duration histogram of the meter provider registered now (none before the SDK starts). */
function durationHistogram(): Histogram {
  const provider = metrics.getMeterProvider();
  if (duration?.provider !== provider) {
    const histogram = provider.getMeter("ledgerlink").createHistogram("mcp.server.operation.duration", {
      unit: "s",
      description:
        "MCP request duration as observed on the receiver from the time it was received until the result is sent.",
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    duration = { provider, histogram };
  }
  return duration.histogram;
}

/** Names a client sends are recorded only when they look like ours (no free text in names). */
const NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const nameOrUndefined = (name: string | undefined) => (name && NAME.test(name) ? name : undefined);

const headerGetter: TextMapGetter<Headers> = {
  get: (headers, key) => headers.get(key) ?? undefined,
  keys: (headers) => [...headers.keys()],
};

/**
 * The operation's parent and links: the client's context from `_meta` (the HTTP span, if any,
 * linked), else the active span, else the `traceparent` header. Other values of the active
 * context are kept.
 */
function parentOf(start: McpOperationStart): { parent: Context; links: Link[] } {
  const active = context.active();
  const meta = start.meta as Record<string, unknown> | null | undefined;
  const traceparent = meta && typeof meta === "object" ? meta[TRACEPARENT_META_KEY] : undefined;
  if (typeof traceparent === "string") {
    const tracestate = meta?.[TRACESTATE_META_KEY];
    const carrier = typeof tracestate === "string" ? { traceparent, tracestate } : { traceparent };
    const remote = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, carrier));
    if (remote) {
      const ambient = trace.getSpanContext(active);
      return { parent: trace.setSpanContext(active, remote), links: ambient ? [{ context: ambient }] : [] };
    }
  }
  if (trace.getSpan(active)) return { parent: active, links: [] };
  return { parent: propagation.extract(active, start.headers, headerGetter), links: [] };
}

/** The JSON-RPC responses an answer carries (one JSON body, an array, or events of a stream). */
function responsesOf(text: string): Array<Record<string, unknown>> {
  const bodies =
    text.startsWith("{") || text.startsWith("[")
      ? [text]
      : text.split(/\r?\n\r?\n/).map((event) =>
          event
            .split(/\r?\n/)
            .filter((line) => line.startsWith("data:"))
            .map((line) => line.slice(5).trim())
            .join(""),
        );
  const responses: Array<Record<string, unknown>> = [];
  for (const body of bodies) {
    if (!body) continue;
    try {
      const parsed: unknown = JSON.parse(body);
      for (const item of Array.isArray(parsed) ? parsed : [parsed])
        if (item && typeof item === "object") responses.push(item as Record<string, unknown>);
    } catch {
      // not JSON: no outcome to read
    }
  }
  return responses;
}

/** How one JSON-RPC response ended: its error code, `tool_error` for a result with `isError`. */
function outcomeOf(response: Record<string, unknown> | undefined): Operation {
  const error = response?.error as { code?: unknown } | undefined;
  if (typeof error?.code === "number") return { errorType: String(error.code), rpcCode: String(error.code) };
  if ((response?.result as { isError?: unknown } | undefined)?.isError === true)
    return { errorType: "tool_error" };
  return {};
}

/** The revision an `initialize` answer negotiated (the server's own words, nothing of the client's). */
function negotiatedVersion(text: string): string | undefined {
  const version = /"protocolVersion":"(\d{4}-\d{2}-\d{2})"/.exec(text)?.[1];
  return version;
}

/**
 * What the endpoint knows of each MCP request in a POST body (one message, or each of a batch).
 * `protocolVersion` is the revision the request is served in, when the endpoint knows it better
 * than the `MCP-Protocol-Version` header does.
 */
export function mcpOperationsOf(
  req: Request,
  message: unknown,
  protocolVersion = req.headers.get("mcp-protocol-version")?.trim() || undefined,
): McpOperationStart[] {
  const messages = Array.isArray(message) ? message : [message];
  const starts: McpOperationStart[] = [];
  for (const item of messages) {
    if (!item || typeof item !== "object") continue;
    const { method, id, params } = item as { method?: unknown; id?: unknown; params?: unknown };
    if (typeof method !== "string") continue;
    const p = params && typeof params === "object" ? (params as Record<string, unknown>) : {};
    const name = typeof p.name === "string" ? p.name : undefined;
    starts.push({
      method,
      ...(method === "tools/call" ? { tool: name } : method === "prompts/get" ? { prompt: name } : {}),
      id,
      protocolVersion,
      meta: p._meta,
      headers: req.headers,
    });
  }
  return starts;
}

/** One operation's span, attributes and outcome. */
interface Traced {
  start: McpOperationStart;
  span: Span;
  attributes: Attributes;
  operation: Operation;
  parent: Context;
}

function begin(start: McpOperationStart): Traced {
  const tool = start.method === "tools/call" ? nameOrUndefined(start.tool) : undefined;
  const prompt = start.method === "prompts/get" ? nameOrUndefined(start.prompt) : undefined;
  const method = NAME.test(start.method.replace(/\//g, "_")) ? start.method : "_OTHER";
  const target = tool ?? prompt;
  const attributes: Attributes = {
    "mcp.method.name": method,
    ...(tool ? { "gen_ai.tool.name": tool, "gen_ai.operation.name": "execute_tool" } : {}),
    ...(prompt ? { "gen_ai.prompt.name": prompt } : {}),
    ...(start.protocolVersion ? { "mcp.protocol.version": start.protocolVersion } : {}),
    "network.transport": "tcp",
    "network.protocol.name": "http",
  };
  const id = start.id;
  const { parent, links } = parentOf(start);
  const span = ledgerlinkTracer().startSpan(
    target ? `${method} ${target}` : method,
    {
      kind: SpanKind.SERVER,
      attributes: {
        ...attributes,
        ...(typeof id === "string" || typeof id === "number"
          ? { "jsonrpc.request.id": String(id).slice(0, 64) }
          : {}),
      },
      links,
    },
    parent,
  );
  return { start, span, attributes, operation: {}, parent };
}

function finish(traced: Traced, seconds: number): void {
  const { span, attributes, operation } = traced;
  if (operation.errorType) {
    attributes["error.type"] = operation.errorType;
    span.setAttribute("error.type", operation.errorType);
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  if (operation.rpcCode) {
    attributes["rpc.response.status_code"] = operation.rpcCode;
    span.setAttribute("rpc.response.status_code", operation.rpcCode);
  }
  // An initialize's revision is the one its answer negotiated, not the one it asked for.
  if (operation.protocolVersion && attributes["mcp.protocol.version"] !== operation.protocolVersion) {
    attributes["mcp.protocol.version"] = operation.protocolVersion;
    span.setAttribute("mcp.protocol.version", operation.protocolVersion);
  }
  durationHistogram().record(seconds, attributes);
  span.end();
}

/**
 * Serves the MCP requests of one POST (`mcpOperationsOf`) as operations: `serve` runs with the
 * span current (its statements become the span's children, and runTool can mark it), then the
 * answer says how each ended. A batch's messages (older revisions) are served together, so their
 * spans are siblings that share the exchange's time, and each outcome is read from its response.
 * With no SDK registered the spans are no-ops and only the log line's fields are noted.
 */
export async function traceMcpOperations<T extends McpAnswer>(
  starts: McpOperationStart[],
  serve: () => Promise<T>,
): Promise<T> {
  if (starts.length === 0) return serve();
  const traced = starts.map(begin);
  const names = (pick: (t: Traced) => unknown) =>
    traced
      .map(pick)
      .filter((v): v is string => typeof v === "string")
      .join(",") || undefined;
  noteRequest({
    mcp_method: names((t) => t.attributes["mcp.method.name"]),
    tool: names((t) => t.attributes["gen_ai.tool.name"]),
    prompt: names((t) => t.attributes["gen_ai.prompt.name"]),
    protocol_version: starts[0]?.protocolVersion,
  });
  const single = traced.length === 1 ? traced[0] : undefined;
  const started = performance.now();
  try {
    const run = single
      ? () =>
          context.with(trace.setSpan(single.parent, single.span).setValue(OPERATION, single.operation), serve)
      : serve;
    const answer = await run();
    for (const t of traced) if (answer.status >= 400) t.operation.errorType ??= String(answer.status);
    // A single tool's isError is marked by runTool (markToolError); JSON-RPC errors, and a batch's
    // outcomes, are read from the answer, which is parsed only when it may hold one.
    if (answer.status < 400 && (!single || answer.text.includes('"error":{"code":'))) {
      const responses = responsesOf(answer.text);
      for (const t of traced) {
        const outcome = outcomeOf(single ? responses[0] : responses.find((r) => r.id === t.start.id));
        if (outcome.errorType) Object.assign(t.operation, outcome);
      }
    }
    if (single?.start.method === "initialize" && answer.status < 400)
      single.operation.protocolVersion = negotiatedVersion(answer.text);
    return answer;
  } catch (error) {
    for (const t of traced) t.operation.errorType = error instanceof Error ? error.name : "_OTHER";
    throw error;
  } finally {
    const seconds = (performance.now() - started) / 1000;
    for (const t of traced) finish(t, seconds);
    const failed = names((t) => t.operation.errorType);
    if (failed) noteRequest({ error_type: failed });
  }
}

/** Marks the current MCP operation as a tool error (its answer carries `isError`). */
export function markToolError(): void {
  const operation = context.active().getValue(OPERATION) as Operation | undefined;
  if (operation) operation.errorType = "tool_error";
  noteRequest({ error_type: "tool_error" });
}
