/**
 * The person's timezone: which IANA zones we accept, and saving one. Periods ("this_month"),
 * `as_of` dates and the dashboard's times are read in it (lib/finance/periods.ts).
 */
import { and, eq, isNull } from "drizzle-orm";
import type { Database } from "@/db";
import { users } from "@/db/schema";

/** The zones a person can pick: the runtime's IANA list, with UTC. */
export function timezones(): string[] {
  const zones = Intl.supportedValuesOf("timeZone");
  return zones.includes("UTC") ? zones : ["UTC", ...zones];
}

/** True for a zone the runtime knows by that exact name (case as in the IANA database). */
export function isTimezone(zone: string): boolean {
  if (zone === "UTC") return true;
  try {
    return new Intl.DateTimeFormat("en", { timeZone: zone }).resolvedOptions().timeZone === zone;
  } catch {
    return false;
  }
}

/** Sets the user's zone (from Settings). */
export async function setTimezone(
  db: Database,
  userId: string,
  zone: string,
  now = new Date(),
): Promise<void> {
  await db.update(users).set({ timezone: zone, timezoneSetAt: now }).where(eq(users.id, userId));
}

/**
 * The browser's zone at first sign-in: taken only while the user has never set one, so a later
 * visit from another zone (travel) changes nothing. True when it was taken.
 */
export async function adoptBrowserTimezone(
  db: Database,
  userId: string,
  zone: string,
  now = new Date(),
): Promise<boolean> {
  const taken = await db
    .update(users)
    .set({ timezone: zone, timezoneSetAt: now })
    .where(and(eq(users.id, userId), isNull(users.timezoneSetAt)))
    .returning({ id: users.id });
  return taken.length > 0;
}

/** The user's zone and whether it was ever set. */
export async function getTimezone(db: Database, userId: string): Promise<{ zone: string; set: boolean }> {
  const [row] = await db
    .select({ zone: users.timezone, setAt: users.timezoneSetAt })
    .from(users)
    .where(eq(users.id, userId))
    .limit(1);
  return { zone: row?.zone ?? "UTC", set: Boolean(row?.setAt) };
}
