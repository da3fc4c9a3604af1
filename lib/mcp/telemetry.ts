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

/** The JSON-RPC error code of a single answer (JSON or one event), when it is an error. */
function rpcErrorCode(text: string): string | undefined {
  if (!text.includes('"error":{"code":')) return undefined;
  const json = text.startsWith("{")
    ? text
    : text
        .split(/\r?\n/)
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trim())
        .join("");
  try {
    const code = (JSON.parse(json) as { error?: { code?: unknown } }).error?.code;
    return typeof code === "number" ? String(code) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Serves one MCP request as one operation: `serve` runs with the operation's span current (its
 * statements become the span's children, and runTool can mark it), then the answer says how it
 * ended. With no SDK registered the span is a no-op and only the log line's fields are noted.
 */
export async function traceMcpOperation<T extends McpAnswer>(
  start: McpOperationStart,
  serve: () => Promise<T>,
): Promise<T> {
  const tool = start.method === "tools/call" ? nameOrUndefined(start.tool) : undefined;
  const prompt = start.method === "prompts/get" ? nameOrUndefined(start.prompt) : undefined;
  const method = NAME.test(start.method.replace(/\//g, "_")) ? start.method : "_OTHER";
  const target = tool ?? prompt;
  noteRequest({ mcp_method: method, tool, prompt, protocol_version: start.protocolVersion });

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
  const operation: Operation = {};
  const started = performance.now();
  try {
    const answer = await context.with(trace.setSpan(parent, span).setValue(OPERATION, operation), serve);
    if (answer.status >= 400) operation.errorType ??= String(answer.status);
    const code = rpcErrorCode(answer.text);
    if (code) {
      operation.rpcCode = code;
      operation.errorType = code;
    }
    return answer;
  } catch (error) {
    operation.errorType = error instanceof Error ? error.name : "_OTHER";
    throw error;
  } finally {
    if (operation.errorType) {
      attributes["error.type"] = operation.errorType;
      span.setAttribute("error.type", operation.errorType);
      span.setStatus({ code: SpanStatusCode.ERROR });
      noteRequest({ error_type: operation.errorType });
    }
    if (operation.rpcCode) {
      attributes["rpc.response.status_code"] = operation.rpcCode;
      span.setAttribute("rpc.response.status_code", operation.rpcCode);
    }
    durationHistogram().record((performance.now() - started) / 1000, attributes);
    span.end();
  }
}

/** Marks the current MCP operation as a tool error (its answer carries `isError`). */
export function markToolError(): void {
  const operation = context.active().getValue(OPERATION) as Operation | undefined;
  if (operation) operation.errorType = "tool_error";
  noteRequest({ error_type: "tool_error" });
}
