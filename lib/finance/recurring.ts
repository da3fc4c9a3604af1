/**
 * Recurring charges and income (the provider's recurring streams, stored by sync) and their
 * projection into the future.
 *
 * Rules:
 * - Amounts are signed like transactions: an outflow stream's amounts are negative.
 * - Monthly and yearly equivalents use each stream's LAST amount (its current price):
 *   yearly = last × occurrences per year (weekly 52, biweekly 26, semi-monthly 24, monthly 12,
 *   quarterly 4, annually 1), exact in cents; monthly = yearly / 12 rounded to the cent
 *   (half away from zero), per stream; totals are the sums of the per-stream figures.
 * - Price changes are read from the stream's own stored charges (kept with the stream by
 *   triggers, migration 0007): the latest change is where the amount last differed from the
 *   current one; `price_changed` when that happened within the last 12 months
 *   (`previous_amount` = the amount before, `price_changed_on` = first new charge).
 */
import { and, eq, type SQL, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { perDatabaseVariant } from "@/db/fixed-statement";
import type { RecurringStream } from "@/db/schema";
import { bankAccounts, recurringStreams } from "@/db/schema";
import { groupByCurrency } from "./currency";
import { toCents } from "./money";
import { addDays, addMonths } from "./periods";
import { type AccountScope, ALL_ACCOUNTS, readable } from "./scope";

export type Frequency = RecurringStream["frequency"];

export const OCCURRENCES_PER_YEAR: Record<Frequency, number> = {
  weekly: 52,
  biweekly: 26,
  semi_monthly: 24,
  monthly: 12,
  quarterly: 4,
  annually: 1,
};

/** Half away from zero, on integers. */
function roundDiv(numerator: number, denominator: number): number {
  const q = Math.round(Math.abs(numerator) / denominator);
  return numerator < 0 ? -q : q;
}

/** Yearly and monthly equivalents in cents of one occurrence of `cents` at `frequency`. */
export function equivalents(
  cents: number,
  frequency: Frequency,
): { yearlyCents: number; monthlyCents: number } {
  const yearlyCents = cents * OCCURRENCES_PER_YEAR[frequency];
  return { yearlyCents, monthlyCents: roundDiv(yearlyCents, 12) };
}

/** The date after `date` for a stream of this frequency. */
export function nextOccurrence(date: string, frequency: Frequency): string {
  switch (frequency) {
    case "weekly":
      return addDays(date, 7);
    case "biweekly":
      return addDays(date, 14);
    case "semi_monthly": {
      // Twice a month, about 15 days apart (1st/16th, 15th/30th …).
      const day = Number(date.slice(8, 10));
      if (day <= 15) return addDays(date, 15);
      const nextMonth = addMonths(`${date.slice(0, 7)}-01`, 1);
      return addDays(nextMonth, day - 16);
    }
    case "monthly":
      return addMonths(date, 1);
    case "quarterly":
      return addMonths(date, 3);
    case "annually":
      return addMonths(date, 12);
  }
}

export interface StreamRow {
  id: string;
  /** The currency of the stream's account (its amounts are in it). */
  currency: string;
  merchant: string;
  description: string | null;
  category: string;
  direction: "inflow" | "outflow";
  frequency: Frequency;
  /** Signed cents (outflow negative). */
  averageCents: number;
  lastCents: number;
  /** The amount before the latest price change, when the stream's charges show one. */
  previousCents: number | null;
  /** First charge at the current amount after a change (its date and our id). */
  priceChangedOn: string | null;
  priceChangeTransactionId: string | null;
  /** True when the latest price change happened within the year before `today`. */
  priceChanged: boolean;
  firstDate: string;
  lastDate: string;
  nextDate: string | null;
  isActive: boolean;
  accountId: string;
  accountName: string;
  accountType: string;
}

interface StreamQuery {
  direction: "inflow" | "outflow" | "all";
  status: "active" | "inactive" | "all";
  /** Price changes count as recent within the year before it. */
  today: string;
}

/** The streams query for one direction and status, built once per database (db/fixed-statement.ts). */
const streamsQuery = perDatabaseVariant(
  (options: Pick<StreamQuery, "direction" | "status">) => `${options.direction} ${options.status}`,
  (db, options) => {
    const conditions: SQL[] = [eq(recurringStreams.userId, sql.placeholder("userId"))];
    if (options.direction !== "all") conditions.push(eq(recurringStreams.direction, options.direction));
    if (options.status !== "all") conditions.push(eq(recurringStreams.isActive, options.status === "active"));
    return db
      .select({
        // What a stream row answers with: not its charges' ids (`transaction_ids`, a few KB of
        // JSON per stream on a long history, which only the sync reads).
        stream: {
          id: recurringStreams.id,
          merchantName: recurringStreams.merchantName,
          description: recurringStreams.description,
          category: recurringStreams.category,
          direction: recurringStreams.direction,
          frequency: recurringStreams.frequency,
          averageAmountMinor: recurringStreams.averageAmountMinor,
          lastAmountMinor: recurringStreams.lastAmountMinor,
          previousAmountMinor: recurringStreams.previousAmountMinor,
          priceChangedOn: recurringStreams.priceChangedOn,
          priceChangeTransactionId: recurringStreams.priceChangeTransactionId,
          firstDate: recurringStreams.firstDate,
          lastDate: recurringStreams.lastDate,
          predictedNextDate: recurringStreams.predictedNextDate,
          isActive: recurringStreams.isActive,
          accountId: recurringStreams.accountId,
        },
        accountName: bankAccounts.name,
        accountType: bankAccounts.type,
        currency: bankAccounts.currency,
      })
      .from(recurringStreams)
      .innerJoin(bankAccounts, eq(bankAccounts.id, recurringStreams.accountId))
      .where(and(...conditions))
      .orderBy(recurringStreams.merchantName, recurringStreams.id)
      .prepare("");
  },
);

/**
 * The user's recurring streams, with their latest price change (stored with each stream from its
 * charges by triggers: db/schema.ts `recurringStreams`), in one query.
 */
export async function listStreams(
  db: Database,
  userId: string,
  options: StreamQuery,
  scope: AccountScope = ALL_ACCOUNTS,
): Promise<StreamRow[]> {
  const streams = readable(
    scope,
    (await streamsQuery(db, options).execute({ userId })).map((row) => ({
      ...row,
      accountId: row.stream.accountId,
    })),
  );
  const yearAgo = addMonths(options.today, -12);

  return streams.map(({ stream: s, accountName, accountType, currency }) => {
    const sign = s.direction === "outflow" ? -1 : 1;
    return {
      id: s.id,
      currency,
      merchant: s.merchantName,
      description: s.description,
      category: s.category,
      direction: s.direction,
      frequency: s.frequency,
      averageCents: sign * toCents(s.averageAmountMinor),
      lastCents: sign * toCents(s.lastAmountMinor),
      previousCents: s.previousAmountMinor === null ? null : sign * toCents(s.previousAmountMinor),
      priceChangedOn: s.priceChangedOn,
      priceChangeTransactionId: s.priceChangeTransactionId,
      priceChanged: s.priceChangedOn !== null && s.priceChangedOn > yearAgo,
      firstDate: s.firstDate,
      lastDate: s.lastDate,
      nextDate: s.predictedNextDate ?? (s.isActive ? nextOccurrence(s.lastDate, s.frequency) : null),
      isActive: s.isActive,
      accountId: s.accountId,
      accountName,
      accountType,
    };
  });
}

/**
 * Dates a stream is expected on within `from..to` (inclusive): starting at its next date
 * (rolled forward past `from` when the provider's prediction is stale), then by its frequency.
 */
export function projectDates(
  stream: Pick<StreamRow, "nextDate" | "lastDate" | "frequency">,
  from: string,
  to: string,
): string[] {
  let date = stream.nextDate ?? nextOccurrence(stream.lastDate, stream.frequency);
  const dates: string[] = [];
  for (let guard = 0; guard < 1000 && date <= to; guard++) {
    if (date >= from) dates.push(date);
    date = nextOccurrence(date, stream.frequency);
  }
  return dates;
}

/** A stream with its monthly and yearly equivalents at its current price (signed minor units). */
interface StreamWithEquivalents extends StreamRow {
  monthlyCents: number;
  yearlyCents: number;
}

/** What the listed streams of one direction add up to, in one currency's minor units. */
export interface RecurringSums {
  count: number;
  monthlyCents: number;
  yearlyCents: number;
}

/**
 * The user's recurring streams with their equivalents, ordered by currency, monthly equivalent
 * (largest charge first) and merchant, and per currency (code order) the sums of the per-stream
 * equivalents of charges and of income.
 */
export async function getRecurring(
  db: Database,
  userId: string,
  options: StreamQuery,
  scope: AccountScope = ALL_ACCOUNTS,
): Promise<{
  streams: StreamWithEquivalents[];
  totals: Array<{ currency: string; outflow: RecurringSums; inflow: RecurringSums }>;
}> {
  const streams = (await listStreams(db, userId, options, scope)).map((s) => ({
    ...s,
    ...equivalents(s.lastCents, s.frequency),
  }));
  const totals = groupByCurrency(streams, (s) => s.currency).map(([currency, ofCurrency]) => {
    const sum = (direction: "inflow" | "outflow") => {
      const of = ofCurrency.filter((s) => s.direction === direction);
      return {
        count: of.length,
        monthlyCents: of.reduce((n, s) => n + s.monthlyCents, 0),
        yearlyCents: of.reduce((n, s) => n + s.yearlyCents, 0),
      };
    };
    return { currency, outflow: sum("outflow"), inflow: sum("inflow") };
  });
  streams.sort(
    (a, b) =>
      a.currency.localeCompare(b.currency) ||
      a.monthlyCents - b.monthlyCents ||
      a.merchant.localeCompare(b.merchant),
  );
  return { streams, totals };
}
