/**
 * What the authorization server says when a server starts (loaded by instrumentation.ts under
 * the Node.js runtime, after the start-up checks).
 */
import { getEnv } from "@/lib/env";
import { log } from "@/lib/log";

/** The start-up notice for OAUTH_CIMD_TEST_ORIGINS, or null when it is off. */
export function cimdTestOriginsNotice(
  origins: readonly string[] = getEnv().OAUTH_CIMD_TEST_ORIGINS,
): string | null {
  if (origins.length === 0) return null;
  return `[oauth] OAUTH_CIMD_TEST_ORIGINS is on: client metadata documents at ${origins.join(", ")} are fetched over plain http without the public-address check. For tests only; never set it where real people sign in.`;
}

/** Logs the notices that apply. */
export function logOAuthStartupNotices(): void {
  const notice = cimdTestOriginsNotice();
  if (notice) log.warn("oauth.cimd_test_origins", { detail: notice });
}
