/**
 * The two files of an export, written as they are read: the JSON file of every section
 * (lib/export/sections.ts) and the transactions as CSV. Each is an async sequence of text chunks,
 * one per page of rows, so a consumer that stops pulling stops the reading too; what is held at
 * any moment is a page, whatever the size of the history.
 */
import { and, eq } from "drizzle-orm";
import type { Database } from "@/db";
import { bankAccounts, bankConnections, transactions } from "@/db/schema";
import { minorUnits } from "@/lib/finance/currency";
import { EXPORT_SECTIONS, type ExportPage, type ExportSection, keysetSection } from "./sections";

/** Rows read per statement: a page of transactions is about 300 KB of JSON. */
export const EXPORT_PAGE_ROWS = 1_000;

/** The file format's version, written in the file: raise it when a field changes meaning. */
export const EXPORT_FORMAT_VERSION = 1;

/**
 * Every page of one section, in order. The next page is asked for as soon as a page arrives, so
 * the database reads it while this one is written out (two pages at most are held).
 */
async function* pagesOf<T>(
  db: Database,
  userId: string,
  section: ExportSection<T>,
  limit: number,
): AsyncGenerator<T[]> {
  let pending: Promise<ExportPage<T>> | null = section.page(db, userId, null, limit);
  try {
    while (pending) {
      const page: ExportPage<T> = await pending;
      pending = page.next ? section.page(db, userId, page.next, limit) : null;
      if (page.rows.length > 0) yield page.rows;
    }
  } finally {
    // Stopped early (the download was cancelled): the page read ahead is not wanted.
    pending?.catch(() => undefined);
  }
}

/**
 * Everything Ledgerlink holds about the person as one JSON object: a header (format, version,
 * when, conventions), then each section under its name, a list with one row per line (the
 * profile and the subscription are objects, or null).
 */
export async function* exportJson(
  db: Database,
  userId: string,
  options: { now?: Date; sections?: ExportSection[]; pageRows?: number } = {},
): AsyncGenerator<string> {
  const now = options.now ?? new Date();
  const pageRows = options.pageRows ?? EXPORT_PAGE_ROWS;
  yield `{"format":"ledgerlink-export","version":${EXPORT_FORMAT_VERSION},"exported_at":${JSON.stringify(now)},"conventions":${JSON.stringify(CONVENTIONS)}`;
  for (const section of options.sections ?? EXPORT_SECTIONS) {
    const name = JSON.stringify(section.name);
    if (section.single) {
      const { rows } = await section.page(db, userId, null, 1);
      yield `,\n${name}:${JSON.stringify(rows[0] ?? null)}`;
      continue;
    }
    yield `,\n${name}:[`;
    let first = true;
    for await (const rows of pagesOf(db, userId, section, pageRows)) {
      const lines = rows.map((row) => JSON.stringify(row)).join(",\n");
      yield `${first ? "\n" : ",\n"}${lines}`;
      first = false;
    }
    yield first ? "]" : "\n]";
  }
  yield "\n}\n";
}

const CONVENTIONS =
  "Amounts are decimals in the currency beside them (money out of an account is negative; debts are positive amounts owed). Dates are YYYY-MM-DD; times are ISO 8601 in UTC. Ids link the sections: account_id to accounts, bank_id to banks. Secrets are never exported: no key, token, key hash or bank access token.";

/** The CSV's columns, in order. */
export const CSV_COLUMNS = [
  "Date",
  "Description",
  "Merchant",
  "Amount",
  "Currency",
  "Category",
  "Account",
  "Bank",
  "Pending",
  "Transfer",
  "Transaction ID",
  "Account ID",
] as const;

/**
 * The transactions as CSV (RFC 4180: comma-separated, CRLF line ends, a field quoted when it holds
 * a comma, a quote or a line break, quotes doubled), oldest first, one row per transaction with its
 * account's name and bank.
 *
 * It starts with a UTF-8 byte order mark: Excel reads a CSV without one in the system's legacy code
 * page, so "Café" and "€" arrive garbled, and the mark is what tells it UTF-8 (LibreOffice, Numbers
 * and Google Sheets read the file either way, and skip the mark). A program reading the file as
 * plain UTF-8 may see the mark as the first header's first character (Python: open it as
 * `utf-8-sig`).
 *
 * Amounts are exact decimals of the minor units in the account's currency ("-12.34", JPY "-1234",
 * KWD "-1.234"), the currency in its own column; dates are ISO (YYYY-MM-DD); Pending and Transfer
 * are TRUE or FALSE, which spreadsheets read as booleans. A text cell starting
 * with = + - @, a tab or a carriage return gets a leading apostrophe (OWASP, CSV injection): a
 * spreadsheet would otherwise run it as a formula, and a bank description or a payment memo is
 * written by whoever sent the money. Amounts are our own numbers and never get one.
 */
export async function* exportTransactionsCsv(
  db: Database,
  userId: string,
  options: { pageRows?: number } = {},
): AsyncGenerator<string> {
  yield `\uFEFF${CSV_COLUMNS.join(",")}\r\n`;
  for await (const rows of pagesOf(db, userId, CSV_ROWS, options.pageRows ?? EXPORT_PAGE_ROWS)) {
    yield rows.join("");
  }
}

/** The transactions' rows of the CSV, read in the JSON section's order (date, then id). */
const CSV_ROWS = keysetSection({
  name: "transactions.csv",
  key: [transactions.date, transactions.id],
  read: (db, userId, page) =>
    db
      .select({
        id: transactions.id,
        date: transactions.date,
        name: transactions.name,
        merchantName: transactions.merchantName,
        amountMinor: transactions.amountMinor,
        currency: transactions.currency,
        category: transactions.category,
        pending: transactions.pending,
        isTransfer: transactions.isTransfer,
        accountId: transactions.accountId,
        accountName: bankAccounts.name,
        bankName: bankConnections.institutionName,
        pageKey: page.pageKey,
      })
      .from(transactions)
      .innerJoin(bankAccounts, eq(bankAccounts.id, transactions.accountId))
      .innerJoin(bankConnections, eq(bankConnections.id, bankAccounts.connectionId))
      .where(and(eq(transactions.userId, userId), page.after))
      .orderBy(...page.order)
      .limit(page.limit),
  write: (r) =>
    `${[
      r.date,
      csvText(r.name),
      csvText(r.merchantName),
      decimalText(r.amountMinor, r.currency),
      csvText(r.currency),
      csvText(r.category),
      csvText(r.accountName),
      csvText(r.bankName),
      r.pending ? "TRUE" : "FALSE",
      r.isTransfer ? "TRUE" : "FALSE",
      csvText(r.id),
      csvText(r.accountId),
    ].join(",")}\r\n`,
});

/** What a spreadsheet would read as the start of a formula (OWASP: = + - @, tab, carriage return). */
const FORMULA_START = /^[=+\-@\t\r]/;
/** What makes a field need quotes (RFC 4180 §2.6). */
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * A text cell of the CSV: a leading formula character defused with an apostrophe (and the cell
 * quoted, as OWASP advises), quotes doubled and the cell quoted when RFC 4180 needs it.
 */
export function csvText(value: string | null): string {
  if (value === null || value === "") return "";
  if (FORMULA_START.test(value)) return `"'${value.replaceAll('"', '""')}"`;
  return NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** Integer minor units of `currency` as exact decimal text: USD -1234 → "-12.34", JPY → "-1234". */
export function decimalText(minor: number, currency: string): string {
  const exponent = minorUnits(currency);
  const sign = minor < 0 ? "-" : "";
  const digits = String(Math.abs(minor)).padStart(exponent + 1, "0");
  if (exponent === 0) return `${sign}${digits}`;
  return `${sign}${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
}
