/**
 * Currencies across the twelve tools: a user with USD (First Platypus), EUR and JPY (Kranich)
 * accounts linked through the real connect + sync path, next to a USD-only user. Every figure is
 * recomputed per currency, to the minor unit, in plain TypeScript from the raw database rows
 * (accounts, transactions, liabilities), not through the tools' SQL; amounts in the answers are
 * turned back into minor units here with the ISO exponents written out (USD/EUR 2, JPY 0).
 */
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { bankAccounts, liabilities, transactions } from "@/db/schema";
import { linkConnection } from "@/lib/banking/connections";
import type { Warning } from "@/lib/mcp/envelope";
import { allTools } from "@/lib/mcp/tools";
import { getCashFlowTool } from "@/lib/mcp/tools/get-cash-flow";
import { getFinancialOverviewTool } from "@/lib/mcp/tools/get-financial-overview";
import { getLiabilitiesTool } from "@/lib/mcp/tools/get-liabilities";
import { getNetWorthTool } from "@/lib/mcp/tools/get-net-worth";
import { getSpendingBreakdownTool } from "@/lib/mcp/tools/get-spending-breakdown";
import { listAccountsTool } from "@/lib/mcp/tools/list-accounts";
import { searchTransactionsTool } from "@/lib/mcp/tools/search-transactions";
import { useTestDatabase } from "../helpers/db";
import {
  callTool,
  contextFor,
  createUser,
  expectedFlow,
  expectRounded,
  netWorthPoints,
} from "./tools-helpers";

const getDb = useTestDatabase();
const NOW = new Date("2025-11-10T12:00:00Z");
const EXPONENT: Record<string, number> = { USD: 2, EUR: 2, JPY: 0 };

/** Minor units of a decimal amount from a tool's answer, by the currency's ISO exponent. */
function minor(amount: number, currency: string): number {
  const exponent = EXPONENT[currency];
  if (exponent === undefined) throw new Error(`unexpected currency ${currency}`);
  return Math.round(amount * 10 ** exponent);
}

type AccountRow = typeof bankAccounts.$inferSelect;
type TransactionRow = typeof transactions.$inferSelect;

let multiUser: string;
let usdUser: string;
let accounts: AccountRow[];
let rows: TransactionRow[];
let currencies: string[];

const isLiability = (a: AccountRow) => a.type === "credit" || a.type === "loan";
const ofCurrency = <T extends { currency: string }>(list: readonly T[], currency: string) =>
  list.filter((x) => x.currency === currency);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const codes = (warnings: Warning[] | undefined) => (warnings ?? []).map((w) => w.code);

/** Every `currency` named anywhere in an answer's data. */
function currenciesIn(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) currenciesIn(v, found);
  else if (value && typeof value === "object") {
    for (const [key, v] of Object.entries(value)) {
      if (key === "currency" && typeof v === "string") found.add(v);
      else currenciesIn(v, found);
    }
  }
  return found;
}

/** Fields that are rates or counts, not money: they may have decimals in any currency. */
const NOT_MONEY = new Set([
  "share",
  "savings_rate",
  "utilization",
  "credit_utilization",
  "weighted_apr",
  "apr",
  "gain_pct",
  "change_pct",
  "spending_pct",
  "quantity",
  "price",
]);

/** Money fields of JPY objects anywhere in `value` that are not whole yen, as "path: value". */
function fractionalYen(value: unknown, path = "data", out: string[] = []): string[] {
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) fractionalYen(v, `${path}[${i}]`, out);
  } else if (value && typeof value === "object") {
    const yen = (value as { currency?: unknown }).currency === "JPY";
    for (const [key, v] of Object.entries(value)) {
      if (yen && typeof v === "number" && !NOT_MONEY.has(key) && !Number.isInteger(v))
        out.push(`${path}.${key}: ${v}`);
      else fractionalYen(v, `${path}.${key}`, out);
    }
  }
  return out;
}

beforeAll(async () => {
  const db = getDb();
  const seed = `currencies-${randomUUID()}`;
  multiUser = await createUser(db);
  usdUser = await createUser(db);
  for (const institutionId of ["ins_platypus", "ins_eurobank"]) {
    const linked = await linkConnection(db, {
      userId: multiUser,
      provider: "sandbox",
      institutionId,
      seed,
      now: NOW,
    });
    expect(linked.connection.status).toBe("healthy");
  }
  await linkConnection(db, {
    userId: usdUser,
    provider: "sandbox",
    institutionId: "ins_platypus",
    seed,
    now: NOW,
  });
  accounts = await db.select().from(bankAccounts).where(eq(bankAccounts.userId, multiUser));
  rows = await db.select().from(transactions).where(eq(transactions.userId, multiUser));
  currencies = [...new Set(accounts.map((a) => a.currency))].sort();
}, 240_000);

describe("a user with USD, EUR and JPY accounts", () => {
  it("stores each account and transaction in its own currency, yen as whole yen", () => {
    expect(currencies).toEqual(["EUR", "JPY", "USD"]);
    // Every transaction has its account's currency.
    const currencyOf = new Map(accounts.map((a) => [a.id, a.currency]));
    expect(rows.every((t) => t.currency === currencyOf.get(t.accountId))).toBe(true);
    for (const currency of currencies) {
      const of = ofCurrency(rows, currency);
      expect(
        of.some((t) => t.isTransfer),
        `${currency} transfer`,
      ).toBe(true);
      expect(
        of.some((t) => t.amountMinor > 0 && t.category === "shopping"),
        `${currency} refund`,
      ).toBe(true);
    }
    // Yen amounts are whole yen, not hundredths: a Lawson purchase is a few hundred to 2,400 yen.
    const lawson = rows.filter((t) => t.merchantName === "Lawson");
    expect(lawson.length).toBeGreaterThan(0);
    expect(
      lawson.every((t) => t.currency === "JPY" && -t.amountMinor >= 180 && -t.amountMinor <= 2_400),
    ).toBe(true);
  });

  it("list_accounts: assets, liabilities and net once per currency", async () => {
    const ctx = await contextFor(getDb(), multiUser, NOW);
    const out = await callTool(listAccountsTool, {}, ctx);
    expect(out.data.totals.map((t) => t.currency)).toEqual(currencies);
    for (const t of out.data.totals) {
      const open = ofCurrency(accounts, t.currency).filter((a) => !a.isClosed);
      const assets = sum(open.filter((a) => !isLiability(a)).map((a) => a.currentBalanceMinor ?? 0));
      const owed = sum(open.filter(isLiability).map((a) => a.currentBalanceMinor ?? 0));
      expect(minor(t.assets, t.currency), t.currency).toBe(assets);
      expect(minor(t.liabilities, t.currency), t.currency).toBe(owed);
      expect(minor(t.net, t.currency), t.currency).toBe(assets - owed);
    }
    for (const a of out.data.accounts) {
      const stored = accounts.find((x) => x.id === a.id);
      expect(a.currency).toBe(stored?.currency);
      expect(minor(a.current_balance ?? Number.NaN, a.currency)).toBe(stored?.currentBalanceMinor);
    }
    expect(codes(out.warnings)).toContain("MIXED_CURRENCIES");
  });

  it("search_transactions: inflow and outflow per currency over all matches; amount bounds in each currency", async () => {
    const ctx = await contextFor(getDb(), multiUser, NOW);
    const out = await callTool(searchTransactionsTool, { limit: 5 }, ctx);
    expect(out.data.summary.count).toBe(rows.length);
    expect(out.data.summary.totals.map((t) => t.currency)).toEqual(currencies);
    for (const t of out.data.summary.totals) {
      const of = ofCurrency(rows, t.currency).map((r) => r.amountMinor);
      expect(t.count, t.currency).toBe(of.length);
      expect(minor(t.inflow, t.currency), t.currency).toBe(sum(of.filter((a) => a > 0)));
      expect(minor(t.outflow, t.currency), t.currency).toBe(sum(of.filter((a) => a < 0)));
      expect(minor(t.net, t.currency), t.currency).toBe(sum(of));
    }
    for (const t of out.data.transactions) {
      const stored = rows.find((r) => r.id === t.id);
      expect(minor(t.amount, t.currency)).toBe(stored?.amountMinor);
    }
    expect(codes(out.warnings)).toContain("MIXED_CURRENCIES");

    // min_amount 1000 means 1,000.00 dollars or euros and 1,000 yen.
    const big = await callTool(searchTransactionsTool, { min_amount: 1000, limit: 1 }, ctx);
    const floor = (currency: string) => 1000 * 10 ** (EXPONENT[currency] ?? Number.NaN);
    const expected = rows.filter((r) => Math.abs(r.amountMinor) >= floor(r.currency));
    expect(big.data.summary.count).toBe(expected.length);
    expect(expected.some((r) => r.currency === "JPY")).toBe(true);
  });

  it("get_spending_breakdown: groups, shares and totals within each currency", async () => {
    const ctx = await contextFor(getDb(), multiUser, NOW);
    const out = await callTool(getSpendingBreakdownTool, { top_n: 50 }, ctx);
    expect(out.data.range).toEqual({ start: "2025-10-01", end: "2025-10-31" });
    expect(out.data.totals.map((t) => t.currency)).toEqual(currencies);
    for (const t of out.data.totals) {
      const now = expectedFlow(ofCurrency(rows, t.currency), "2025-10-01", "2025-10-31");
      const before = expectedFlow(ofCurrency(rows, t.currency), "2025-09-01", "2025-09-30");
      expect(minor(t.total_spending, t.currency), t.currency).toBe(now.spending);
      expect(minor(t.previous_total_spending ?? Number.NaN, t.currency), t.currency).toBe(before.spending);
      const groups = ofCurrency(out.data.groups, t.currency);
      expect(Object.fromEntries(groups.map((g) => [g.key, minor(g.amount, t.currency)]))).toEqual(
        Object.fromEntries(now.byCategory),
      );
      for (const g of groups) {
        expectRounded(g.share, minor(g.amount, t.currency) / now.spending, 4, `${t.currency} ${g.key}`);
      }
    }
    expect(codes(out.warnings)).toContain("MIXED_CURRENCIES");
  });

  it("get_cash_flow: income, spending, net and savings rate per currency and month", async () => {
    const ctx = await contextFor(getDb(), multiUser, NOW);
    const out = await callTool(getCashFlowTool, {}, ctx);
    expect(out.data.totals.map((t) => t.currency)).toEqual(currencies);
    for (const currency of currencies) {
      const of = ofCurrency(rows, currency);
      const months = ofCurrency(out.data.intervals, currency);
      expect(months.map((m) => m.label)).toEqual([
        "2025-06",
        "2025-07",
        "2025-08",
        "2025-09",
        "2025-10",
        "2025-11",
      ]);
      for (const m of months) {
        const f = expectedFlow(of, m.start, m.end);
        expect(minor(m.income, currency), `${currency} ${m.label}`).toBe(f.income);
        expect(minor(m.spending, currency), `${currency} ${m.label}`).toBe(f.spending);
        expect(minor(m.net, currency), `${currency} ${m.label}`).toBe(f.income - f.spending);
        if (f.income > 0) expectRounded(m.savings_rate, (f.income - f.spending) / f.income, 4, m.label);
        else expect(m.savings_rate).toBeNull();
      }
      const all = expectedFlow(of, out.data.range.start, out.data.range.end);
      const total = out.data.totals.find((t) => t.currency === currency);
      expect(minor(total?.income ?? Number.NaN, currency), currency).toBe(all.income);
      expect(minor(total?.spending ?? Number.NaN, currency), currency).toBe(all.spending);
    }
    expect(out.data.top_income_sources.every((s) => currencies.includes(s.currency))).toBe(true);
    expect(codes(out.warnings)).toContain("MIXED_CURRENCIES");
  });

  it("get_net_worth and the overview: assets, liabilities and net worth per currency", async () => {
    const ctx = await contextFor(getDb(), multiUser, NOW);
    const out = await callTool(getNetWorthTool, {}, ctx);
    const overview = await callTool(getFinancialOverviewTool, {}, ctx);
    expect(out.data.totals.map((t) => t.currency)).toEqual(currencies);
    expect(overview.data.totals.map((t) => t.currency)).toEqual(currencies);
    for (const currency of currencies) {
      const open = ofCurrency(accounts, currency).filter((a) => !a.isClosed);
      const assets = sum(open.filter((a) => !isLiability(a)).map((a) => a.currentBalanceMinor ?? 0));
      const owed = sum(open.filter(isLiability).map((a) => a.currentBalanceMinor ?? 0));
      const cash = sum(open.filter((a) => a.type === "depository").map((a) => a.currentBalanceMinor ?? 0));
      const t = out.data.totals.find((x) => x.currency === currency);
      expect(minor(t?.assets ?? Number.NaN, currency), currency).toBe(assets);
      expect(minor(t?.liabilities ?? Number.NaN, currency), currency).toBe(owed);
      expect(minor(t?.net_worth ?? Number.NaN, currency), currency).toBe(assets - owed);
      const today = ofCurrency(netWorthPoints(out.data.history), currency).at(-1);
      expect(today?.date).toBe("2025-11-10");
      expect(minor(today?.net_worth ?? Number.NaN, currency), currency).toBe(assets - owed);

      const o = overview.data.totals.find((x) => x.currency === currency);
      expect(minor(o?.net_worth ?? Number.NaN, currency), currency).toBe(assets - owed);
      expect(minor(o?.cash ?? Number.NaN, currency), currency).toBe(cash);
      const f = expectedFlow(
        ofCurrency(rows, currency),
        overview.data.period.start,
        overview.data.period.end,
      );
      expect(minor(o?.current.income ?? Number.NaN, currency), currency).toBe(f.income);
      expect(minor(o?.current.spending ?? Number.NaN, currency), currency).toBe(f.spending);
    }
    expect(codes(out.warnings)).toContain("MIXED_CURRENCIES");
    expect(codes(overview.warnings)).toContain("MIXED_CURRENCIES");
  });

  it("get_liabilities: debt, utilization and weighted APR per currency", async () => {
    const db = getDb();
    const ctx = await contextFor(db, multiUser, NOW);
    const out = await callTool(getLiabilitiesTool, {}, ctx);
    const terms = await db.select().from(liabilities).where(eq(liabilities.userId, multiUser));
    const debts = accounts.filter((a) => isLiability(a) && !a.isClosed);
    const debtCurrencies = [...new Set(debts.map((a) => a.currency))].sort();
    expect(debtCurrencies).toEqual(["EUR", "USD"]);
    expect(out.data.totals.map((t) => t.currency)).toEqual(debtCurrencies);
    for (const t of out.data.totals) {
      const of = ofCurrency(debts, t.currency);
      const cards = of.filter((a) => a.type === "credit");
      expect(minor(t.total_debt, t.currency), t.currency).toBe(
        sum(of.map((a) => a.currentBalanceMinor ?? 0)),
      );
      expect(minor(t.credit_card_debt, t.currency), t.currency).toBe(
        sum(cards.map((a) => a.currentBalanceMinor ?? 0)),
      );
      const limited = cards.filter((a) => a.limitMinor !== null);
      const limits = sum(limited.map((a) => a.limitMinor ?? 0));
      expectRounded(
        t.credit_utilization,
        sum(limited.map((a) => a.currentBalanceMinor ?? 0)) / limits,
        4,
        t.currency,
      );
      let weight = 0;
      let weighted = 0;
      for (const a of of) {
        const apr = terms.find((l) => l.accountId === a.id)?.aprPercentage;
        const balance = a.currentBalanceMinor ?? 0;
        if (apr === null || apr === undefined || balance <= 0) continue;
        weight += balance;
        weighted += balance * Number(apr);
      }
      if (weight > 0) expectRounded(t.weighted_apr, weighted / weight, 2, t.currency);
      else expect(t.weighted_apr, t.currency).toBeNull();
    }
    for (const c of out.data.credit_cards) {
      expect(c.currency).toBe(accounts.find((a) => a.id === c.account_id)?.currency);
    }
    expect(codes(out.warnings)).toContain("MIXED_CURRENCIES");
  });
});

describe("MIXED_CURRENCIES in all twelve tools", () => {
  it("is present exactly when an answer spans more than one currency; yen amounts are whole", async () => {
    const ctx = await contextFor(getDb(), multiUser, NOW);
    let mixed = 0;
    for (const tool of allTools) {
      const out = await callTool(tool, {}, ctx);
      const found = currenciesIn(out.data);
      expect(codes(out.warnings).includes("MIXED_CURRENCIES"), `${tool.name}: ${[...found]}`).toBe(
        found.size > 1,
      );
      if (found.size > 1) mixed++;
      expect(fractionalYen(out.data), tool.name).toEqual([]);
      // Per-currency totals keep the default answer within product.md's 8 KB.
      const text = JSON.stringify({
        status: "ok",
        data: out.data,
        warnings: out.warnings ?? [],
        page: out.page,
      });
      expect(Buffer.byteLength(text), tool.name).toBeLessThanOrEqual(8 * 1024);
    }
    // Accounts, search, spending, cash flow, recurring, bills, liabilities, net worth, overview, status.
    expect(mixed).toBeGreaterThanOrEqual(10);
  });

  it("is absent for a user whose accounts are all in USD, and every amount says USD", async () => {
    const ctx = await contextFor(getDb(), usdUser, NOW);
    for (const tool of allTools) {
      const out = await callTool(tool, {}, ctx);
      expect(codes(out.warnings), tool.name).not.toContain("MIXED_CURRENCIES");
      const found = currenciesIn(out.data);
      expect([...found], tool.name).toEqual(found.size === 0 ? [] : ["USD"]);
    }
  });
});
