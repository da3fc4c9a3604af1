/**
 * Opaque keyset cursors (product.md, "Cursors"). A cursor is base64url JSON of where a page ended
 * (the last row's sort key, id last, as lib/finance returns it) and a fingerprint of the user,
 * filters and sort it belongs to, so a cursor from another query, another user or a garbled one
 * is refused as an argument error naming `cursor` instead of silently returning the wrong rows.
 */
import { createHash } from "node:crypto";
import { AppError } from "@/lib/errors";
import type { SortKey, TransactionFilter, TransactionSort } from "@/lib/finance/transactions";
import type { Page } from "./envelope";

/** What each part of a sort key must be: an id or text, a non-negative integer, an ISO date. */
type KeyPart = "string" | "number" | "date";

interface CursorPayload {
  /** The last row's sort key. */
  k: SortKey;
  /** Fingerprint of the user, filters and sort the cursor belongs to. */
  f: string;
}

/** A short, stable fingerprint of everything that decides a query's row set and order. */
export function fingerprintOf(parts: readonly unknown[]): string {
  return createHash("sha256").update(JSON.stringify(parts)).digest("base64url").slice(0, 16);
}

/** The fingerprint of a transaction search: the user, every filter (lists in any order) and the sort. */
export function searchFingerprint(userId: string, filter: TransactionFilter, sort: TransactionSort): string {
  return fingerprintOf([
    userId,
    filter.range,
    filter.query?.trim() ?? null,
    [...(filter.accountIds ?? [])].sort(),
    [...(filter.categories ?? [])].sort(),
    filter.direction,
    filter.minAbs ?? null,
    filter.maxAbs ?? null,
    filter.includePending,
    filter.excludeTransfers,
    sort,
  ]);
}

/** The key parts of each transaction sort: `[date, id]`, or `[abs amount in minor units, date, id]`. */
export function searchKeyShape(sort: TransactionSort): readonly KeyPart[] {
  return sort === "date_desc" || sort === "date_asc" ? ["date", "string"] : ["number", "date", "string"];
}

/** An opaque `page.next_cursor`: where the page ended, tied to the query by its fingerprint. */
export function encodeCursor(key: SortKey, fingerprint: string): string {
  return Buffer.from(JSON.stringify({ k: key, f: fingerprint } satisfies CursorPayload)).toString(
    "base64url",
  );
}

const fitsPart = (value: unknown, part: KeyPart) =>
  part === "number"
    ? typeof value === "number" && Number.isSafeInteger(value) && value >= 0
    : typeof value === "string" &&
      value.length <= 200 &&
      (part === "string" || (/^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value))));

/**
 * The sort key a cursor ends at, checked against the parts the query's sort expects;
 * `invalid_input` naming `cursor` when it is garbled, tampered or from another query or user.
 */
export function decodeCursor(cursor: string, fingerprint: string, shape: readonly KeyPart[]): SortKey {
  const invalid = () =>
    new AppError(
      "invalid_input",
      'Argument "cursor" is not valid for these arguments: pass the page.next_cursor returned by the previous call with the same arguments, or omit cursor to start from the first page.',
      { argument: "cursor" },
    );
  let payload: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
    payload = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw invalid();
  }
  if (typeof payload !== "object" || payload === null || !("k" in payload) || !("f" in payload))
    throw invalid();
  const { k, f } = payload as { k: unknown; f: unknown };
  if (f !== fingerprint || !Array.isArray(k) || k.length !== shape.length) throw invalid();
  if (!k.every((value, i) => fitsPart(value, shape[i] as KeyPart))) throw invalid();
  return k as SortKey;
}

/** The envelope's `page`: a cursor to where this page ended when more rows follow. */
export function pageOf(nextKey: SortKey | null, fingerprint: string, totalCount: number): Page {
  return {
    ...(nextKey !== null ? { next_cursor: encodeCursor(nextKey, fingerprint) } : {}),
    has_more: nextKey !== null,
    total_count: totalCount,
  };
}
