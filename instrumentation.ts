/**
 * Start-up checks: Next calls `register()` once when a server starts. The checks live in a
 * node-only module (lib/billing/startup-check.ts), imported only under the Node.js runtime.
 */
export async function register(): Promise<void> {
  // `next build` may load this file too; the checks are about a running server.
  if (process.env.NEXT_PHASE === "phase-production-build") return;
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { runStartupChecks } = await import("@/lib/billing/startup-check");
    runStartupChecks();
    const { logOAuthStartupNotices } = await import("@/lib/oauth/startup");
    logOAuthStartupNotices();
  }
}
