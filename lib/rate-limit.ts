/**
 * Per-credential fixed-window rate limit, kept in Postgres (`rate_limits`) because every request
 * may land on a different stateless function instance. One upsert per request: the counter of
 * the current minute is incremented and returned in the same statement, so concurrent requests
 * never both read a stale count.
 *
 * A database failure propagates (the caller answers 503): an unmeasurable limit must not turn
 * into an unlimited one.
 */
import { lt, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { rateLimits } from "@/db/schema";

const WINDOW_MS = 60_000;

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until the current window ends (at least 1); for `Retry-After`. */
  retryAfterSeconds: number;
}

/** The one-minute window `now` falls in, and the whole seconds until it ends (at least 1). */
export function rateLimitWindow(now: Date): { windowStart: Date; retryAfterSeconds: number } {
  const windowStart = new Date(Math.floor(now.getTime() / WINDOW_MS) * WINDOW_MS);
  const retryAfterSeconds = Math.max(
    1,
    Math.ceil((windowStart.getTime() + WINDOW_MS - now.getTime()) / 1000),
  );
  return { windowStart, retryAfterSeconds };
}

/**
 * Counts one request for `key` (e.g. `oauth_token:<address>`) in the current one-minute window
 * and says whether it is within `limitPerMinute`. (The MCP endpoint counts in its caller
 * statement instead, lib/mcp/caller.ts.)
 */
export async function consumeRateLimit(
  db: Database,
  key: string,
  limitPerMinute: number,
  now: Date = new Date(),
): Promise<RateLimitDecision> {
  const { windowStart, retryAfterSeconds } = rateLimitWindow(now);
  const [row] = await db
    .insert(rateLimits)
    .values({ key, windowStart, count: 1 })
    .onConflictDoUpdate({
      target: [rateLimits.key, rateLimits.windowStart],
      set: { count: sql`${rateLimits.count} + 1` },
    })
    .returning({ count: rateLimits.count });
  const count = row?.count ?? 1;
  // Old windows are useless; a rare, cheap sweep keeps the table small without a cron job.
  if (count === 1 && Math.random() < 0.01) await sweepRateLimits(db, now);
  return {
    allowed: count <= limitPerMinute,
    limit: limitPerMinute,
    remaining: Math.max(0, limitPerMinute - count),
    retryAfterSeconds,
  };
}

/** Deletes windows that ended more than ten minutes before `now`. */
export async function sweepRateLimits(db: Database, now: Date = new Date()): Promise<void> {
  await db.delete(rateLimits).where(lt(rateLimits.windowStart, new Date(now.getTime() - 11 * WINDOW_MS)));
}
