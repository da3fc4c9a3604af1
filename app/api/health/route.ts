/**
 * Health for load balancers and uptime checks. Both answers are bare: no version, setting or
 * error, whatever happened (details go to the log).
 * - `GET /api/health`: 200 `{"status":"ok"}` when the process answers; never touches the database.
 * - `GET /api/health?ready=1`: 200 when the database answers one statement and its migrations are
 *   current (lib/health.ts); otherwise 503 `{"status":"unavailable"}` with Retry-After. The
 *   statement is bounded like every other (DB_ACQUIRE_TIMEOUT_MS, DB_STATEMENT_TIMEOUT_MS).
 */
import { getDb } from "@/db";
import { failureFields } from "@/lib/errors";
import { migrationsCurrent } from "@/lib/health";
import { notAllowed } from "@/lib/http";
import { log } from "@/lib/log";

export const dynamic = "force-dynamic";

const HEADERS = { "Cache-Control": "no-store" };

const ok = () => Response.json({ status: "ok" }, { headers: HEADERS });
const unavailable = () =>
  Response.json({ status: "unavailable" }, { status: 503, headers: { ...HEADERS, "Retry-After": "5" } });

// GET /api/health – liveness (no database); ?ready=1 – readiness (one statement, migrations current)
export async function GET(request: Request): Promise<Response> {
  if (new URL(request.url).searchParams.get("ready") !== "1") return ok();
  try {
    if (await migrationsCurrent(await getDb())) return ok();
    log.warn("health.migrations_behind");
  } catch (error) {
    log.warn("health.database_unavailable", failureFields(error));
  }
  return unavailable();
}

const otherMethods = notAllowed("GET");

export { otherMethods as DELETE, otherMethods as PATCH, otherMethods as POST, otherMethods as PUT };
