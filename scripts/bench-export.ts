/**
 * The export's part of `npm run bench` (scripts/bench.ts calls both functions): the heavy user's
 * whole JSON file and their transactions as CSV, downloaded from the production server over HTTP
 * as a browser would, timed from the request to the last byte, before any load runs (the tool
 * calls of the load would add to the file's activity). The target: at most 10 s each.
 *
 * `prepareExportBench` runs while the database is open for seeding (PGlite opens its folder from one
 * process at a time): it gives the heavy user a session, as signing in would. `benchExport` runs
 * once the server answers and prints what it measured. On a loaded machine the seconds follow the
 * load; the CPU seconds are what the export costs.
 */
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Database } from "@/db";
import { sessions, users } from "@/db/schema";
import { HEAVY_EMAIL } from "@/db/seed";

const TARGET_SECONDS = 10;
let sessionToken: string | undefined;

/** A session for the heavy user, for the downloads. */
export async function prepareExportBench(db: Database): Promise<void> {
  const [user] = await db.select({ id: users.id }).from(users).where(eq(users.email, HEAVY_EMAIL)).limit(1);
  if (!user) throw new Error(`no ${HEAVY_EMAIL} to export`);
  sessionToken = randomBytes(32).toString("hex");
  await db
    .insert(sessions)
    .values({ sessionToken, userId: user.id, expires: new Date(Date.now() + 86_400_000) });
}

/** CPU seconds of processes by id (scripts/bench.ts reads them from /proc). */
type CpuReading = () => Map<string, number>;

/** CPU seconds between two readings, of the processes alive at the second. */
function cpuBetween(before: Map<string, number>, after: Map<string, number>): number {
  let total = 0;
  for (const [pid, seconds] of after) total += seconds - (before.get(pid) ?? 0);
  return total;
}

/**
 * Downloads both files from `appUrl` twice (the first on a server just started: its database's
 * cache is cold; the second warm) and prints their size, rows, time, and the CPU seconds the
 * server (and, with PostgreSQL, the local server's processes, which `database` reads) spent on them.
 */
export async function benchExport(
  appUrl: string,
  server: CpuReading,
  database: CpuReading | false | "" | undefined,
): Promise<void> {
  if (!sessionToken) throw new Error("prepareExportBench did not run");
  for (const round of ["first", "again"]) {
    for (const format of ["json", "csv"] as const) {
      const cpu = [server(), database ? database() : undefined];
      const started = performance.now();
      const response = await fetch(`${appUrl}/api/export?format=${format}`, {
        // As a browser asks for it (fetch asks for compression and undoes it): bytes are the file's.
        headers: { cookie: `authjs.session-token=${sessionToken}` },
      });
      if (!response.ok || !response.body) throw new Error(`the ${format} export answered ${response.status}`);
      let bytes = 0;
      let lines = 0;
      const reader = response.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        bytes += value.byteLength;
        for (const byte of value) if (byte === 10) lines += 1;
      }
      const seconds = (performance.now() - started) / 1000;
      const serverCpu = cpuBetween(cpu[0] ?? new Map(), server());
      const databaseCpu = database ? cpuBetween(cpu[1] ?? new Map(), database()) : null;
      const what = format === "csv" ? `${lines - 1} transactions` : `${lines} lines`;
      console.log(
        `Export of the heavy user (${round}), ${format.toUpperCase()}: ${bytes} bytes (sent ${response.headers.get("content-encoding") ?? "uncompressed"}), ${what}, ${seconds.toFixed(2)} s (target at most ${TARGET_SECONDS} s${seconds > TARGET_SECONDS ? ": MISSED" : ""}); server CPU ${serverCpu.toFixed(2)} s${databaseCpu === null ? "" : `, database CPU ${databaseCpu.toFixed(2)} s`}.`,
      );
    }
  }
}
