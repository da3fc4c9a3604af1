/**
 * Day arithmetic and a seeded PRNG for the sandbox bank. Days are integers (days since
 * 1970-01-01 UTC) so the generator never meets time zones or daylight saving.
 */

export const DAY_MS = 86_400_000;

/** The UTC calendar day of an instant. */
export function dayOf(date: Date): number {
  return Math.floor(date.getTime() / DAY_MS);
}

export function dayFromIso(iso: string): number {
  return Math.floor(Date.parse(`${iso}T00:00:00Z`) / DAY_MS);
}

export function isoOfDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** Day number of a calendar date; month 1–12; out-of-range days roll over like Date.UTC. */
export function dayFromYmd(year: number, month: number, dayOfMonth: number): number {
  return Math.round(Date.UTC(year, month - 1, dayOfMonth) / DAY_MS);
}

export function ymdOf(day: number): { year: number; month: number; dayOfMonth: number } {
  const d = new Date(day * DAY_MS);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, dayOfMonth: d.getUTCDate() };
}

/** 0 = Sunday … 6 = Saturday (1970-01-01 was a Thursday). */
export function weekdayOf(day: number): number {
  return (((day + 4) % 7) + 7) % 7;
}

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The same day of month `months` later, clamped to the month's last day (Jan 31 + 1 → Feb 28). */
export function addMonths(day: number, months: number): number {
  const { year, month, dayOfMonth } = ymdOf(day);
  const index = year * 12 + (month - 1) + months;
  const y = Math.floor(index / 12);
  const m = (index % 12) + 1;
  return dayFromYmd(y, m, Math.min(dayOfMonth, daysInMonth(y, m)));
}

/** Day `dayOfMonth` of the month containing `day`, clamped to the month's length. */
export function dayInSameMonth(day: number, dayOfMonth: number): number {
  const { year, month } = ymdOf(day);
  return dayFromYmd(year, month, Math.min(dayOfMonth, daysInMonth(year, month)));
}

/** FNV-1a, 32 bits: turns a seed string into a PRNG state. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: small, fast, and the same sequence on every platform. */
export class Rng {
  private state: number;

  constructor(seed: number | string) {
    this.state = typeof seed === "string" ? hashString(seed) : seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** Whole cents between two dollar amounts. */
  cents(minDollars: number, maxDollars: number): number {
    return this.int(Math.round(minDollars * 100), Math.round(maxDollars * 100));
  }
}
