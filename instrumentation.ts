/**
 * Next calls `register()` once when a server starts: the start-up checks, the request log line
 * (lib/request-log.ts) and, when OTEL_EXPORTER_OTLP_ENDPOINT is set, OpenTelemetry
 * (lib/telemetry-sdk.ts, loaded only then). All of it lives in node-only modules, imported only
 * under the Node.js runtime. `onRequestError` logs what Next caught, as the rest of the log does.
 */
import type { Instrumentation } from "next";

export async function register(): Promise<void> {
  // `next build` may load this file too; the checks are about a running server.
  if (process.env.NEXT_PHASE === "phase-production-build") return;
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { runStartupChecks } = await import("@/lib/billing/startup-check");
    runStartupChecks();
    const { watchHttpRequests } = await import("@/lib/request-log");
    watchHttpRequests();
    if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()) {
      const { startTelemetry } = await import("@/lib/telemetry-sdk");
      startTelemetry();
    }
  }
}

/** An error Next caught while rendering or running a route: its kind and where, never its message. */
export const onRequestError: Instrumentation.onRequestError = async (error, request, context) => {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const [{ failureFields }, { log }, { routeOf }] = await Promise.all([
    import("@/lib/errors"),
    import("@/lib/log"),
    import("@/lib/request-log"),
  ]);
  log.error("request.failed", {
    method: request.method,
    route: routeOf(request.path),
    route_type: context.routeType,
    ...failureFields(error),
  });
};
