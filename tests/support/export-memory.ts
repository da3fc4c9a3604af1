/**
 * Memory of an export, measured in a process of its own (tests/integration/export-memory.test.ts
 * runs it as `node --expose-gc --import tsx tests/support/export-memory.ts '[200,4000,20000]'`).
 *
 * For each size: a person with that many transactions, then their JSON file and their CSV read
 * to the end through the route's own response (lib/export/response.ts), chunk by chunk, as a
 * browser would. After every chunk a full collection, then the heap and the array buffers in use;
 * the peak over the download less what was in use before it is the export's growth. Prints one
 * JSON line: `[{ rows, format, bytes, chunks, growthBytes }]`.
 *
 * The database is the suite's: in-memory PGlite, or TEST_DATABASE_URL with
 * LEDGERLINK_TEST_DB=postgres (the people made here are deleted at the end).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { openDatabase, syncDatabaseFor } from "@/db";
import { bankAccounts, bankConnections, sessions, users } from "@/db/schema";
import { exportDownload } from "@/lib/export/response";

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --expose-gc");

function inUse(): number {
  gc?.();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

const sizes = JSON.parse(process.argv[2] ?? "[]") as number[];
const handle =
  process.env.LEDGERLINK_TEST_DB === "postgres"
    ? await openDatabase({ url: process.env.TEST_DATABASE_URL, migrate: false })
    : await openDatabase({ pgliteDir: "memory://" });
const db = handle.db;
const results: Array<{ rows: number; format: string; bytes: number; chunks: number; growthBytes: number }> =
  [];
const made: string[] = [];
try {
  for (const rows of sizes) {
    const userId = randomUUID();
    made.push(userId);
    await db.insert(users).values({ id: userId, email: `memory-${userId}@test.ledgerlink.local` });
    const sessionToken = randomBytes(32).toString("hex");
    await db.insert(sessions).values({ sessionToken, userId, expires: new Date(Date.now() + 3600_000) });
    const connectionId = randomUUID();
    await db.insert(bankConnections).values({
      id: connectionId,
      userId,
      provider: "sandbox",
      providerItemId: `item_${connectionId}`,
      institutionId: "ins_test",
      institutionName: "Memory Bank",
      accessTokenCiphertext: "x",
      accessTokenKeyVersion: 1,
    });
    const accountId = randomUUID();
    await db.insert(bankAccounts).values({
      id: accountId,
      userId,
      connectionId,
      providerAccountId: `acc_${accountId}`,
      name: "Checking",
      type: "depository",
    });
    // Rows of realistic width: a description, a merchant, a category, an amount, a date over five years.
    // Rows of realistic width: a description, a merchant, a category, an amount, a date over five
    // years. Written through the sync pool (a bulk write, its longer statement bound) without the
    // triggers that keep the rollups, which an export never reads.
    await syncDatabaseFor(db).transaction(async (tx) => {
      await tx.execute(sql`set local session_replication_role = replica`);
      await tx.execute(sql`
        insert into transactions (id, user_id, account_id, provider_transaction_id, date, name, merchant_name,
                                  amount_minor, currency, category, payment_channel)
        select gen_random_uuid()::text, ${userId}, ${accountId}, 'memory_' || g,
               date '2021-01-01' + (g % 1800), 'CARD PURCHASE ' || g || ' MAIN STREET STORE #' || (g % 97),
               'Merchant ' || (g % 300), -((g * 7919) % 250000) - 1, 'USD', 'shopping', 'in store'
        from generate_series(1, ${rows}) g`);
    });
    for (const format of ["json", "csv"]) {
      const request = new Request(`http://localhost/api/export?format=${format}`, {
        headers: { cookie: `authjs.session-token=${sessionToken}` },
      });
      const before = inUse();
      let peak = before;
      let bytes = 0;
      let chunks = 0;
      const response = await exportDownload(db, request);
      const reader = response.body?.getReader();
      if (!reader) throw new Error(`no body: ${response.status}`);
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        bytes += value.byteLength;
        chunks += 1;
        peak = Math.max(peak, inUse());
      }
      results.push({ rows, format, bytes, chunks, growthBytes: peak - before });
    }
  }
  console.log(JSON.stringify(results));
} finally {
  for (const userId of made) {
    // The rows went in without the rollups' triggers: they leave the same way (through the sync
    // pool, whose statements may run longer), then the person with the rest.
    await syncDatabaseFor(db).transaction(async (tx) => {
      await tx.execute(sql`set local session_replication_role = replica`);
      await tx.execute(sql`delete from transactions where user_id = ${userId}`);
    });
    await db.delete(users).where(eq(users.id, userId));
  }
  await handle.close();
}
