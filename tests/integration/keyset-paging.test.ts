/**
 * Keyset paging under change: between two pages rows are synced in (newer, older and among the
 * rows already seen) and removed (seen and unseen). With an offset, the list would shift and a row
 * would come twice or go missing; with the keyset cursor every row that did not change appears
 * exactly once, in every sort of search_transactions and in the investments transactions view.
 */
import { randomUUID } from "node:crypto";
import { eq, inArray } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { investmentTransactions, transactions } from "@/db/schema";
import { TRANSACTION_SORTS } from "@/lib/finance/transactions";
import { getInvestmentsTool } from "@/lib/mcp/tools/get-investments";
import { searchTransactionsTool } from "@/lib/mcp/tools/search-transactions";
import { useTestDatabase } from "../helpers/db";
import {
  addAccount,
  addConnection,
  addTransactions,
  callTool,
  contextFor,
  createUser,
} from "./tools-helpers";

const getDb = useTestDatabase();
const NOW = new Date("2025-11-10T12:00:00Z");

/** A deterministic spread of dates and amounts, with ties on both (the id breaks them). */
function day(i: number): string {
  return new Date(Date.UTC(2025, 9, 1 + (i % 31))).toISOString().slice(0, 10);
}
const amount = (i: number) => (i % 2 === 0 ? -1 : 1) * (100 + (i % 7) * 250);

let userId: string;
let accountId: string;
let brokerageId: string;

beforeAll(async () => {
  const db = getDb();
  userId = await createUser(db);
  const connectionId = await addConnection(db, userId);
  accountId = await addAccount(db, userId, connectionId, {
    name: "Checking",
    type: "depository",
    balance: 0,
  });
  brokerageId = await addAccount(db, userId, connectionId, {
    name: "Brokerage",
    type: "investment",
    balance: 0,
  });
});

async function addInvestmentRows(n: number, offset: number): Promise<void> {
  await getDb()
    .insert(investmentTransactions)
    .values(
      Array.from({ length: n }, (_, i) => ({
        userId,
        accountId: brokerageId,
        providerInvestmentTransactionId: randomUUID(),
        date: day(offset + i),
        name: `Dividend ${offset + i}`,
        type: "dividend",
        amountMinor: 100 + i,
      })),
    );
}

describe("search_transactions pages under change", () => {
  for (const sort of TRANSACTION_SORTS) {
    it(`${sort}: every unchanged row exactly once`, async () => {
      const db = getDb();
      const tag = `page-${sort}-${randomUUID().slice(0, 8)}`;
      await addTransactions(
        db,
        userId,
        Array.from({ length: 40 }, (_, i) => ({
          accountId,
          date: day(i * 3),
          amountMinor: amount(i),
          category: "groceries",
          name: `${tag} ${i}`,
        })),
      );
      const ids = async () =>
        (
          await db.select({ id: transactions.id }).from(transactions).where(eq(transactions.userId, userId))
        ).map((r) => r.id);
      const before = new Set(await ids());
      const removed = new Set<string>();
      const seen: string[] = [];
      const ctx = await contextFor(db, userId, NOW);
      let cursor: string | undefined;
      for (let page = 0; page < 40; page++) {
        const out = await callTool(
          searchTransactionsTool,
          { query: tag, sort, limit: 7, ...(cursor ? { cursor } : {}) },
          ctx,
        );
        seen.push(...out.data.transactions.map((t) => t.id));
        cursor = out.page?.next_cursor;
        if (!cursor) break;
        // Between pages: new rows (newest, oldest, in the middle) and removals (one seen, one not).
        await addTransactions(
          db,
          userId,
          [0, 15, 30].map((d) => ({
            accountId,
            date: day(d + page),
            amountMinor: amount(d + page),
            category: "groceries",
            name: `${tag} new ${page}-${d}`,
          })),
        );
        const unseen = [...before].filter((id) => !seen.includes(id) && !removed.has(id));
        const victims = [seen[0], unseen[unseen.length - 1]].filter((id): id is string => Boolean(id));
        await db.delete(transactions).where(inArray(transactions.id, victims));
        for (const id of victims) removed.add(id);
      }
      expect(cursor).toBeUndefined();
      expect(new Set(seen).size).toBe(seen.length);
      const unchanged = [...before].filter((id) => !removed.has(id));
      for (const id of unchanged) expect(seen.filter((s) => s === id).length, id).toBe(1);
      await db.delete(transactions).where(eq(transactions.userId, userId));
    });
  }
});

describe("get_investments transactions pages under change", () => {
  it("every unchanged row exactly once", async () => {
    const db = getDb();
    await addInvestmentRows(30, 0);
    const before = (
      await db
        .select({ id: investmentTransactions.id })
        .from(investmentTransactions)
        .where(eq(investmentTransactions.userId, userId))
    ).map((r) => r.id);
    const ctx = await contextFor(db, userId, NOW);
    const seen: string[] = [];
    const removed = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < 30; page++) {
      const out = await callTool(
        getInvestmentsTool,
        {
          view: "transactions",
          start_date: "2025-09-01",
          end_date: "2025-11-10",
          limit: 6,
          ...(cursor ? { cursor } : {}),
        },
        ctx,
      );
      seen.push(...(out.data.transactions ?? []).map((t) => t.id));
      cursor = out.page?.next_cursor;
      if (!cursor) break;
      await addInvestmentRows(2, page * 7);
      const victim = seen[seen.length - 1];
      if (victim) {
        await db.delete(investmentTransactions).where(eq(investmentTransactions.id, victim));
        removed.add(victim);
      }
    }
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of before.filter((b) => !removed.has(b)))
      expect(seen.filter((s) => s === id).length, id).toBe(1);
  });
});
