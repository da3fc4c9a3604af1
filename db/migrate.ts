/**
 * `npm run db:migrate`: applies db/migrations to DATABASE_URL_UNPOOLED, else DATABASE_URL
 * (node-postgres or Neon), or, when neither is set, to the PGlite folder PGLITE_DIR (default
 * `.data/pglite`; run it while the server is stopped, PGlite opens its folder from one process at
 * a time). On a server it is safe to run from several deployments at once: one migrates under an
 * advisory lock, the others wait for it and find nothing left to apply (db/migration-lock.ts).
 * It is the build step of a deployment (vercel.json `buildCommand`, docs/deploy.md).
 */
import { openDatabase } from "@/db";
import { getEnv } from "@/lib/env";
import { log } from "@/lib/log";

async function main() {
  const env = getEnv();
  const url = env.DATABASE_URL_UNPOOLED ?? env.DATABASE_URL;
  const started = performance.now();
  const handle = await openDatabase({
    url,
    pgliteDir: env.PGLITE_DIR,
    migrate: true,
    driver: env.DATABASE_DRIVER,
    onMigrationWait: () =>
      log.info("db.migration_waiting", {
        detail: "Another migration holds the lock (a deployment building at the same time): waiting for it.",
      }),
  });
  await handle.close();
  const target = url ? `${handle.kind} database` : `PGlite in ${env.PGLITE_DIR}`;
  const run = handle.migration;
  const what = run
    ? `${run.applied} migration${run.applied === 1 ? "" : "s"} applied${run.waitedMs > 0 ? `, after waiting ${run.waitedMs} ms for the lock` : ""}`
    : "up to date";
  const ms = Math.round(performance.now() - started);
  log.info("db.migrated", {
    target,
    ms,
    applied: run?.applied ?? 0,
    lock_waited_ms: run?.waitedMs ?? 0,
    detail: `Migrated the ${target} in ${ms} ms (${what}).`,
  });
}

main().catch((error: unknown) => {
  // The message names the failed migration's statement; DDL carries no person's data.
  log.error("db.migrate_failed", { detail: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
