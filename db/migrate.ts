/**
 * `npm run db:migrate`: applies db/migrations to DATABASE_URL (node-postgres or Neon) or, when
 * it is unset, to the PGlite folder PGLITE_DIR (default `.data/pglite`; run it while the server
 * is stopped, PGlite opens its folder from one process at a time).
 */
import { openDatabase } from "@/db";
import { getEnv } from "@/lib/env";
import { log } from "@/lib/log";

async function main() {
  const env = getEnv();
  const started = performance.now();
  const handle = await openDatabase({ url: env.DATABASE_URL, pgliteDir: env.PGLITE_DIR, migrate: true });
  await handle.close();
  const target = env.DATABASE_URL ? `${handle.kind} database` : `PGlite in ${env.PGLITE_DIR}`;
  log.info("db.migrated", { target, ms: Math.round(performance.now() - started) });
}

main().catch((error: unknown) => {
  // The message names the failed migration's statement; DDL carries no person's data.
  log.error("db.migrate_failed", { detail: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
