import { createHash, timingSafeEqual } from "node:crypto";
import { getDb } from "@/db";
import { syncDueConnections } from "@/lib/banking/sync-due";
import { getEnv } from "@/lib/env";
import { failureFields } from "@/lib/errors";
import { notAllowed, unavailable } from "@/lib/http";
import { log } from "@/lib/log";

export const dynamic = "force-dynamic";
// A batch of bank syncs can take a while; Vercel caps the function at this many seconds.
export const maxDuration = 300;

/**
 * Vercel Cron sends `Authorization: Bearer <CRON_SECRET>`
 * (https://vercel.com/docs/cron-jobs/manage-cron-jobs#securing-cron-jobs). Compared in constant
 * time over SHA-256 digests, so neither the content nor the length of the secret leaks through
 * timing. With CRON_SECRET unset the route refuses everything: an open sync trigger would let
 * anyone spend our Plaid quota.
 */
function isAuthorized(request: Request): boolean {
  const secret = getEnv().CRON_SECRET;
  if (!secret) {
    log.warn("cron.secret_missing", { detail: "CRON_SECRET is not set: /api/cron/sync refuses every call." });
    return false;
  }
  const header = request.headers.get("authorization") ?? "";
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(header), digest(`Bearer ${secret}`));
}

async function run(request: Request): Promise<Response> {
  if (!isAuthorized(request)) {
    return Response.json(
      { error: "unauthorized", message: "A valid cron secret is required." },
      { status: 401, headers: { "www-authenticate": 'Bearer realm="cron"' } },
    );
  }
  try {
    const report = await syncDueConnections(await getDb());
    log.info("cron.scheduled_sync", {
      due: report.due,
      synced: report.synced,
      failed: report.failed,
      skipped: report.skipped,
    });
    return Response.json(report, { headers: { "cache-control": "no-store" } });
  } catch (error) {
    log.error("cron.scheduled_sync_failed", failureFields(error));
    const down = unavailable(error);
    if (down) return down;
    return Response.json(
      { error: "internal", message: "Something went wrong on our side. Please try again." },
      { status: 500 },
    );
  }
}

// GET /api/cron/sync – Vercel Cron: claim and sync the connections that are due (CRON_SECRET bearer); answers {due, synced, failed, skipped, results}
export async function GET(request: Request): Promise<Response> {
  return run(request);
}

// POST /api/cron/sync – the same, for schedulers that POST
export async function POST(request: Request): Promise<Response> {
  return run(request);
}

const otherMethods = notAllowed("GET", "POST");

export { otherMethods as DELETE, otherMethods as PATCH, otherMethods as PUT };
