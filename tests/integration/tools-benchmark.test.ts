/**
 * Timing of every tool's default call for the benchmark user (the hidden heavy sandbox bank:
 * ten busy accounts, five years, ~100,000 transactions). Slow to set up, so it runs only with
 * TOOLS_BENCHMARK=1, e.g.:
 *   TOOLS_BENCHMARK=1 TEST_DATABASE_URL=postgres://…/test_x npx vitest run --project postgres tests/integration/tools-benchmark.test.ts
 * Each tool is called once to warm up, then timed over five calls; the median must stay under
 * the budget.
 */
import { count, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { transactions } from "@/db/schema";
import { linkConnection } from "@/lib/banking/connections";
import { allTools } from "@/lib/mcp/tools";
import { useTestDatabase } from "../helpers/db";
import { callTool, contextFor, createUser } from "./tools-helpers";

const enabled = process.env.TOOLS_BENCHMARK === "1";
const BUDGET_MS = Number(process.env.TOOLS_BENCHMARK_BUDGET_MS ?? 500);
const NOW = new Date("2025-11-10T12:00:00Z");

describe.skipIf(!enabled)("tools on the benchmark user", () => {
  const getDb = useTestDatabase();
  let userId: string;

  beforeAll(async () => {
    const db = getDb();
    userId = await createUser(db);
    await linkConnection(db, { userId, provider: "sandbox", institutionId: "ins_heavy", now: NOW });
    const [row] = await db.select({ n: count() }).from(transactions).where(eq(transactions.userId, userId));
    console.log(`benchmark user: ${row?.n ?? 0} transactions`);
  }, 1_800_000);

  it("answers every tool's default call within the budget", async () => {
    const ctx = await contextFor(getDb(), userId, NOW);
    const timings: Record<string, number> = {};
    for (const tool of allTools) {
      await callTool(tool, {}, ctx);
      const runs: number[] = [];
      for (let i = 0; i < 5; i++) {
        const started = performance.now();
        await callTool(tool, {}, ctx);
        runs.push(performance.now() - started);
      }
      runs.sort((a, b) => a - b);
      timings[tool.name] = Math.round(runs[2] ?? 0);
    }
    console.log("median ms per tool:", timings);
    for (const [name, ms] of Object.entries(timings)) expect(ms, name).toBeLessThan(BUDGET_MS);
  }, 600_000);
});
