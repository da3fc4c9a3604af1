import { describe, expect, it } from "vitest";
import {
  addDays,
  addMonths,
  datesUntil,
  endOfMonth,
  isIsoDate,
  monthsToDate,
  PERIODS,
  previousRange,
  resolvePeriod,
  spanOf,
  todayIn,
} from "@/lib/finance/periods";

const at = (iso: string) => new Date(iso);

describe("todayIn", () => {
  it("reads the calendar date in the user's zone", () => {
    // 03:30 UTC on 1 March is still 28 February in Los Angeles and already 1 March in Tokyo.
    const now = at("2025-03-01T03:30:00Z");
    expect(todayIn("UTC", now)).toBe("2025-03-01");
    expect(todayIn("America/Los_Angeles", now)).toBe("2025-02-28");
    expect(todayIn("Asia/Tokyo", now)).toBe("2025-03-01");
    expect(todayIn("Pacific/Kiritimati", at("2025-12-31T10:30:00Z"))).toBe("2026-01-01");
  });

  it("answers a new date from the first second of a day, in a zone whose offset is not whole minutes too", () => {
    // The date is kept per zone and minute: midnight UTC must change it.
    expect(todayIn("UTC", at("2026-11-25T23:59:59.900Z"))).toBe("2026-11-25");
    expect(todayIn("UTC", at("2026-11-26T00:00:00.100Z"))).toBe("2026-11-26");
    expect(todayIn("Asia/Kathmandu", at("2026-11-25T18:14:59Z"))).toBe("2026-11-25");
    expect(todayIn("Asia/Kathmandu", at("2026-11-25T18:15:00Z"))).toBe("2026-11-26");
    // Monrovia ran at -0:44:30 until 1972: its day changed at 00:44:30 UTC, inside a minute.
    expect(todayIn("Africa/Monrovia", at("1971-06-01T00:44:10Z"))).toBe("1971-05-31");
    expect(todayIn("Africa/Monrovia", at("1971-06-01T00:44:50Z"))).toBe("1971-06-01");
    // Within one minute, one zone's date is another's: each zone keeps its own.
    const now = at("2026-11-26T03:30:00Z");
    expect([todayIn("UTC", now), todayIn("America/Los_Angeles", now), todayIn("UTC", now)]).toEqual([
      "2026-11-26",
      "2026-11-25",
      "2026-11-26",
    ]);
  });

  it("falls back to UTC for an unknown zone", () => {
    expect(todayIn("Mars/Olympus_Mons", at("2025-03-01T03:30:00Z"))).toBe("2025-03-01");
  });
});

describe("resolvePeriod", () => {
  const now = at("2025-03-15T12:00:00Z");

  it("computes every period inclusive of both ends (UTC)", () => {
    expect(resolvePeriod("this_month", "UTC", now)).toEqual({ start: "2025-03-01", end: "2025-03-15" });
    expect(resolvePeriod("last_month", "UTC", now)).toEqual({ start: "2025-02-01", end: "2025-02-28" });
    expect(resolvePeriod("last_7_days", "UTC", now)).toEqual({ start: "2025-03-09", end: "2025-03-15" });
    expect(resolvePeriod("last_30_days", "UTC", now)).toEqual({ start: "2025-02-14", end: "2025-03-15" });
    expect(resolvePeriod("last_90_days", "UTC", now)).toEqual({ start: "2024-12-16", end: "2025-03-15" });
    expect(resolvePeriod("year_to_date", "UTC", now)).toEqual({ start: "2025-01-01", end: "2025-03-15" });
    expect(resolvePeriod("last_12_months", "UTC", now)).toEqual({ start: "2024-03-16", end: "2025-03-15" });
    expect(resolvePeriod("last_year", "UTC", now)).toEqual({ start: "2024-01-01", end: "2024-12-31" });
  });

  it("counts exactly N days for last_N_days", () => {
    for (const [period, n] of [
      ["last_7_days", 7],
      ["last_30_days", 30],
      ["last_90_days", 90],
    ] as const) {
      const r = resolvePeriod(period, "UTC", now);
      const days = (Date.parse(r.end) - Date.parse(r.start)) / 86_400_000 + 1;
      expect(days).toBe(n);
    }
  });

  it("uses the user's timezone at a month boundary", () => {
    // 1 April 02:00 UTC is still 31 March in New York: this_month is March there, April in UTC.
    const boundary = at("2025-04-01T02:00:00Z");
    expect(resolvePeriod("this_month", "America/New_York", boundary)).toEqual({
      start: "2025-03-01",
      end: "2025-03-31",
    });
    expect(resolvePeriod("last_month", "America/New_York", boundary)).toEqual({
      start: "2025-02-01",
      end: "2025-02-28",
    });
    expect(resolvePeriod("this_month", "UTC", boundary)).toEqual({ start: "2025-04-01", end: "2025-04-01" });
    expect(resolvePeriod("last_month", "UTC", boundary)).toEqual({ start: "2025-03-01", end: "2025-03-31" });
    // New Year in Tokyo while it is still 31 December in UTC.
    const newYear = at("2024-12-31T16:00:00Z");
    expect(resolvePeriod("year_to_date", "Asia/Tokyo", newYear)).toEqual({
      start: "2025-01-01",
      end: "2025-01-01",
    });
    expect(resolvePeriod("last_year", "Asia/Tokyo", newYear)).toEqual({
      start: "2024-01-01",
      end: "2024-12-31",
    });
    expect(resolvePeriod("last_year", "UTC", newYear)).toEqual({ start: "2023-01-01", end: "2023-12-31" });
  });

  it("first and last day of a month, hour by hour, in Auckland, Los Angeles and UTC (computed from fixed offsets)", () => {
    // November 2026: Auckland is on daylight time (UTC+13), Los Angeles on standard time (UTC−8).
    const offsets = { "Pacific/Auckland": 13, "America/Los_Angeles": -8, UTC: 0 } as const;
    const iso = (d: Date) => d.toISOString().slice(0, 10);
    for (let hour = 0; hour < 72; hour++) {
      const now = new Date(Date.UTC(2026, 10, 29, hour));
      for (const [zone, offset] of Object.entries(offsets)) {
        const local = new Date(now.getTime() + offset * 3_600_000);
        const [y, m] = [local.getUTCFullYear(), local.getUTCMonth()];
        const label = `${zone} at ${now.toISOString()}`;
        expect(resolvePeriod("this_month", zone, now), label).toEqual({
          start: iso(new Date(Date.UTC(y, m, 1))),
          end: iso(local),
        });
        expect(resolvePeriod("last_month", zone, now), label).toEqual({
          start: iso(new Date(Date.UTC(y, m - 1, 1))),
          end: iso(new Date(Date.UTC(y, m, 0))),
        });
      }
    }
  });

  it("handles leap years and short months", () => {
    expect(resolvePeriod("last_month", "UTC", at("2024-03-10T00:00:00Z"))).toEqual({
      start: "2024-02-01",
      end: "2024-02-29",
    });
    expect(resolvePeriod("last_month", "UTC", at("2025-01-05T00:00:00Z"))).toEqual({
      start: "2024-12-01",
      end: "2024-12-31",
    });
    expect(resolvePeriod("last_12_months", "UTC", at("2024-02-29T00:00:00Z"))).toEqual({
      start: "2023-03-01",
      end: "2024-02-29",
    });
    expect(addMonths("2025-03-31", -1)).toBe("2025-02-28");
    expect(addMonths("2024-01-31", 1)).toBe("2024-02-29");
  });

  it("knows all eight periods", () => {
    expect(PERIODS).toHaveLength(8);
    for (const p of PERIODS) {
      const r = resolvePeriod(p, "Europe/Berlin", now);
      expect(r.start <= r.end).toBe(true);
    }
  });
});

describe("previousRange", () => {
  it("compares month-to-date with the same days of last month", () => {
    expect(previousRange({ start: "2025-03-01", end: "2025-03-31" }, "this_month")).toEqual({
      start: "2025-02-01",
      end: "2025-02-28",
    });
    expect(previousRange({ start: "2025-03-01", end: "2025-03-15" }, "this_month")).toEqual({
      start: "2025-02-01",
      end: "2025-02-15",
    });
  });

  it("shifts whole months by whole months and other ranges by their length", () => {
    expect(previousRange({ start: "2025-02-01", end: "2025-02-28" }, "last_month")).toEqual({
      start: "2025-01-01",
      end: "2025-01-31",
    });
    expect(previousRange({ start: "2025-01-01", end: "2025-03-31" })).toEqual({
      start: "2024-10-01",
      end: "2024-12-31",
    });
    expect(previousRange({ start: "2025-03-09", end: "2025-03-15" }, "last_7_days")).toEqual({
      start: "2025-03-02",
      end: "2025-03-08",
    });
    expect(previousRange({ start: "2025-01-01", end: "2025-03-15" }, "year_to_date")).toEqual({
      start: "2024-01-01",
      end: "2024-03-15",
    });
  });
});

describe("isIsoDate", () => {
  it("validates calendar dates", () => {
    expect(isIsoDate("2025-02-28")).toBe(true);
    expect(isIsoDate("2025-02-30")).toBe(false);
    expect(isIsoDate("2025-2-3")).toBe(false);
    expect(isIsoDate("yesterday")).toBe(false);
    expect(isIsoDate("2024-02-29")).toBe(true);
    expect(isIsoDate("2023-02-29")).toBe(false);
    expect(isIsoDate("2025-13-01")).toBe(false);
    expect(isIsoDate("2025-00-10")).toBe(false);
    expect(isIsoDate("2025-04-31")).toBe(false);
    // Years below 100 are years, not 1900 + the year.
    expect(isIsoDate("0050-01-01")).toBe(true);
  });
});

describe("addDays and addMonths", () => {
  it("agree with the ISO dates of Date's own arithmetic over four centuries", () => {
    const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const start = Date.UTC(1850, 0, 1);
    for (let days = 0; days < 146_100; days += 37) {
      const date = iso(start + days * 86_400_000);
      expect(addDays(date, 400)).toBe(iso(start + (days + 400) * 86_400_000));
      expect(addDays(date, -1)).toBe(iso(start + (days - 1) * 86_400_000));
    }
    expect(addMonths("2024-03-31", -1)).toBe("2024-02-29");
    expect(addMonths("2100-03-31", -1)).toBe("2100-02-28");
    expect(addMonths("0099-12-15", 1)).toBe("0100-01-15");
    expect(addMonths("2025-01-31", 13)).toBe("2026-02-28");
    expect(addMonths("2025-01-31", -25)).toBe("2022-12-31");
    expect(["1900-02-10", "2000-02-10", "2100-02-01", "2024-12-31"].map(endOfMonth)).toEqual([
      "1900-02-28",
      "2000-02-29",
      "2100-02-28",
      "2024-12-31",
    ]);
  });
});

describe("monthsToDate", () => {
  it("counts the current month to date as one", () => {
    expect(monthsToDate("2025-03-15", 1)).toEqual({ start: "2025-03-01", end: "2025-03-15" });
    expect(monthsToDate("2025-03-15", 6)).toEqual({ start: "2024-10-01", end: "2025-03-15" });
  });
});

describe("spanOf", () => {
  it("spans ranges given in any order, with gaps or overlaps", () => {
    const current = { start: "2025-11-02", end: "2026-11-01" };
    const previous = { start: "2024-11-02", end: "2025-11-01" };
    expect(spanOf([current, previous])).toEqual({ start: "2024-11-02", end: "2026-11-01" });
    expect(
      spanOf([
        { start: "2025-01-10", end: "2025-01-20" },
        { start: "2025-01-15", end: "2025-01-18" },
      ]),
    ).toEqual({
      start: "2025-01-10",
      end: "2025-01-20",
    });
    expect(spanOf([current])).toEqual(current);
  });
});

describe("datesUntil", () => {
  it("lists every day up to the end, across a leap day and a DST change, as addDays steps", () => {
    const stepped: string[] = [];
    for (let d = "2024-02-27"; d < "2024-11-04"; d = addDays(d, 1)) stepped.push(d);
    expect(datesUntil("2024-02-27", "2024-11-04")).toEqual(stepped);
    expect(stepped).toContain("2024-02-29");
    expect(datesUntil("2024-03-01", "2024-03-01")).toEqual([]);
    expect(datesUntil("2024-12-31", "2025-01-02")).toEqual(["2024-12-31", "2025-01-01"]);
  });

  it("counts every month's length over centuries (1900 and 2100 have no leap day, 2000 has)", () => {
    const stepped: string[] = [];
    for (let d = "1899-12-30"; d < "2101-03-02"; d = addDays(d, 1)) stepped.push(d);
    expect(datesUntil("1899-12-30", "2101-03-02")).toEqual(stepped);
    expect(stepped).toContain("2000-02-29");
    expect(stepped).not.toContain("1900-02-29");
    expect(stepped).not.toContain("2100-02-29");
  });
});
