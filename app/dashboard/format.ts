import { cache } from "react";
import { getDb } from "@/db";
import { getTimezone } from "@/lib/timezone";

/**
 * Times on the dashboard: one format (`2026-11-25 14:05 GMT+1`), in the person's timezone
 * (Settings), so what they read matches their clock and the periods their assistant uses.
 */
export function formatDateTime(date: Date | null | undefined, timezone: string): string | null {
  if (!date) return null;
  const parts = formatterFor(timezone).formatToParts(date);
  const get = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? "";
  return `${get("year")}-${get("month")}-${get("day")} ${get("hour")}:${get("minute")} ${get("timeZoneName")}`;
}

// One formatter per zone for the process: building one is costly and a page formats many times.
const formatters = new Map<string, Intl.DateTimeFormat>();
function formatterFor(timezone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timezone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-CA", {
      timeZone: timezone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
      timeZoneName: "short",
    });
    formatters.set(timezone, formatter);
  }
  return formatter;
}

/** The signed-in person's timezone, read once per request however many components ask. */
export const timezoneOf = cache(async (userId: string) => getTimezone(await getDb(), userId));
