/**
 * What people read on the dashboard instead of provider vocabulary: account kinds in their own
 * words, a sync failure as a sentence with what to do, counts with separators.
 */

const SUBTYPES: Record<string, string> = {
  checking: "Checking",
  savings: "Savings",
  "money market": "Money market",
  cd: "Certificate of deposit",
  "credit card": "Credit card",
  mortgage: "Mortgage",
  student: "Student loan",
  auto: "Auto loan",
  "401k": "401(k)",
  "403b": "403(b)",
  ira: "IRA",
  roth: "Roth IRA",
  brokerage: "Brokerage",
  hsa: "Health savings",
};

const TYPES: Record<string, string> = {
  depository: "Cash account",
  credit: "Credit card",
  loan: "Loan",
  investment: "Investments",
};

/** "Checking", "Credit card", "Roth IRA" … from the provider's type and subtype. */
export function accountKind(type: string, subtype: string | null): string {
  return (subtype && SUBTYPES[subtype.toLowerCase()]) || TYPES[type] || "Account";
}

const SYNC_FAILURES: Record<string, string> = {
  rate_limited: "The bank asked us to slow down. We will sync again shortly; nothing to do.",
  institution_down: "The bank's service is not answering right now. We will try again automatically.",
  product_not_supported: "This bank does not offer some of the data Ledgerlink reads; the rest is synced.",
  invalid_token: "The bank no longer accepts this connection. Remove it and link the bank again.",
  provider_error: "The last sync did not complete. We will try again automatically, or use Sync now.",
};

/** A sync failure in a sentence with what to do, from our error code (never the provider's text). */
export function syncFailure(code: string | null): string {
  return (code && SYNC_FAILURES[code]) || SYNC_FAILURES.provider_error!;
}

/** 1308 → "1,308". */
export function count(n: number): string {
  return new Intl.NumberFormat("en-US").format(n);
}
