/**
 * Helpers of the tools' integration tests: a fresh user with hand-made bank rows (for the rule
 * cases), a tool context with a pinned clock, and `callTool`, which parses the arguments with the
 * tool's own zod input (as registerTools does), runs it and checks `data` against the tool's
 * declared data schema (what becomes its outputSchema).
 */
import { randomUUID } from "node:crypto";
import { expect } from "vitest";
import type { Database } from "@/db";
import { type AccountType, bankAccounts, bankConnections, liabilities, transactions } from "@/db/schema";
import { getAccess } from "@/lib/access";
import { categoryKind } from "@/lib/finance/categories";
import { loadAccountScope, type ScopeOf } from "@/lib/finance/scope";
import type { ToolContext, ToolDefinition, ToolOutput } from "@/lib/mcp/define-tool";
import { createTestUser } from "../helpers/fixtures";

/** A new subscribed user in `timezone`; returns its id. */
export async function createUser(db: Database, timezone = "UTC"): Promise<string> {
  return (await createTestUser(db, "tools", { subscription: "active", timezone })).id;
}

export async function addConnection(
  db: Database,
  userId: string,
  institutionName = "Test Bank",
): Promise<string> {
  const id = randomUUID();
  await db.insert(bankConnections).values({
    id,
    userId,
    provider: "sandbox",
    providerItemId: `item_${id}`,
    institutionId: "ins_test",
    institutionName,
    accessTokenCiphertext: "x",
    accessTokenKeyVersion: 1,
    lastSyncedAt: new Date("2025-11-10T00:00:00Z"),
  });
  return id;
}

export async function addAccount(
  db: Database,
  userId: string,
  connectionId: string,
  a: { name: string; type: AccountType; balance: number; limit?: number; subtype?: string },
): Promise<string> {
  const id = randomUUID();
  await db.insert(bankAccounts).values({
    id,
    userId,
    connectionId,
    providerAccountId: `acc_${id}`,
    name: a.name,
    type: a.type,
    subtype: a.subtype ?? null,
    currentBalanceMinor: a.balance,
    availableBalanceMinor: a.balance,
    limitMinor: a.limit ?? null,
    mask: "0000",
  });
  return id;
}

export interface RawTxn {
  accountId: string;
  date: string;
  amountMinor: number;
  category: string;
  name: string;
  merchantName?: string | null;
  pending?: boolean;
  isTransfer?: boolean;
  providerTransactionId?: string;
  pendingTransactionId?: string | null;
}

export async function addTransactions(db: Database, userId: string, rows: RawTxn[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) {
    await db.insert(transactions).values(
      rows.slice(i, i + 500).map((r) => ({
        userId,
        accountId: r.accountId,
        providerTransactionId: r.providerTransactionId ?? randomUUID(),
        pendingTransactionId: r.pendingTransactionId ?? null,
        date: r.date,
        name: r.name,
        merchantName: r.merchantName ?? null,
        amountMinor: r.amountMinor,
        category: r.category,
        pending: r.pending ?? false,
        isTransfer: r.isTransfer ?? false,
      })),
    );
  }
}

export async function addLiability(
  db: Database,
  userId: string,
  accountId: string,
  l: { kind: "credit" | "student" | "mortgage" | "other"; apr: string; minimum: number; due: string },
): Promise<void> {
  await db.insert(liabilities).values({
    accountId,
    userId,
    kind: l.kind,
    aprPercentage: l.apr,
    minimumPaymentMinor: l.minimum,
    nextPaymentDueDate: l.due,
  });
}

export async function contextFor(
  db: Database,
  userId: string,
  now: Date,
  timezone = "UTC",
  /** Whose accounts the call reads: the person's own (hidden ones left out), a key's or a grant's. */
  as: ScopeOf = { kind: "person" },
): Promise<ToolContext> {
  const [access, scope] = await Promise.all([getAccess(db, userId), loadAccountScope(db, userId, as)]);
  return { db, userId, timezone, now, access, scope };
}

/** Parses `args` with the tool's input, runs it, and checks the data against its data schema. */
export async function callTool<I extends ToolDefinition["input"], D extends ToolDefinition["data"]>(
  tool: ToolDefinition<I, D>,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<ToolOutput<import("zod").output<D>>> {
  const parsed = tool.input.safeParse(args);
  if (!parsed.success) throw new Error(`bad test arguments: ${parsed.error.message}`);
  const out = await tool.run(parsed.data, ctx);
  const check = tool.data.safeParse(out.data);
  expect(check.success, check.success ? "" : JSON.stringify(check.error.issues)).toBe(true);
  return out;
}

/**
 * Plain-TypeScript income and spending (per category) of `rows` dated in [start, end], by the
 * documented rules: transfers excluded, income and spending by the category's kind.
 */
export function expectedFlow(
  rows: readonly { date: string; amountMinor: number; category: string; isTransfer?: boolean }[],
  start: string,
  end: string,
) {
  let income = 0;
  let spending = 0;
  const byCategory = new Map<string, number>();
  for (const r of rows) {
    if (r.date < start || r.date > end || r.isTransfer) continue;
    const kind = categoryKind(r.category);
    if (kind === "income") income += r.amountMinor;
    else if (kind === "spending") {
      spending -= r.amountMinor;
      byCategory.set(r.category, (byCategory.get(r.category) ?? 0) - r.amountMinor);
    }
  }
  return { income, spending, byCategory };
}

/** Cents of a decimal amount from a tool's output (exact for two-decimal values). */
export function cents(amount: number): number {
  return Math.round(amount * 100);
}

/**
 * `actual` is `exact` rounded to `decimals` places: it has no more places than that, and is no
 * further from `exact` than half the last place (at an exact half, either neighbour; a sum in
 * another order may land on either side of it). `toBeCloseTo` demands strictly less than half,
 * so it failed whenever a random case fell on a half.
 */
export function expectRounded(
  actual: number | null | undefined,
  exact: number,
  decimals: number,
  label = "",
) {
  const unit = 10 ** -decimals;
  expect(actual, label).toBeTypeOf("number");
  const value = actual as number;
  expect(
    Math.abs(value / unit - Math.round(value / unit)),
    `${label}: ${value} has more than ${decimals} places`,
  ).toBeLessThan(1e-6);
  expect(Math.abs(value - exact), `${label}: ${value} against ${exact}`).toBeLessThanOrEqual(
    unit / 2 + 1e-12,
  );
}

/** The one per-currency entry of a single-currency answer; fails when the answer has any other. */
export function only<T extends { currency: string }>(totals: readonly T[], currency = "USD"): T {
  expect(totals.map((t) => t.currency)).toEqual([currency]);
  return totals[0] as T;
}

/** A small deterministic random source, so a failure can be replayed. */
export function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/**
 * `get_net_worth`'s history as one object per point, read by the column names each currency's
 * rows come with (so a mislabelled column reads as wrong values).
 */
export function netWorthPoints(
  history: ReadonlyArray<{
    currency: string;
    columns: readonly string[];
    points: ReadonlyArray<readonly [string, number, number, number]>;
  }>,
): Array<{ currency: string; date: string; assets: number; liabilities: number; net_worth: number }> {
  return history.flatMap((series) =>
    series.points.map((row) => {
      const value = (column: string) => row[series.columns.indexOf(column)];
      return {
        currency: series.currency,
        date: String(value("date")),
        assets: Number(value("assets")),
        liabilities: Number(value("liabilities")),
        net_worth: Number(value("net_worth")),
      };
    }),
  );
}
