/**
 * The categories the person sets (issue 35 §3, lib/finance/category-rules.ts, migration 0021): a
 * rule or a single change moves exactly the right amounts between categories in every tool and
 * period, checked against the same rows categorized in plain TypeScript (the override, else the
 * newest matching rule, else the provider's; the transfer flag by the documented rule); removing
 * every change gives every tool's answer back byte for byte; a category marked as a transfer is
 * neither income nor spending; rules survive a full re-sync and apply to newly synced rows.
 */
import { and, eq, sql } from "drizzle-orm";
import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db";
import { bankConnections, recurringStreams, transactions } from "@/db/schema";
import { syncNow } from "@/lib/banking/connections";
import { generateSandboxData } from "@/lib/banking/sandbox";
import { AppError } from "@/lib/errors";
import {
  addRule,
  listCategorizedTransactions,
  listRules,
  listTransferCategories,
  MAX_RULES,
  removeRule,
  setTransactionCategory,
  setTransferCategories,
  TRANSACTIONS_PAGE,
} from "@/lib/finance/category-rules";
import { addDays, PERIODS, previousRange, resolvePeriod } from "@/lib/finance/periods";
import { executeRows } from "@/lib/finance/sql";
import type { ToolDefinition } from "@/lib/mcp/define-tool";
import { allTools } from "@/lib/mcp/tools";
import { findUnusualActivityTool } from "@/lib/mcp/tools/find-unusual-activity";
import { getCashFlowTool } from "@/lib/mcp/tools/get-cash-flow";
import { getFinancialOverviewTool } from "@/lib/mcp/tools/get-financial-overview";
import { getSpendingBreakdownTool } from "@/lib/mcp/tools/get-spending-breakdown";
import { getUpcomingBillsTool } from "@/lib/mcp/tools/get-upcoming-bills";
import { listRecurringTool } from "@/lib/mcp/tools/list-recurring";
import { searchTransactionsTool } from "@/lib/mcp/tools/search-transactions";
import { testDatabaseKind, useTestDatabase } from "../helpers/db";
import { createTestUser, linkSandboxBank } from "../helpers/fixtures";
import {
  addAccount,
  addConnection,
  addTransactions,
  callTool,
  cents,
  contextFor,
  createUser,
  expectedFlow,
  only,
  type RawTxn,
  random,
} from "./tools-helpers";

const getDb = useTestDatabase();
const NOW = new Date("2025-11-20T15:00:00Z");
const TODAY = "2025-11-20";

/** Folded as `ledgerlink_fold` folds: accents removed, lower case. */
const fold = (text: string) => text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();

interface Row extends RawTxn {
  id: string;
  isTransfer: boolean;
}
interface StreamSpec {
  merchant: string;
  description: string;
  category: string;
  direction: "inflow" | "outflow";
  amount: number;
  next: string;
}
interface Rule {
  field: "merchant" | "description";
  pattern: string;
  category: string;
}

/** The person's settings as the test applies them; `categorize` reads them in plain TypeScript. */
interface Settings {
  rules: Rule[]; // newest first, as listRules returns them
  overrides: Map<string, string>;
  transfers: Set<string>;
}

function ruleFor(rules: Rule[], merchant: string | null, description: string | null): string | null {
  for (const r of rules) {
    const p = fold(r.pattern);
    if (r.field === "merchant" ? fold(merchant ?? "") === p : fold(description ?? "").includes(p))
      return r.category;
  }
  return null;
}

function categorize(rows: readonly Row[], s: Settings): Row[] {
  return rows.map((r) => {
    const category = s.overrides.get(r.id) ?? ruleFor(s.rules, r.merchantName ?? null, r.name) ?? r.category;
    const isTransfer =
      s.transfers.has(category) ||
      (category === r.category
        ? r.isTransfer
        : category === "transfer" || category === "credit_card_payment");
    return { ...r, category, isTransfer };
  });
}

let userId: string;
let controlId: string;
let rows: Row[] = [];
const streams: StreamSpec[] = [
  {
    merchant: "Streamflix",
    description: "STREAMFLIX",
    category: "subscriptions",
    direction: "outflow",
    amount: 1_599,
    next: "2025-11-25",
  },
  {
    merchant: "Corner Pharmacy",
    description: "CORNER PHARMACY RX",
    category: "groceries",
    direction: "outflow",
    amount: 2_450,
    next: "2025-11-28",
  },
  {
    merchant: "Landlord Pay",
    description: "LANDLORD PAY RENT",
    category: "transfer",
    direction: "outflow",
    amount: 180_000,
    next: "2025-12-03",
  },
  {
    merchant: "Uber",
    description: "UBER TRIP PASS",
    category: "transportation",
    direction: "outflow",
    amount: 999,
    next: "2025-12-01",
  },
  {
    merchant: "Acme",
    description: "ACME PAYROLL",
    category: "income",
    direction: "inflow",
    amount: 300_000,
    next: "2025-12-01",
  },
];

const MERCHANTS: Array<{
  merchant: string | null;
  name: string;
  category: string;
  min: number;
  max: number;
}> = [
  { merchant: "Corner Pharmacy", name: "CORNER PHARMACY #12", category: "groceries", min: 800, max: 6_000 },
  { merchant: "City Drugs", name: "CITY PHARMACY 55", category: "healthcare", min: 500, max: 4_000 },
  { merchant: "Fresh Market", name: "FRESH MARKET", category: "groceries", min: 2_000, max: 12_000 },
  { merchant: "Uber", name: "UBER TRIP HELP.UBER.COM", category: "transportation", min: 900, max: 4_500 },
  { merchant: "Uber Eats", name: "UBER EATS ORDER", category: "restaurants", min: 1_500, max: 5_000 },
  { merchant: "Café Olé", name: "CAFE OLE 3", category: "restaurants", min: 300, max: 1_500 },
  { merchant: null, name: "ATM SERVICE CHARGE", category: "other", min: 250, max: 500 },
  {
    merchant: "Good Cause",
    name: "GOOD CAUSE DONATION",
    category: "gifts_and_donations",
    min: 1_000,
    max: 5_000,
  },
];

/** ~15 months of a person's rows: purchases, refunds, large charges, payroll, transfers, pending ones. */
function makeRows(accounts: { checking: string; card: string }, seed: number): RawTxn[] {
  const next = random(seed);
  const out: RawTxn[] = [];
  for (let date = "2024-09-01"; date <= TODAY; date = addDays(date, 1)) {
    const day = Number(date.slice(8));
    const pending = date > addDays(TODAY, -3);
    for (let k = 0; k < 1 + Math.floor(next() * 3); k++) {
      const m = MERCHANTS[Math.floor(next() * MERCHANTS.length)]!;
      out.push({
        accountId: next() < 0.5 ? accounts.checking : accounts.card,
        date,
        amountMinor: -(m.min + Math.floor(next() * (m.max - m.min))),
        category: m.category,
        name: m.name,
        merchantName: m.merchant,
        pending,
      });
    }
    if (next() < 0.05)
      out.push({
        accountId: accounts.card,
        date,
        amountMinor: 1_234,
        category: "groceries",
        name: "CORNER PHARMACY #12 REFUND",
        merchantName: "Corner Pharmacy",
      });
    if (date >= "2025-08-01" && next() < 0.06)
      out.push({
        accountId: accounts.card,
        date,
        amountMinor: -(25_000 + Math.floor(next() * 20_000)),
        category: "groceries",
        name: "CORNER PHARMACY #12",
        merchantName: "Corner Pharmacy",
        pending,
      });
    if (day === 1 || day === 15)
      out.push({
        accountId: accounts.checking,
        date,
        amountMinor: 300_000,
        category: "income",
        name: "ACME PAYROLL",
        merchantName: "Acme",
      });
    if (day === 3)
      out.push({
        accountId: accounts.checking,
        date,
        amountMinor: -180_000,
        category: "transfer",
        name: "LANDLORD PAY RENT",
        merchantName: "Landlord Pay",
        isTransfer: true,
      });
    if (day === 10) {
      out.push({
        accountId: accounts.checking,
        date,
        amountMinor: -50_000,
        category: "transfer",
        name: "VENMO PAYMENT",
        merchantName: "Venmo",
        isTransfer: true,
      });
      out.push({
        accountId: accounts.checking,
        date,
        amountMinor: -30_000,
        category: "credit_card_payment",
        name: "CARD PAYMENT",
        isTransfer: true,
      });
      out.push({
        accountId: accounts.card,
        date,
        amountMinor: 30_000,
        category: "credit_card_payment",
        name: "PAYMENT THANK YOU",
        isTransfer: true,
      });
    }
  }
  out.forEach((r, i) => {
    r.providerTransactionId = `cat-${seed}-${i}`;
  });
  return out;
}

async function addPerson(db: Database, id: string, seed: number): Promise<Row[]> {
  const connection = await addConnection(db, id, "Category Bank");
  const checking = await addAccount(db, id, connection, {
    name: "Checking",
    type: "depository",
    balance: 800_000,
  });
  const card = await addAccount(db, id, connection, {
    name: "Card",
    type: "credit",
    balance: 50_000,
    limit: 900_000,
  });
  const raw = makeRows({ checking, card }, seed);
  await addTransactions(db, id, raw);
  await db.insert(recurringStreams).values(
    streams.map((s, i) => ({
      userId: id,
      connectionId: connection,
      accountId: s.direction === "inflow" ? checking : card,
      providerStreamId: `stream-${i}`,
      direction: s.direction,
      merchantName: s.merchant,
      description: s.description,
      category: s.category,
      frequency: "monthly" as const,
      averageAmountMinor: s.amount,
      lastAmountMinor: s.amount,
      firstDate: "2024-09-01",
      lastDate: addDays(s.next, -30),
      predictedNextDate: s.next,
      isActive: true,
    })),
  );
  const stored = await db
    .select({ id: transactions.id, providerTransactionId: transactions.providerTransactionId })
    .from(transactions)
    .where(eq(transactions.userId, id));
  const idOf = new Map(stored.map((r) => [r.providerTransactionId, r.id]));
  return raw.map((r) => ({
    ...r,
    id: idOf.get(r.providerTransactionId!)!,
    isTransfer: r.isTransfer ?? false,
  }));
}

beforeAll(async () => {
  const db = getDb();
  userId = await createUser(db);
  rows = await addPerson(db, userId, 35);
  // Another person with the same merchants: nothing of theirs follows this person's rules.
  controlId = await createUser(db);
  await addPerson(db, controlId, 36);
});

/** Every tool, with the arguments whose answers must come back byte for byte. */
const CALLS: Array<[ToolDefinition, Record<string, unknown>]> = [
  ...allTools.map((tool): [ToolDefinition, Record<string, unknown>] => [tool as ToolDefinition, {}]),
  ...PERIODS.flatMap(
    (period): Array<[ToolDefinition, Record<string, unknown>]> => [
      [getSpendingBreakdownTool as ToolDefinition, { period, top_n: 50 }],
      [getSpendingBreakdownTool as ToolDefinition, { period, group_by: "merchant", top_n: 50 }],
      [getFinancialOverviewTool as ToolDefinition, { period }],
      [getCashFlowTool as ToolDefinition, { period }],
      [
        searchTransactionsTool as ToolDefinition,
        { period, categories: ["healthcare", "groceries"], limit: 50 },
      ],
      [findUnusualActivityTool as ToolDefinition, { period, limit: 100 }],
    ],
  ),
  [getCashFlowTool as ToolDefinition, { months: 15 }],
  [searchTransactionsTool as ToolDefinition, { query: "pharmacy", limit: 100 }],
  [listRecurringTool as ToolDefinition, { direction: "all", status: "all" }],
  [getUpcomingBillsTool as ToolDefinition, { days_ahead: 60 }],
];

async function answers(id: string): Promise<string[]> {
  const ctx = await contextFor(getDb(), id, NOW);
  const out: string[] = [];
  for (const [tool, args] of CALLS) out.push(JSON.stringify(await callTool(tool, args, ctx)));
  return out;
}

/** Median as percentile_cont(0.5). */
function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** `round` of a float8 in PostgreSQL: halves to even. */
function roundHalfEven(x: number): number {
  const down = Math.floor(x);
  if (x - down !== 0.5) return Math.round(x);
  return down % 2 === 0 ? down : down + 1;
}

/** find_unusual_activity's `large` and `fees` findings of `rows` in [start, end], by its documented rules. */
function expectedFindings(eff: readonly Row[], start: string, end: string) {
  const histStart = addDays(start, -365);
  const byCategory = new Map<string, number[]>();
  for (const r of eff)
    if (r.date >= histStart && r.date < start && r.amountMinor < 0 && !r.isTransfer)
      byCategory.set(r.category, [...(byCategory.get(r.category) ?? []), -r.amountMinor]);
  const inRange = eff.filter((r) => r.date >= start && r.date <= end && !r.isTransfer);
  const large = inRange
    .filter((r) => {
      const hist = byCategory.get(r.category);
      if (!hist || hist.length < 5) return false;
      return r.amountMinor <= -Math.ceil(Math.max(3 * median(hist), 10_000));
    })
    .map((r) => `large|${r.id}|${r.category}|${-roundHalfEven(median(byCategory.get(r.category)!))}`);
  const fees = inRange
    .filter((r) => (r.category === "fees" || r.category === "interest_charged") && r.amountMinor < 0)
    .map((r) => `fees|${r.id}|${r.category}|null`);
  return [...large, ...fees].sort();
}

/** Every tool and period against the rows categorized in TypeScript. */
async function checkEveryTool(
  eff: readonly Row[],
  streamCategory: (s: StreamSpec) => string,
  /** Categories the person counts as transfers: their streams are no bills either. */
  transfers: ReadonlySet<string> = new Set(),
) {
  const ctx = await contextFor(getDb(), userId, NOW);
  const categories = [...new Set(eff.map((r) => r.category))];
  for (const period of PERIODS) {
    const range = resolvePeriod(period, "UTC", NOW);
    const previous = previousRange(range, period);
    const flow = expectedFlow(eff, range.start, range.end);
    const before = expectedFlow(eff, previous.start, previous.end);

    const breakdown = await callTool(getSpendingBreakdownTool, { period, top_n: 50 }, ctx);
    expect(cents(only(breakdown.data.totals).total_spending), period).toBe(flow.spending);
    expect(cents(only(breakdown.data.totals).previous_total_spending ?? Number.NaN), period).toBe(
      before.spending,
    );
    const groups = new Map(breakdown.data.groups.map((g) => [g.key, g]));
    expect([...groups.keys()].sort(), period).toEqual([...flow.byCategory.keys()].sort());
    for (const [category, amount] of flow.byCategory) {
      const group = groups.get(category);
      expect(cents(group?.amount ?? Number.NaN), `${period} ${category}`).toBe(amount);
      const count = eff.filter(
        (r) => r.category === category && !r.isTransfer && r.date >= range.start && r.date <= range.end,
      ).length;
      expect(group?.count, `${period} ${category} count`).toBe(count);
    }

    const overview = await callTool(getFinancialOverviewTool, { period }, ctx);
    const totals = only(overview.data.totals);
    expect(cents(totals.current.income), period).toBe(flow.income);
    expect(cents(totals.current.spending), period).toBe(flow.spending);
    expect(cents(totals.previous.spending), period).toBe(before.spending);
    const top = [...flow.byCategory].sort((a, b) => b[1] - a[1]).slice(0, 5);
    expect(
      totals.top_categories.map((c) => [c.category, cents(c.amount)]),
      period,
    ).toEqual(top);

    const cashFlow = await callTool(getCashFlowTool, { period }, ctx);
    expect(cents(only(cashFlow.data.totals).income), period).toBe(flow.income);
    expect(cents(only(cashFlow.data.totals).spending), period).toBe(flow.spending);

    for (const category of categories) {
      const search = await callTool(
        searchTransactionsTool,
        { period, categories: [category], limit: 1 },
        ctx,
      );
      const matching = eff.filter(
        (r) => r.category === category && r.date >= range.start && r.date <= range.end,
      );
      expect(search.data.summary.count, `${period} ${category}`).toBe(matching.length);
      const sums = search.data.summary.totals[0] ?? { inflow: 0, outflow: 0 };
      expect(cents(sums.inflow), `${period} ${category} in`).toBe(
        matching.reduce((n, r) => n + Math.max(r.amountMinor, 0), 0),
      );
      expect(cents(sums.outflow), `${period} ${category} out`).toBe(
        matching.reduce((n, r) => n + Math.min(r.amountMinor, 0), 0),
      );
    }

    const unusual = await callTool(
      findUnusualActivityTool,
      { period, kinds: ["large", "fees"], limit: 100 },
      ctx,
    );
    const found = unusual.data.findings.map(
      (f) =>
        `${f.kind}|${f.transaction.id}|${f.transaction.category}|${f.typical_amount === null ? "null" : cents(f.typical_amount)}`,
    );
    expect(found.sort(), period).toEqual(expectedFindings(eff, range.start, range.end));
  }

  // Month by month over the whole history.
  const months = await callTool(getCashFlowTool, { months: 15 }, ctx);
  for (const month of months.data.intervals) {
    const flow = expectedFlow(eff, month.start, month.end);
    expect(cents(month.income), month.label).toBe(flow.income);
    expect(cents(month.spending), month.label).toBe(flow.spending);
  }

  const recurring = await callTool(listRecurringTool, { direction: "all", status: "all" }, ctx);
  expect(recurring.data.streams.map((s) => [s.merchant, s.category]).sort()).toEqual(
    streams.map((s) => [s.merchant, streamCategory(s)]).sort(),
  );
  const bills = await callTool(getUpcomingBillsTool, { days_ahead: 60 }, ctx);
  const recurringBills = bills.data.bills.filter((b) => b.kind === "recurring");
  const billed = streams.filter(
    (s) =>
      s.direction === "outflow" &&
      !["transfer", "credit_card_payment"].includes(streamCategory(s)) &&
      !transfers.has(streamCategory(s)),
  );
  expect(new Set(recurringBills.map((b) => `${b.name}|${b.category}`))).toEqual(
    new Set(billed.map((s) => `${s.merchant}|${streamCategory(s)}`)),
  );
}

function streamCategoryOf(rules: Rule[]) {
  return (s: StreamSpec) => ruleFor(rules, s.merchant, s.description) ?? s.category;
}

describe("rules and single changes", () => {
  it("move exactly the right amounts in every tool and period, and removing them restores every answer byte for byte", async () => {
    const db = getDb();
    const none: Settings = { rules: [], overrides: new Map(), transfers: new Set() };
    const originalAnswers = await answers(userId);
    const controlAnswers = await answers(controlId);
    await checkEveryTool(categorize(rows, none), streamCategoryOf([]));

    // An older, wider rule first: the newer merchant rule wins over it for Corner Pharmacy.
    const added = [
      await addRule(
        db,
        userId,
        { field: "description", pattern: "pharmacy", category: "personal_care" },
        TODAY,
      ),
      await addRule(
        db,
        userId,
        { field: "merchant", pattern: "corner pharmacy", category: "healthcare" },
        TODAY,
      ),
      await addRule(db, userId, { field: "description", pattern: "Uber Trip", category: "travel" }, TODAY),
      // Accents and case folded: "Café Olé".
      await addRule(db, userId, { field: "merchant", pattern: "CAFE OLE", category: "entertainment" }, TODAY),
      await addRule(db, userId, { field: "description", pattern: "service charge", category: "fees" }, TODAY),
      // Rent the provider filed as a transfer: spending once re-filed as housing.
      await addRule(db, userId, { field: "merchant", pattern: "Landlord Pay", category: "housing" }, TODAY),
    ];
    const venmo = rows.find((r) => r.merchantName === "Venmo" && r.date >= "2025-11-01")!;
    const pharmacy = rows.find((r) => r.merchantName === "Corner Pharmacy" && r.date >= "2025-11-01")!;
    await setTransactionCategory(db, userId, venmo.id, "restaurants", TODAY);
    await setTransactionCategory(db, userId, pharmacy.id, "shopping", TODAY);
    // A purchase re-filed as a transfer: neither income nor spending, and left out like one.
    const moved = rows.find((r) => r.merchantName === "Fresh Market" && r.date >= "2025-11-01")!;
    await setTransactionCategory(db, userId, moved.id, "transfer", TODAY);
    const storedRules = await listRules(db, userId);
    expect(storedRules.map((r) => r.id)).toEqual(added.map((r) => r.id).reverse());
    const rules: Rule[] = storedRules;
    const settings: Settings = {
      rules,
      overrides: new Map([
        [venmo.id, "restaurants"],
        [pharmacy.id, "shopping"],
        [moved.id, "transfer"],
      ]),
      transfers: new Set(),
    };
    const eff = categorize(rows, settings);
    // The changes reach every kind of case the data holds.
    const changed = eff.filter((r, i) => r.category !== rows[i]!.category);
    for (const category of [
      "healthcare",
      "personal_care",
      "travel",
      "entertainment",
      "fees",
      "housing",
      "restaurants",
      "shopping",
    ])
      expect(
        changed.some((r) => r.category === category),
        category,
      ).toBe(true);
    expect(eff.find((r) => r.id === venmo.id)?.isTransfer).toBe(false);
    expect(eff.find((r) => r.id === moved.id)?.isTransfer).toBe(true);
    expect(eff.some((r) => r.merchantName === "Landlord Pay" && !r.isTransfer)).toBe(true);
    await checkEveryTool(eff, streamCategoryOf(rules));

    // The stored rows: the provider's values kept beside the person's.
    const stored = await db
      .select({
        id: transactions.id,
        category: transactions.category,
        providerCategory: transactions.providerCategory,
        isTransfer: transactions.isTransfer,
        providerIsTransfer: transactions.providerIsTransfer,
      })
      .from(transactions)
      .where(eq(transactions.userId, userId));
    const byId = new Map(eff.map((r) => [r.id, r]));
    const original = new Map(rows.map((r) => [r.id, r]));
    for (const s of stored) {
      expect(s.category).toBe(byId.get(s.id)?.category);
      expect(s.isTransfer).toBe(byId.get(s.id)?.isTransfer);
      expect(s.providerCategory).toBe(original.get(s.id)?.category);
      expect(s.providerIsTransfer).toBe(original.get(s.id)?.isTransfer);
    }
    // The typical amounts of today's default range are stored again, and equal the rows' medians.
    const start = addDays(TODAY, -29);
    const typicals = await executeRows(
      db,
      sql`select category, typical_minor::float8 as typical from category_typicals where user_id = ${userId} and anchor = ${start}::date`,
    );
    const live = await executeRows(
      db,
      sql`select category, typical from ledgerlink_typicals(${userId}, ${start}::date)`,
    );
    const asMap = (r: Array<Record<string, unknown>>) =>
      new Map(r.map((x) => [String(x.category), Number(x.typical)]));
    expect(asMap(typicals).size).toBeGreaterThan(0);
    expect(asMap(typicals)).toEqual(asMap(live));
    expect(asMap(typicals).get("healthcare")).toBeDefined();

    // Another person's answers did not move.
    expect(await answers(controlId)).toEqual(controlAnswers);

    for (const rule of added) await removeRule(db, userId, rule.id, TODAY);
    await setTransactionCategory(db, userId, venmo.id, null, TODAY);
    await setTransactionCategory(db, userId, pharmacy.id, null, TODAY);
    await setTransactionCategory(db, userId, moved.id, null, TODAY);
    const restored = await answers(userId);
    for (const [i, answer] of restored.entries())
      expect(answer, JSON.stringify(CALLS[i]?.[1])).toBe(originalAnswers[i]);
  });

  it("a category marked as a transfer is neither income nor spending, and unmarking restores every answer", async () => {
    const db = getDb();
    const original = await answers(userId);
    // Income too: a category of income marked as a transfer is no longer income.
    // And a recurring charge's: it is no bill then.
    await setTransferCategories(db, userId, ["gifts_and_donations", "income", "subscriptions"], TODAY);
    expect(await listTransferCategories(db, userId)).toEqual([
      "income",
      "subscriptions",
      "gifts_and_donations",
    ]);
    const settings: Settings = {
      rules: [],
      overrides: new Map(),
      transfers: new Set(["gifts_and_donations", "income", "subscriptions"]),
    };
    const eff = categorize(rows, settings);
    const gifts = eff.filter((r) => r.category === "gifts_and_donations");
    expect(gifts.length).toBeGreaterThan(0);
    expect(gifts.every((r) => r.isTransfer)).toBe(true);
    await checkEveryTool(eff, streamCategoryOf([]), settings.transfers);
    const ctx = await contextFor(db, userId, NOW);
    const flow = await callTool(getCashFlowTool, { period: "last_12_months" }, ctx);
    expect(only(flow.data.totals).income).toBe(0);
    const search = await callTool(
      searchTransactionsTool,
      { categories: ["gifts_and_donations"], exclude_transfers: true },
      ctx,
    );
    expect(search.data.summary.count).toBe(0);

    await setTransferCategories(db, userId, ["income"], TODAY);
    await setTransferCategories(db, userId, [], TODAY);
    expect(await answers(userId)).toEqual(original);
  });

  it("refuses bad input with errors naming the field, and another person's rows and rules", async () => {
    const db = getDb();
    const refused = async (p: Promise<unknown>, code: string, field: string) =>
      expect(p).rejects.toSatisfy(
        (e: unknown) =>
          e instanceof AppError && e.code === code && e.details?.field === field && e.message.length > 0,
      );
    await refused(
      addRule(db, userId, { field: "merchant", pattern: "x", category: "pizza" }),
      "invalid_input",
      "category",
    );
    await refused(
      addRule(db, userId, { field: "amount", pattern: "x", category: "other" }),
      "invalid_input",
      "field",
    );
    await refused(
      addRule(db, userId, { field: "merchant", pattern: "   ", category: "other" }),
      "invalid_input",
      "pattern",
    );
    await refused(
      addRule(db, userId, { field: "merchant", pattern: "x".repeat(101), category: "other" }),
      "invalid_input",
      "pattern",
    );
    await refused(setTransactionCategory(db, userId, rows[0]!.id, "nope"), "invalid_input", "category");
    await refused(setTransferCategories(db, userId, ["other", "nope"]), "invalid_input", "categories");
    await refused(setTransactionCategory(db, controlId, rows[0]!.id, "other"), "not_found", "transactionId");
    const rule = await addRule(
      db,
      userId,
      { field: "merchant", pattern: "Nobody", category: "other" },
      TODAY,
    );
    await refused(removeRule(db, controlId, rule.id), "not_found", "ruleId");
    // The same field and pattern again replaces the rule rather than adding one.
    const again = await addRule(
      db,
      userId,
      { field: "merchant", pattern: "NOBODY", category: "taxes" },
      TODAY,
    );
    expect((await listRules(db, userId)).map((r) => [r.id, r.category])).toEqual([[again.id, "taxes"]]);
    await removeRule(db, userId, again.id, TODAY);
  });

  it("keeps at most MAX_RULES rules per person", async () => {
    const db = getDb();
    const owner = await createUser(db);
    await db.execute(
      sql`insert into category_rules (id, user_id, field, pattern, category)
          select gen_random_uuid()::text, ${owner}, 'merchant', 'shop ' || n, 'other' from generate_series(1, ${MAX_RULES}) n`,
    );
    await expect(
      addRule(db, owner, { field: "merchant", pattern: "one more", category: "other" }),
    ).rejects.toSatisfy(
      (e: unknown) => e instanceof AppError && e.code === "invalid_input" && /200/.test(e.message),
    );
    expect(await listRules(db, owner)).toHaveLength(MAX_RULES);
  });
});

describe("a change during a sync", () => {
  it.runIf(testDatabaseKind() === "postgres")(
    "waits for a sync under way, so the rows it wrote follow the new rule",
    async () => {
      const db = getDb();
      const owner = await createUser(db);
      const connection = await addConnection(db, owner, "Busy Bank");
      const account = await addAccount(db, owner, connection, {
        name: "Busy",
        type: "depository",
        balance: 0,
      });
      // A sync's transaction: its rows are written (derived without the rule) and not yet committed.
      const sync = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await sync.connect();
      try {
        await sync.query("begin");
        await sync.query(
          `insert into transactions (id, user_id, account_id, provider_transaction_id, date, name, merchant_name, amount_minor, category)
           values ('busy-' || $1, $1, $2, 'busy-1', '2025-11-01', 'BUSY SHOP', 'Busy Shop', -1000, 'shopping')`,
          [owner, account],
        );
        const adding = addRule(
          db,
          owner,
          { field: "merchant", pattern: "busy shop", category: "education" },
          TODAY,
        );
        await new Promise((resolve) => setTimeout(resolve, 300));
        await sync.query("commit");
        await adding;
      } finally {
        await sync.end();
      }
      const [row] = await db
        .select({ category: transactions.category, providerCategory: transactions.providerCategory })
        .from(transactions)
        .where(eq(transactions.userId, owner));
      expect(row).toEqual({ category: "education", providerCategory: "shopping" });
    },
  );
});

describe("the dashboard's transactions view", () => {
  it("pages newest first with the older cursor, finds by text and by id, and shows the bank's category", async () => {
    const db = getDb();
    const seen: string[] = [];
    let before: string | undefined;
    let pages = 0;
    do {
      const page = await listCategorizedTransactions(db, userId, { before });
      expect(page.rows.length).toBeLessThanOrEqual(TRANSACTIONS_PAGE);
      seen.push(...page.rows.map((r) => `${r.date}|${r.id}`));
      before = page.older ?? undefined;
      pages++;
    } while (before && pages < 100);
    const expected = rows.map((r) => `${r.date}|${r.id}`).sort((a, b) => (a < b ? 1 : -1));
    expect(seen).toEqual(expected);
    expect(pages).toBe(Math.ceil(rows.length / TRANSACTIONS_PAGE));

    const found = await listCategorizedTransactions(db, userId, { query: "café olé" });
    const cafes = rows.filter((r) => r.merchantName === "Café Olé");
    expect(found.rows.map((r) => r.id)).toEqual(
      cafes
        .sort((a, b) => (`${a.date}|${a.id}` < `${b.date}|${b.id}` ? 1 : -1))
        .slice(0, TRANSACTIONS_PAGE)
        .map((r) => r.id),
    );

    const one = rows.find((r) => r.merchantName === "Fresh Market")!;
    await setTransactionCategory(db, userId, one.id, "shopping", TODAY);
    const single = await listCategorizedTransactions(db, userId, { id: one.id });
    expect(single.rows).toEqual([
      expect.objectContaining({
        id: one.id,
        category: "shopping",
        providerCategory: "groceries",
        overridden: true,
      }),
    ]);
    expect(single.older).toBeNull();
    // Another person's transaction is not found by its id.
    expect((await listCategorizedTransactions(db, controlId, { id: one.id })).rows).toEqual([]);
    await setTransactionCategory(db, userId, one.id, null, TODAY);
    expect((await listCategorizedTransactions(db, userId, { id: one.id })).rows[0]).toMatchObject({
      category: "groceries",
      overridden: false,
    });
    await expect(listCategorizedTransactions(db, userId, { before: "2025-02-30|x" })).rejects.toSatisfy(
      (e: unknown) => e instanceof AppError && e.code === "invalid_input" && /before/.test(e.message),
    );
  });
});

describe("sync", () => {
  const LINKED = new Date("2026-06-30T12:00:00Z");

  it("keeps rules and single changes through a full re-sync and applies them to newly synced rows", async () => {
    const db = getDb();
    const owner = (await createTestUser(db, "cats")).id;
    const { connection } = await linkSandboxBank(db, owner, "ins_platypus", LINKED);
    const provider = new Map(
      generateSandboxData(owner, "ins_platypus", LINKED).transactions.map((t) => [
        t.providerTransactionId,
        t,
      ]),
    );
    const read = () =>
      db
        .select({
          id: transactions.id,
          providerTransactionId: transactions.providerTransactionId,
          merchantName: transactions.merchantName,
          category: transactions.category,
          providerCategory: transactions.providerCategory,
          isTransfer: transactions.isTransfer,
          date: transactions.date,
        })
        .from(transactions)
        .where(eq(transactions.userId, owner));
    // The merchant with the most rows, and a category none of them has.
    const first = await read();
    const counted = new Map<string, number>();
    for (const r of first)
      if (r.merchantName) counted.set(r.merchantName, (counted.get(r.merchantName) ?? 0) + 1);
    const merchant = [...counted].sort((a, b) => b[1] - a[1])[0]![0];
    const target = first.some((r) => r.category === "education") ? "taxes" : "education";
    const rule = await addRule(
      db,
      owner,
      { field: "merchant", pattern: merchant, category: target },
      "2026-06-30",
    );
    // A single change on a row the rule matches too: the change wins, and a re-sync keeps the
    // provider's category of that row exact beneath both.
    const single = first.find((r) => r.merchantName === merchant && !r.isTransfer)!;
    await setTransactionCategory(db, owner, single.id, "gifts_and_donations", "2026-06-30");

    const expectRows = async (ruled: boolean) => {
      const now = await read();
      for (const r of now) {
        const own = r.id === single.id ? "gifts_and_donations" : null;
        const expected = own ?? (ruled && r.merchantName === merchant ? target : r.providerCategory);
        expect(r.category, r.providerTransactionId).toBe(expected);
        const bank = provider.get(r.providerTransactionId);
        if (bank) expect(r.providerCategory).toBe(bank.category);
      }
      return now;
    };
    await expectRows(true);

    // A full re-sync: from no cursor, every transaction comes again and is upserted.
    await db.update(bankConnections).set({ syncCursor: null }).where(eq(bankConnections.id, connection.id));
    const full = await syncNow(db, owner, connection.id, { now: LINKED });
    expect(full.status).toBe("healthy");
    expect(full.added + full.modified).toBeGreaterThan(0);
    const resynced = await expectRows(true);
    expect(resynced.length).toBe(first.length);

    // Later days: new rows of the merchant get the rule's category.
    const later = new Date(LINKED.getTime() + 40 * 86_400_000);
    const more = await syncNow(db, owner, connection.id, { now: later });
    expect(more.added).toBeGreaterThan(0);
    const grown = await expectRows(true);
    const fresh = grown.filter((r) => r.date > "2026-06-30" && r.merchantName === merchant);
    expect(fresh.length).toBeGreaterThan(0);
    expect(fresh.every((r) => r.category === target)).toBe(true);

    // Removed: the provider's category everywhere but the single change.
    await removeRule(db, owner, rule.id, "2026-08-09");
    await expectRows(false);
    const [held] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(transactions)
      .where(and(eq(transactions.userId, owner), eq(transactions.category, target)));
    expect(held?.n).toBe(0);
  });
});
