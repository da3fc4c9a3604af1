/**
 * The twelve tools over sandbox banks linked through the real connect + sync path, with every
 * figure that must be right checked to the cent against an independent computation in plain
 * TypeScript from the sandbox generator's RAW output (transaction lifecycles, accounts, streams,
 * holdings, liabilities) — not from our database and not from our SQL.
 */
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { linkConnection, syncConnection } from "@/lib/banking/connections";
import { generateSandboxData, listSandboxInstitutions, type SandboxData } from "@/lib/banking/sandbox";
import { categoryKind } from "@/lib/finance/categories";
import { allTools } from "@/lib/mcp/tools";
import { findUnusualActivityTool } from "@/lib/mcp/tools/find-unusual-activity";
import { getCashFlowTool } from "@/lib/mcp/tools/get-cash-flow";
import { getConnectionStatusTool } from "@/lib/mcp/tools/get-connection-status";
import { getFinancialOverviewTool } from "@/lib/mcp/tools/get-financial-overview";
import { getInvestmentsTool } from "@/lib/mcp/tools/get-investments";
import { getLiabilitiesTool } from "@/lib/mcp/tools/get-liabilities";
import { getNetWorthTool } from "@/lib/mcp/tools/get-net-worth";
import { getSpendingBreakdownTool } from "@/lib/mcp/tools/get-spending-breakdown";
import { getUpcomingBillsTool } from "@/lib/mcp/tools/get-upcoming-bills";
import { listAccountsTool } from "@/lib/mcp/tools/list-accounts";
import { listRecurringTool } from "@/lib/mcp/tools/list-recurring";
import { searchTransactionsTool } from "@/lib/mcp/tools/search-transactions";
import { useTestDatabase } from "../helpers/db";
import {
  callTool,
  cents,
  contextFor,
  createUser,
  expectedFlow,
  expectRounded,
  netWorthPoints,
  only,
} from "./tools-helpers";

const getDb = useTestDatabase();
const NOW = new Date("2025-11-10T12:00:00Z");
const LATER = new Date("2025-11-14T12:00:00Z");

interface Visible {
  /** The purchase (lifecycle) this row is a phase of. */
  key: string;
  id: string;
  date: string;
  amountMinor: number;
  name: string;
  merchantName: string | null;
  category: string;
  isTransfer: boolean;
  pending: boolean;
}

/**
 * What the bank shows on `asOf`, rebuilt from the raw lifecycles: a charge is pending (its own id,
 * authorization date, pending amount) until its posting date, then posted (posting date, posted
 * or revised amount). One row per purchase, whatever its phase.
 */
function visibleOn(data: SandboxData): Visible[] {
  const out: Visible[] = [];
  for (const t of data.lifecycles) {
    if (t.pendingId && t.authorizedDate <= data.asOf && data.asOf < t.postedDate) {
      out.push({
        key: `${data.institution.id}:${t.id}`,
        id: t.pendingId,
        date: t.authorizedDate,
        amountMinor: t.pendingAmountMinor ?? t.amountMinor,
        name: t.name,
        merchantName: t.merchantName,
        category: t.category,
        isTransfer: t.isTransfer,
        pending: true,
      });
    } else if (t.postedDate <= data.asOf) {
      const revised = t.revision && t.revision.date <= data.asOf ? t.revision : null;
      out.push({
        key: `${data.institution.id}:${t.id}`,
        id: t.id,
        date: t.postedDate,
        amountMinor: revised ? revised.amountMinor : t.amountMinor,
        name: revised ? revised.name : t.name,
        merchantName: revised ? revised.merchantName : t.merchantName,
        category: t.category,
        isTransfer: t.isTransfer,
        pending: false,
      });
    }
  }
  return out;
}

const PER_YEAR = {
  weekly: 52,
  biweekly: 26,
  semi_monthly: 24,
  monthly: 12,
  quarterly: 4,
  annually: 1,
} as const;

let userId: string;
let seed: string;
let raw: SandboxData[];
let visible: Visible[];
const institutions = listSandboxInstitutions().map((i) => i.id);

/**
 * Pending charges are random in the sandbox: a seed can lack one still pending on NOW, or one that
 * posts between NOW and LATER. The seed is drawn until the data has both, so the cases the tests
 * below are about are always there (the seed stays unique: PostgreSQL keeps earlier runs' items).
 */
function hasPendingCases(candidate: string): boolean {
  const at = (date: Date) =>
    institutions.flatMap((id) => generateSandboxData(candidate, id, date).lifecycles);
  const stillPending = at(NOW).some(
    (t) => t.pendingId && t.authorizedDate <= "2025-11-10" && t.postedDate > "2025-11-10",
  );
  const postsLater = at(LATER).some(
    (t) =>
      t.pendingId &&
      t.authorizedDate <= "2025-11-10" &&
      t.postedDate > "2025-11-10" &&
      t.postedDate <= "2025-11-14",
  );
  return stillPending && postsLater;
}

beforeAll(async () => {
  const db = getDb();
  userId = await createUser(db);
  for (let tries = 0; ; tries++) {
    seed = `tools-${randomUUID()}`;
    if (hasPendingCases(seed)) break;
    if (tries === 50) throw new Error("no sandbox seed with pending charges in 50 draws");
  }
  for (const institutionId of institutions) {
    const linked = await linkConnection(db, { userId, provider: "sandbox", institutionId, seed, now: NOW });
    expect(linked.connection.status).toBe("healthy");
  }
  raw = institutions.map((id) => generateSandboxData(seed, id, NOW));
  visible = raw.flatMap(visibleOn);
}, 240_000);

describe("numbers that must be right (against the raw sandbox data)", () => {
  it("has the special cases in the data: transfers, refunds, pending that posted, still pending", () => {
    const lifecycles = raw.flatMap((d) => d.lifecycles);
    expect(visible.some((r) => r.isTransfer)).toBe(true);
    expect(
      visible.some((r) => !r.isTransfer && categoryKind(r.category) === "spending" && r.amountMinor > 0),
    ).toBe(true);
    expect(lifecycles.some((t) => t.pendingId && t.postedDate <= raw[0]!.asOf)).toBe(true);
    expect(visible.some((r) => r.pending)).toBe(true);
    // The rebuilt view is what the bank shows (one row per purchase).
    expect(visible.length).toBe(raw.reduce((n, d) => n + d.transactions.length, 0));
  });

  it("spending by category for last month", async () => {
    const ctx = await contextFor(getDb(), userId, NOW);
    const out = await callTool(getSpendingBreakdownTool, { top_n: 50 }, ctx);
    expect(out.data.range).toEqual({ start: "2025-10-01", end: "2025-10-31" });
    const expected = expectedFlow(visible, "2025-10-01", "2025-10-31");
    expect(cents(only(out.data.totals).total_spending)).toBe(expected.spending);
    expect(Object.fromEntries(out.data.groups.map((g) => [g.key, cents(g.amount)]))).toEqual(
      Object.fromEntries(expected.byCategory),
    );
    const previous = expectedFlow(visible, "2025-09-01", "2025-09-30");
    expect(cents(only(out.data.totals).previous_total_spending ?? Number.NaN)).toBe(previous.spending);
    // The transfers of the month were real money movements that do not count.
    expect(visible.some((r) => r.isTransfer && r.date >= "2025-10-01" && r.date <= "2025-10-31")).toBe(true);
  });

  it("cash flow per month: income, spending, net and savings rate", async () => {
    const ctx = await contextFor(getDb(), userId, NOW);
    const out = await callTool(getCashFlowTool, {}, ctx);
    expect(out.data.intervals.map((i) => i.label)).toEqual([
      "2025-06",
      "2025-07",
      "2025-08",
      "2025-09",
      "2025-10",
      "2025-11",
    ]);
    for (const month of out.data.intervals) {
      const f = expectedFlow(visible, month.start, month.end);
      expect(cents(month.income), month.label).toBe(f.income);
      expect(cents(month.spending), month.label).toBe(f.spending);
      expect(cents(month.net), month.label).toBe(f.income - f.spending);
      if (f.income > 0) expectRounded(month.savings_rate, (f.income - f.spending) / f.income, 4, month.label);
      else expect(month.savings_rate).toBeNull();
    }
    expect(out.data.intervals.at(-1)?.partial).toBe(true);
    expect(out.data.intervals[0]?.partial).toBe(false);
    const all = expectedFlow(visible, out.data.range.start, out.data.range.end);
    expect(cents(only(out.data.totals).income)).toBe(all.income);
    expect(cents(only(out.data.totals).spending)).toBe(all.spending);

    const weekly = await callTool(getCashFlowTool, { interval: "week", period: "last_90_days" }, ctx);
    for (const week of weekly.data.intervals) {
      const f = expectedFlow(visible, week.start, week.end);
      expect(cents(week.income), week.label).toBe(f.income);
      expect(cents(week.spending), week.label).toBe(f.spending);
    }
  });

  it("net worth: assets minus liabilities, liabilities positive", async () => {
    const ctx = await contextFor(getDb(), userId, NOW);
    const accounts = raw.flatMap((d) => d.accounts);
    const liabilityCents = accounts
      .filter((a) => a.type === "credit" || a.type === "loan")
      .reduce((n, a) => n + (a.currentBalanceMinor ?? 0), 0);
    const assetCents = accounts
      .filter((a) => a.type !== "credit" && a.type !== "loan")
      .reduce((n, a) => n + (a.currentBalanceMinor ?? 0), 0);
    expect(liabilityCents).toBeGreaterThan(0);
    const out = await callTool(getNetWorthTool, {}, ctx);
    expect(cents(only(out.data.totals).assets)).toBe(assetCents);
    expect(cents(only(out.data.totals).liabilities)).toBe(liabilityCents);
    expect(cents(only(out.data.totals).net_worth)).toBe(assetCents - liabilityCents);
    const history = netWorthPoints(out.data.history);
    expect(history.length).toBeGreaterThan(6);
    expect(history.at(-1)?.date).toBe("2025-11-10");
    expect(cents(history.at(-1)?.net_worth ?? Number.NaN)).toBe(assetCents - liabilityCents);

    const listed = await callTool(listAccountsTool, {}, ctx);
    expect(listed.data.accounts).toHaveLength(accounts.length);
    for (const a of listed.data.accounts.filter((x) => x.is_liability)) {
      expect(a.current_balance ?? -1).toBeGreaterThanOrEqual(0);
    }
    expect(cents(only(listed.data.totals).net)).toBe(assetCents - liabilityCents);

    const debts = await callTool(getLiabilitiesTool, {}, ctx);
    expect(cents(only(debts.data.totals).total_debt)).toBe(liabilityCents);
    const overview = await callTool(getFinancialOverviewTool, {}, ctx);
    expect(cents(only(overview.data.totals).net_worth)).toBe(assetCents - liabilityCents);
    expect(cents(only(overview.data.totals).debt)).toBe(liabilityCents);
  });

  it("recurring totals: monthly and yearly equivalents", async () => {
    const ctx = await contextFor(getDb(), userId, NOW);
    const streams = raw
      .flatMap((d) => d.recurringStreams)
      .filter((s) => s.isActive && s.direction === "outflow");
    let yearly = 0;
    let monthly = 0;
    for (const s of streams) {
      const y = -s.lastAmountMinor * PER_YEAR[s.frequency];
      yearly += y;
      monthly += -Math.round(-y / 12);
    }
    const out = await callTool(listRecurringTool, {}, ctx);
    expect(only(out.data.totals).outflow.count).toBe(streams.length);
    expect(cents(only(out.data.totals).outflow.yearly)).toBe(yearly);
    expect(cents(only(out.data.totals).outflow.monthly)).toBe(monthly);
    expect(out.data.streams.every((s) => s.last_amount < 0)).toBe(true);

    // Price changes, read independently from each stream's raw posted charges.
    const byId = new Map(visible.filter((r) => !r.pending).map((r) => [r.id, r]));
    let changed = 0;
    for (const s of streams) {
      const charges = s.transactionIds
        .map((id) => byId.get(id))
        .filter((r): r is Visible => r !== undefined)
        .sort((a, b) => b.date.localeCompare(a.date) || b.id.localeCompare(a.id));
      const last = charges[0];
      const at = charges.findIndex((c) => Math.abs(c.amountMinor) !== Math.abs(last?.amountMinor ?? 0));
      const listed = out.data.streams.find(
        (x) => x.merchant === s.merchantName && x.frequency === s.frequency,
      );
      expect(listed, s.merchantName).toBeDefined();
      if (at > 0) {
        changed++;
        expect(cents(listed?.previous_amount ?? 0), s.merchantName).toBe(
          -Math.abs(charges[at]?.amountMinor ?? 0),
        );
        expect(listed?.price_changed_on, s.merchantName).toBe(charges[at - 1]?.date);
      } else {
        expect(listed?.previous_amount, s.merchantName).toBeNull();
      }
    }
    expect(changed).toBeGreaterThan(0);

    const income = raw
      .flatMap((d) => d.recurringStreams)
      .filter((s) => s.isActive && s.direction === "inflow");
    const inflow = await callTool(listRecurringTool, { direction: "inflow" }, ctx);
    expect(only(inflow.data.totals).inflow.count).toBe(income.length);
    expect(cents(only(inflow.data.totals).inflow.yearly)).toBe(
      income.reduce((n, s) => n + s.lastAmountMinor * PER_YEAR[s.frequency], 0),
    );
  });

  it("search summary over all matches while the page is limited", async () => {
    const ctx = await contextFor(getDb(), userId, NOW);
    // The most frequent merchant, searched by a lower-case fragment of its name.
    const counts = new Map<string, number>();
    for (const r of visible)
      if (r.merchantName) counts.set(r.merchantName, (counts.get(r.merchantName) ?? 0) + 1);
    const [merchant] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0] ?? [""];
    const query = merchant.toLowerCase().slice(0, 6);
    const matches = visible.filter(
      (r) => (r.merchantName ?? "").toLowerCase().includes(query) || r.name.toLowerCase().includes(query),
    );
    expect(matches.length).toBeGreaterThan(100);
    const out = await callTool(searchTransactionsTool, { query, limit: 5 }, ctx);
    expect(out.data.transactions).toHaveLength(5);
    expect(out.data.summary.count).toBe(matches.length);
    expect(out.page?.total_count).toBe(matches.length);
    expect(cents(only(out.data.summary.totals).inflow)).toBe(
      matches.filter((r) => r.amountMinor > 0).reduce((n, r) => n + r.amountMinor, 0),
    );
    expect(cents(only(out.data.summary.totals).outflow)).toBe(
      matches.filter((r) => r.amountMinor < 0).reduce((n, r) => n + r.amountMinor, 0),
    );

    // Everything: one row per purchase, the pending and posted phases never both.
    const all = await callTool(searchTransactionsTool, { limit: 1 }, ctx);
    expect(all.data.summary.count).toBe(visible.length);
    expect(cents(only(all.data.summary.totals).net)).toBe(visible.reduce((n, r) => n + r.amountMinor, 0));
  });
});

describe("every tool with its defaults and main arguments", () => {
  it("answers every tool with defaults, matching its data schema", async () => {
    const ctx = await contextFor(getDb(), userId, LATER);
    for (const tool of allTools) {
      const out = await callTool(tool, {}, ctx);
      expect(out.data, tool.name).toBeDefined();
      expect(JSON.stringify(out.data).length, tool.name).toBeLessThan(60_000);
    }
  });

  it("investments: holdings totals, allocation shares, transactions by type", async () => {
    const ctx = await contextFor(getDb(), userId, NOW);
    const holdings = raw.flatMap((d) => d.holdings);
    const value = holdings.reduce((n, h) => n + h.valueMinor, 0);
    const out = await callTool(getInvestmentsTool, {}, ctx);
    expect(cents(only(out.data.totals).value)).toBe(value);
    expect(only(out.data.totals).holdings_count).toBe(holdings.length);
    const withBasis = holdings.filter((h) => h.costBasisMinor !== null);
    expect(cents(only(out.data.totals).gain)).toBe(
      withBasis.reduce((n, h) => n + h.valueMinor - (h.costBasisMinor ?? 0), 0),
    );
    const allocation = await callTool(getInvestmentsTool, { view: "allocation" }, ctx);
    const byType = allocation.data.allocation?.by_type ?? [];
    expect(byType.reduce((n, t) => n + cents(t.value), 0)).toBe(value);
    const txns = await callTool(
      getInvestmentsTool,
      { view: "transactions", period: "last_12_months", limit: 5 },
      ctx,
    );
    const expectedTxns = raw
      .flatMap((d) => d.investmentTransactions)
      .filter((t) => t.date >= "2024-11-11" && t.date <= "2025-11-10");
    expect(txns.page?.total_count).toBe(expectedTxns.length);
    for (const t of txns.data.transactions_by_type ?? []) {
      const sum = expectedTxns.filter((x) => x.type === t.type).reduce((n, x) => n + x.amountMinor, 0);
      expect(cents(t.amount), t.type).toBe(sum);
    }
  });

  it("upcoming bills, unusual activity and connection status", async () => {
    const ctx = await contextFor(getDb(), userId, NOW);
    const bills = await callTool(getUpcomingBillsTool, { days_ahead: 45 }, ctx);
    expect(bills.data.bills.length).toBeGreaterThan(0);
    expect(
      bills.data.bills.every((b) => b.date >= "2025-11-10" && b.date <= "2025-12-25" && b.amount <= 0),
    ).toBe(true);
    expect(only(bills.data.totals).projected_lowest_balance).toBeLessThanOrEqual(
      only(bills.data.totals).starting_balance,
    );
    const cash = raw
      .flatMap((d) => d.accounts)
      .filter((a) => a.type === "depository")
      .reduce((n, a) => n + (a.currentBalanceMinor ?? 0), 0);
    expect(cents(only(bills.data.totals).starting_balance)).toBe(cash);

    const unusual = await callTool(findUnusualActivityTool, { period: "last_90_days", limit: 100 }, ctx);
    for (const f of unusual.data.findings) {
      expect(f.transaction.date >= "2025-08-13" && f.transaction.date <= "2025-11-10").toBe(true);
    }
    const fees = visible.filter(
      (r) =>
        !r.isTransfer &&
        (r.category === "fees" || r.category === "interest_charged") &&
        r.amountMinor < 0 &&
        r.date >= "2025-08-13",
    );
    expect(unusual.data.counts.fees).toBe(fees.length);

    const status = await callTool(getConnectionStatusTool, {}, ctx);
    expect(status.data.connections).toHaveLength(institutions.length);
    expect(status.data.subscription.state).toBe("active");
  });
});

// Last: it syncs the banks again at a later date.
describe("a later sync", () => {
  it("counts a pending charge once after it posts (a later sync), with the posted amount", async () => {
    const db = getDb();
    const connections = (await contextFor(db, userId, NOW)).access.connections;
    for (const c of connections) await syncConnection(db, c.id, { now: LATER });
    const later = raw.map((d) => generateSandboxData(seed, d.institution.id, LATER));
    const laterVisible = later.flatMap(visibleOn);
    // The stored history also keeps the first sync's oldest days, which left the later window.
    const stored = new Map(visible.map((r) => [r.key, r]));
    for (const r of laterVisible) stored.set(r.key, r);
    const postedSince = later
      .flatMap((d) => d.lifecycles)
      .filter(
        (t) =>
          t.pendingId &&
          t.authorizedDate <= "2025-11-10" &&
          t.postedDate > "2025-11-10" &&
          t.postedDate <= "2025-11-14",
      );
    expect(postedSince.length).toBeGreaterThan(0);
    const ctx = await contextFor(db, userId, LATER);
    const out = await callTool(getCashFlowTool, { period: "this_month" }, ctx);
    const f = expectedFlow(laterVisible, "2025-11-01", "2025-11-14");
    expect(cents(only(out.data.totals).spending)).toBe(f.spending);
    expect(cents(only(out.data.totals).income)).toBe(f.income);
    const all = await callTool(searchTransactionsTool, { limit: 1 }, ctx);
    expect(all.data.summary.count).toBe(stored.size);
    expect(cents(only(all.data.summary.totals).net)).toBe(
      [...stored.values()].reduce((n, r) => n + r.amountMinor, 0),
    );
  });
});
