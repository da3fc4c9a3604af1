/**
 * `next build` puts db/index.ts into several chunks (route handlers, pages, server actions), each
 * a copy of the module with its own state, while the open database is shared through globalThis.
 * Whatever copy opened it, every copy must find its sync pool: otherwise a cron run's syncs go
 * through the request pool (its 500 ms lock bound and 3 s statement bound) and the MCP endpoint
 * takes the server for embedded PGlite. Two copies are made here with vi.resetModules.
 */
import { sql } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { testDatabaseKind } from "../helpers/db";

const pgUrl = testDatabaseKind() === "postgres" ? process.env.TEST_DATABASE_URL : undefined;

describe.skipIf(!pgUrl)("db/index.ts in several chunks of the build", () => {
  it("a copy that did not open the database still finds its sync pool", async () => {
    const opener = await import("@/db");
    vi.resetModules();
    const other = await import("@/db");
    expect(other).not.toBe(opener);
    const handle = await opener.openDatabase({ url: pgUrl, driver: "pg" });
    try {
      expect(other.isPooled(handle.db)).toBe(true);
      const sync = other.syncDatabaseFor(handle.db);
      expect(sync).not.toBe(handle.db);
      expect(sync).toBe(opener.syncDatabaseFor(handle.db));
      // The sync pool's own bounds: no lock bound (the request pool's is DB_LOCK_TIMEOUT_MS).
      const shown = (await sync.execute(sql`show lock_timeout`)) as unknown as {
        rows: Array<{ lock_timeout: string }>;
      };
      expect(shown.rows[0]?.lock_timeout).toBe("0");
    } finally {
      await handle.close();
    }
  });
});
