/**
 * The OpenTelemetry SDK, started by instrumentation.ts only when OTEL_EXPORTER_OTLP_ENDPOINT is
 * set (without it nothing is registered, nothing is exported, and lib/telemetry.ts meets the
 * API's no-op tracer). Through `@vercel/otel`: traces go to the OTLP endpoint (http/protobuf, or
 * http/json with OTEL_EXPORTER_OTLP_PROTOCOL), and to Vercel's own trace drains when a project has
 * them; metrics (the `mcp.server.operation.duration` histogram, lib/mcp/telemetry.ts) go to the
 * same endpoint every OTEL_METRIC_EXPORT_INTERVAL ms (default 60 000). The standard OTEL_*
 * settings (service name, headers, sampler) are read by the SDK.
 * https://vercel.com/docs/otel
 *
 * Next's own spans name the request path with its query (`http.target`), and the fetch
 * instrumentation names outgoing URLs whole: a query can carry a sign-in token or an email, so
 * every span's URLs and name lose their query before any exporter sees them.
 */
import type { Context } from "@opentelemetry/api";
import { OTLPMetricExporter as OTLPJsonMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { OTLPMetricExporter as OTLPProtoMetricExporter } from "@opentelemetry/exporter-metrics-otlp-proto";
import { type MetricReader, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import type { ReadableSpan, Span, SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { registerOTel } from "@vercel/otel";

/** Span attributes that hold a URL or its query. */
const URL_ATTRIBUTES = ["http.target", "http.url", "url.full", "url.query", "resource.name"];

/** `text` without a query string: `/api/auth/callback/email?token=…` → `/api/auth/callback/email`. */
function withoutQuery(text: string): string {
  const at = text.indexOf("?");
  return at < 0 ? text : text.slice(0, at);
}

/** Drops the query from every URL a span names, as it starts (before any exporter can see it). */
export class QueryStrippingSpanProcessor implements SpanProcessor {
  onStart(span: Span, _parentContext: Context): void {
    for (const key of URL_ATTRIBUTES) {
      const value = span.attributes[key];
      if (typeof value === "string" && value.includes("?")) span.setAttribute(key, withoutQuery(value));
    }
    if (span.name.includes("?")) span.updateName(withoutQuery(span.name));
  }
  onEnd(_span: ReadableSpan): void {}
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** The OTLP metric exporter for OTEL_EXPORTER_OTLP_(METRICS_)PROTOCOL, read every interval. */
function otlpMetricReader(): MetricReader {
  const protocol =
    process.env.OTEL_EXPORTER_OTLP_METRICS_PROTOCOL?.trim() ||
    process.env.OTEL_EXPORTER_OTLP_PROTOCOL?.trim() ||
    "http/protobuf";
  const exporter = protocol === "http/json" ? new OTLPJsonMetricExporter() : new OTLPProtoMetricExporter();
  const interval = Number(process.env.OTEL_METRIC_EXPORT_INTERVAL);
  return new PeriodicExportingMetricReader({
    exporter,
    exportIntervalMillis: Number.isInteger(interval) && interval > 0 ? interval : 60_000,
  });
}

export interface TelemetryOptions {
  /** Where spans go (default: `@vercel/otel`'s, the OTLP endpoint). Tests pass an in-memory exporter's. */
  spanProcessors?: SpanProcessor[];
  /** Where metrics go (default: the OTLP endpoint). */
  metricReaders?: MetricReader[];
}

/** Registers the SDK for this process: tracer, meter, W3C propagation, fetch instrumentation. */
export function startTelemetry(options: TelemetryOptions = {}): void {
  registerOTel({
    serviceName: "ledgerlink",
    spanProcessors: [new QueryStrippingSpanProcessor(), ...(options.spanProcessors ?? ["auto" as const])],
    metricReaders: options.metricReaders ?? [otlpMetricReader()],
  });
}
