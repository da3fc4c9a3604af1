/**
 * Next calls `register()` once when a server starts: in production, JSON lines for whatever
 * else writes to the console (lib/log.ts), the start-up checks, the request log line
 * (lib/request-log.ts) and, when OTEL_EXPORTER_OTLP_ENDPOINT is set, OpenTelemetry
 * (lib/telemetry-sdk.ts, loaded only then). All of it lives in node-only modules, imported only
 * under the Node.js runtime. An error Next catches while serving is printed by Next itself, which
 * in production becomes a JSON line with the error's kind and digest (captureConsole), so there
 * is no `onRequestError` here to log it twice.
 */

export async function register(): Promise<void> {
  // `next build` may load this file too; the checks are about a running server.
  if (process.env.NEXT_PHASE === "phase-production-build") return;
  if (process.env.NEXT_RUNTIME === "nodejs") {
    if (process.env.NODE_ENV === "production") {
      // What Next and libraries print becomes JSON lines too (lib/log.ts).
      const { captureConsole } = await import("@/lib/log");
      captureConsole();
    }
    const { runStartupChecks } = await import("@/lib/billing/startup-check");
    runStartupChecks();
    const { logOAuthStartupNotices } = await import("@/lib/oauth/startup");
    logOAuthStartupNotices();
    const { watchHttpRequests } = await import("@/lib/request-log");
    watchHttpRequests();
    if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()) {
      const { startTelemetry } = await import("@/lib/telemetry-sdk");
      startTelemetry();
    }
  }
}
