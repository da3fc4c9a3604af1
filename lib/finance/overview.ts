/**
 * The one-call summary behind get_financial_overview: balances now, income and spending of a
 * period against the previous one, its top spending categories, and the bills of the next 7
 * days. Every figure is per currency (the currencies of the balances and of the flows, code
 * order), in that currency's minor units; a currency missing from one side counts 0 there.
 */
import type { Database } from "@/db";
import { getBalanceTotals } from "./accounts";
import { type Bill, listBills } from "./bills";
import { ratio } from "./money";
import type { DateRange } from "./periods";
import { type AccountScope, ALL_ACCOUNTS, scopedAccountIds } from "./scope";
import { type FlowFigures, getPeriodComparison, withNet } from "./spending";

/** Top spending categories listed per currency. */
const TOP_CATEGORIES = 5;
/** Days of bills the overview lists, from today. */
const BILL_DAYS = 7;

interface OverviewTotals {
  currency: string;
  netWorthCents: number;
  assetsCents: number;
  /** Checking and savings balances. */
  cashCents: number;
  investmentsCents: number;
  /** Credit cards and loans owed, positive. */
  debtCents: number;
  current: FlowFigures;
  previous: FlowFigures;
  /** current − previous; `spendingPct` relative to the previous spending (null when it was 0). */
  change: FlowFigures & { spendingPct: number | null };
  topCategories: Array<{ key: string; label: string; cents: number; share: number | null }>;
}

/** The overview of `range` compared with `previous`, with the bills due from `today` through 7 days on. */
export async function getOverview(
  db: Database,
  userId: string,
  options: { range: DateRange; previous: DateRange; today: string; scope?: AccountScope },
): Promise<{ totals: OverviewTotals[]; billsDue: Bill[] }> {
  const scope = options.scope ?? ALL_ACCOUNTS;
  const [balances, flows, bills] = await Promise.all([
    getBalanceTotals(db, userId, scope),
    getPeriodComparison(db, userId, options.range, options.previous, options.today, scopedAccountIds(scope)),
    listBills(db, userId, options.today, BILL_DAYS, scope),
  ]);
  const currencies = [
    ...new Set([...balances.map((b) => b.currency), ...flows.map((f) => f.currency)]),
  ].sort();
  const noFlow = { incomeCents: 0, spendingCents: 0 };
  const totals = currencies.map((currency) => {
    const balance = balances.find((b) => b.currency === currency);
    const flow = flows.find((f) => f.currency === currency);
    const current = withNet(flow?.current ?? noFlow);
    const previous = withNet(flow?.previous ?? noFlow);
    const typeCents = (type: string) => balance?.byType.find((t) => t.type === type)?.cents ?? 0;
    return {
      currency,
      netWorthCents: balance?.netWorthCents ?? 0,
      assetsCents: balance?.assetsCents ?? 0,
      cashCents: typeCents("depository"),
      investmentsCents: typeCents("investment"),
      debtCents: balance?.liabilitiesCents ?? 0,
      current,
      previous,
      change: {
        incomeCents: current.incomeCents - previous.incomeCents,
        spendingCents: current.spendingCents - previous.spendingCents,
        netCents: current.netCents - previous.netCents,
        spendingPct: ratio(current.spendingCents - previous.spendingCents, previous.spendingCents),
      },
      topCategories: (flow?.categories.groups ?? []).slice(0, TOP_CATEGORIES).map((g) => ({
        key: g.key,
        label: g.label,
        cents: g.cents,
        share: ratio(g.cents, flow?.categories.totalCents ?? 0),
      })),
    };
  });
  return { totals, billsDue: bills.bills };
}
