/** Small helpers the sync stages share: days as ISO dates, chunked writes, upsert SET lists. */
import { sql } from "drizzle-orm";
import type { Database } from "@/db";

/** A write transaction of the sync (db.transaction's callback argument). */
export type Tx = Parameters<Parameters<Database["transaction"]>[0]>[0];

/** How far back a first sync fills the balance history (24 months). */
export const HISTORY_DAYS = 730;
/** Rows per insert statement. */
const CHUNK = 1_000;

export const isoDay = (date: Date) => date.toISOString().slice(0, 10);
export const addDays = (iso: string, days: number) =>
  isoDay(new Date(Date.parse(`${iso}T00:00:00Z`) + days * 86_400_000));

export function chunks<T>(items: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** `SET col = excluded.col` for an upsert (drizzle maps camelCase keys to snake_case columns). */
export function excludedSet(keys: readonly string[]) {
  return Object.fromEntries(
    keys.map((key) => [key, sql.raw(`excluded.${key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`)]),
  );
}
