/**
 * `npm run db:migrate`: applies db/migrations to DATABASE_URL (node-postgres or Neon) or, when
 * it is unset, to the PGlite folder PGLITE_DIR (default `.data/pglite`; run it while the server
 * is stopped, PGlite opens its folder from one process at a time).
 */
import { openDatabase } from "@/db";
import { getEnv } from "@/lib/env";

async function main() {
  const env = getEnv();
  const started = performance.now();
  const handle = await openDatabase({ url: env.DATABASE_URL, pgliteDir: env.PGLITE_DIR, migrate: true });
  await handle.close();
  const target = env.DATABASE_URL ? `${handle.kind} database` : `PGlite in ${env.PGLITE_DIR}`;
  console.log(`Migrated the ${target} in ${Math.round(performance.now() - started)} ms.`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
