/**
 * Periods and date ranges, read in the user's timezone.
 *
 * Transaction dates are calendar dates (the bank's posting date, no time of day), so a range is a
 * pair of ISO dates `start..end`, inclusive of both ends, and "today" is the calendar date of
 * `now` in the user's IANA zone (default UTC). Rules, each exactly that period:
 * - `this_month`: the 1st of the current month .. today (month to date);
 * - `last_month`: the whole previous calendar month;
 * - `last_7_days` / `last_30_days` / `last_90_days`: the N days ending today (today counts as one);
 * - `year_to_date`: 1 January .. today;
 * - `last_12_months`: the 12 months ending today (same day a year ago + 1 .. today);
 * - `last_year`: the whole previous calendar year.
 *
 * Calendar arithmetic is done on UTC midnights of the dates, which has no daylight-saving jumps.
 */
export const PERIODS = [
  "this_month",
  "last_month",
  "last_7_days",
  "last_30_days",
  "last_90_days",
  "year_to_date",
  "last_12_months",
  "last_year",
] as const;
export type Period = (typeof PERIODS)[number];

/** An inclusive range of calendar dates, `YYYY-MM-DD`. */
export interface DateRange {
  start: string;
  end: string;
}

/** The smallest range holding every one of `ranges` (ISO dates compare as strings). */
export function spanOf(ranges: [DateRange, ...DateRange[]]): DateRange {
  let { start, end } = ranges[0];
  for (const r of ranges) {
    if (r.start < start) start = r.start;
    if (r.end > end) end = r.end;
  }
  return { start, end };
}

const DAY_MS = 86_400_000;

/**
 * Since 1973 every zone's offset is whole minutes (Monrovia's -0:44:30 was the last that was not),
 * so a zone's day changes only on a minute of UTC, and one minute has one date in each zone.
 */
const WHOLE_MINUTE_OFFSETS_SINCE = Date.UTC(1973, 0, 1);
/** The last date answered per zone, with the UTC minute it holds for. */
const lastDay = new Map<string, { minute: number; day: string }>();

/**
 * Today's calendar date (`YYYY-MM-DD`) in `timezone`; an unknown zone falls back to UTC. The date
 * is computed once per zone and minute (`formatToParts` cost a request 0.05-0.2 ms, and a request
 * asks a few times).
 */
export function todayIn(timezone: string, now: Date): string {
  const zone = timezone || "UTC";
  const ms = now.getTime();
  const minute = ms >= WHOLE_MINUTE_OFFSETS_SINCE ? Math.floor(ms / 60_000) : Number.NaN;
  const last = lastDay.get(zone);
  if (last && last.minute === minute) return last.day;
  const parts = dayFormatter(zone).formatToParts(now);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
  const day = `${get("year")}-${get("month")}-${get("day")}`;
  // Zones are a few hundred names (dayFormatters keeps one formatter for each already).
  if (!Number.isNaN(minute)) lastDay.set(zone, { minute, day });
  return day;
}

/** One calendar-day formatter per zone, built once (an unknown zone gets UTC's). */
const dayFormatters = new Map<string, Intl.DateTimeFormat>();
function dayFormatter(zone: string): Intl.DateTimeFormat {
  let formatter = dayFormatters.get(zone);
  if (!formatter) {
    const options = { year: "numeric", month: "2-digit", day: "2-digit" } as const;
    try {
      formatter = new Intl.DateTimeFormat("en-CA", { ...options, timeZone: zone });
    } catch {
      formatter = dayFormatter("UTC");
    }
    dayFormatters.set(zone, formatter);
  }
  return formatter;
}

const twoDigits = (n: number) => (n < 10 ? `0${n}` : String(n));

/**
 * Midnight UTC of a `YYYY-MM-DD` date, and back. Built from the numbers, not by parsing an ISO
 * string and slicing `toISOString` (2.3 times as slow: a daily year of net worth or two years of
 * cash flow call these hundreds of times). `setUTCFullYear` keeps years 0–99 as they are.
 */
function toUtc(date: string): Date {
  const d = new Date(0);
  d.setUTCFullYear(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10)));
  return d;
}

function fromUtc(d: Date): string {
  return isoDate(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate());
}

/** `YYYY-MM-DD` of a year, month (1–12) and day. */
function isoDate(year: number, month: number, day: number): string {
  return `${year < 1000 ? String(year).padStart(4, "0") : year}-${twoDigits(month)}-${twoDigits(day)}`;
}

/** `date` plus `days` (may be negative). */
export function addDays(date: string, days: number): string {
  return fromUtc(new Date(toUtc(date).getTime() + days * DAY_MS));
}

/** Days in month `month` (1–12) of `year` (Gregorian). */
function daysInMonth(year: number, month: number): number {
  if (month !== 2) return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
}

/**
 * Every date from `first` up to, not including, `end`, counted on the calendar without a Date
 * per day (a daily year of net worth: 365 `toISOString` calls were 0.2 ms of its 4 ms of CPU).
 */
export function datesUntil(first: string, end: string): string[] {
  const dates: string[] = [];
  let [year, month, day] = first.split("-").map(Number) as [number, number, number];
  for (let date = first; date < end; ) {
    dates.push(date);
    day += 1;
    if (day > daysInMonth(year, month)) {
      day = 1;
      month += 1;
      if (month > 12) {
        month = 1;
        year += 1;
      }
    }
    date = isoDate(year, month, day);
  }
  return dates;
}

/** Whole days from `a` to `b` (b − a). */
export function daysBetween(a: string, b: string): number {
  return Math.round((toUtc(b).getTime() - toUtc(a).getTime()) / DAY_MS);
}

/** Last day of the month that `date` is in. */
export function endOfMonth(date: string): string {
  return `${date.slice(0, 7)}-${daysInMonth(Number(date.slice(0, 4)), Number(date.slice(5, 7)))}`;
}

/** First day of the month that `date` is in. */
export function startOfMonth(date: string): string {
  return `${date.slice(0, 7)}-01`;
}

/**
 * `date` moved by `months` calendar months, the day clamped to the target month's length
 * (31 March − 1 month = 28/29 February).
 */
export function addMonths(date: string, months: number): string {
  const index = Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7)) - 1 + months;
  const year = Math.floor(index / 12);
  const month = index - year * 12 + 1;
  return isoDate(year, month, Math.min(Number(date.slice(8, 10)), daysInMonth(year, month)));
}

/** True when `value` is a real calendar date written `YYYY-MM-DD`. */
export function isIsoDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const d = toUtc(value);
  return !Number.isNaN(d.getTime()) && fromUtc(d) === value;
}

/** The inclusive date range of a named period, in `timezone`, as seen at `now`. */
export function resolvePeriod(period: Period, timezone: string, now: Date): DateRange {
  const today = todayIn(timezone, now);
  switch (period) {
    case "this_month":
      return { start: startOfMonth(today), end: today };
    case "last_month": {
      const start = addMonths(startOfMonth(today), -1);
      return { start, end: endOfMonth(start) };
    }
    case "last_7_days":
      return { start: addDays(today, -6), end: today };
    case "last_30_days":
      return { start: addDays(today, -29), end: today };
    case "last_90_days":
      return { start: addDays(today, -89), end: today };
    case "year_to_date":
      return { start: `${today.slice(0, 4)}-01-01`, end: today };
    case "last_12_months":
      return { start: addDays(addMonths(today, -12), 1), end: today };
    case "last_year": {
      const year = Number(today.slice(0, 4)) - 1;
      return { start: `${year}-01-01`, end: `${year}-12-31` };
    }
  }
}

/** The last `months` calendar months up to `today`, the current month to date counting as one. */
export function monthsToDate(today: string, months: number): DateRange {
  return { start: addMonths(startOfMonth(today), -(months - 1)), end: today };
}

/**
 * The period just before `range`, for comparisons:
 * - `this_month` (1st .. today) → the previous month's 1st .. the same day (clamped);
 * - `year_to_date` → the same span of the previous year;
 * - a range of whole calendar months (from a 1st to a month end) → the same number of months before;
 * - anything else → the same number of days immediately before.
 */
export function previousRange(range: DateRange, period?: Period): DateRange {
  if (period === "this_month") {
    return { start: addMonths(range.start, -1), end: addMonths(range.end, -1) };
  }
  if (period === "year_to_date" || period === "last_year") {
    return { start: addMonths(range.start, -12), end: addMonths(range.end, -12) };
  }
  if (range.start === startOfMonth(range.start) && range.end === endOfMonth(range.end)) {
    const months =
      (Number(range.end.slice(0, 4)) - Number(range.start.slice(0, 4))) * 12 +
      (Number(range.end.slice(5, 7)) - Number(range.start.slice(5, 7))) +
      1;
    const start = addMonths(range.start, -months);
    return { start, end: endOfMonth(addMonths(start, months - 1)) };
  }
  const length = daysBetween(range.start, range.end) + 1;
  return { start: addDays(range.start, -length), end: addDays(range.start, -1) };
}
