/**
 * Plaid's shapes → ours (lib/banking/provider.ts). Pure functions, no I/O, so the numbers can be
 * checked against fixtures in Plaid's wire format.
 *
 * Signs (https://plaid.com/docs/api/products/transactions/#transactions-sync-response-added-amount):
 * - Plaid transaction `amount` is positive when money LEAVES the account; ours is negative → negate.
 * - Plaid investment transaction `amount` is positive for cash out (a buy) → negate.
 * - Plaid balances of credit and loan accounts are already positive amounts owed
 *   (https://plaid.com/docs/api/accounts/#accounts-get-response-accounts-balances-current) → keep.
 * - Recurring stream amounts follow the transaction sign; we keep magnitudes and a direction.
 *
 * Amounts are decimals in the currency Plaid names beside them (`iso_currency_code`, or
 * `unofficial_currency_code` for e.g. crypto) and become integer minor units of THAT currency
 * (lib/finance/currency.ts: JPY 1234 → 1234, KWD 1.234 → 1234, USD 12.34 → 1234). Liabilities
 * carry no code of their own and take their account's.
 *
 * Categories come from `personal_finance_category` (primary, detailed) via categoryFromPlaid;
 * TRANSFER_IN / TRANSFER_OUT / LOAN_PAYMENTS_CREDIT_CARD_PAYMENT are movements of the user's own
 * money and are flagged `isTransfer`.
 */
import type { AccountType } from "@/db/schema";
import { categoryFromPlaid } from "@/lib/finance/categories";
import { toMinorUnits } from "@/lib/finance/currency";
import type {
  ProviderAccount,
  ProviderHolding,
  ProviderInvestmentTransaction,
  ProviderLiability,
  ProviderRecurringStream,
  ProviderSecurity,
  ProviderTransaction,
  RecurringFrequency,
} from "../provider";

/** Plaid's sign flipped to ours (money out negative), without producing -0. */
export function negatedMinor(amount: number, currency: string): number {
  const minor = toMinorUnits(amount, currency);
  return minor === 0 ? 0 : -minor;
}

export function toMinorOrNull(amount: number | null | undefined, currency: string): number | null {
  return amount === null || amount === undefined ? null : toMinorUnits(amount, currency);
}

/** An exact decimal string for numeric(24, 8) columns (never exponent notation). */
export function toDecimalString(value: number): string {
  const fixed = value.toFixed(8);
  return fixed.includes(".") ? fixed.replace(/0+$/, "").replace(/\.$/, "") : fixed;
}

/** The currency of an amount-bearing Plaid object; Plaid sends one of the two codes (USD when neither). */
export const currencyOf = (t: {
  iso_currency_code?: string | null;
  unofficial_currency_code?: string | null;
}) => t.iso_currency_code ?? t.unofficial_currency_code ?? "USD";

// ───────────────────────────── the Plaid shapes we read ─────────────────────────────
// Structural subsets of the SDK's types (which have many more required fields), so fixtures
// stay readable and the SDK's responses fit them.

export interface PlaidAccountLike {
  account_id: string;
  name: string;
  official_name?: string | null;
  mask?: string | null;
  type: string;
  subtype?: string | null;
  balances: {
    current?: number | null;
    available?: number | null;
    limit?: number | null;
    iso_currency_code?: string | null;
    unofficial_currency_code?: string | null;
  };
}

export interface PlaidTransactionLike {
  transaction_id: string;
  account_id: string;
  amount: number;
  iso_currency_code?: string | null;
  unofficial_currency_code?: string | null;
  date: string;
  authorized_date?: string | null;
  name?: string | null;
  original_description?: string | null;
  merchant_name?: string | null;
  pending: boolean;
  pending_transaction_id?: string | null;
  payment_channel?: string | null;
  personal_finance_category?: { primary: string; detailed: string } | null;
}

export interface PlaidSecurityLike {
  security_id: string;
  name?: string | null;
  ticker_symbol?: string | null;
  type?: string | null;
  close_price?: number | null;
  close_price_as_of?: string | null;
  iso_currency_code?: string | null;
  unofficial_currency_code?: string | null;
}

export interface PlaidHoldingLike {
  account_id: string;
  security_id: string;
  quantity: number;
  institution_price: number;
  institution_value: number;
  cost_basis?: number | null;
  iso_currency_code?: string | null;
  unofficial_currency_code?: string | null;
}

export interface PlaidInvestmentTransactionLike {
  investment_transaction_id: string;
  account_id: string;
  security_id?: string | null;
  date: string;
  name: string;
  quantity: number;
  amount: number;
  price: number;
  fees?: number | null;
  type: string;
  subtype: string;
  iso_currency_code?: string | null;
  unofficial_currency_code?: string | null;
}

export interface PlaidRecurringStreamLike {
  account_id: string;
  stream_id: string;
  description: string;
  merchant_name?: string | null;
  first_date: string;
  last_date: string;
  predicted_next_date?: string | null;
  frequency: string;
  transaction_ids: string[];
  average_amount: {
    amount?: number | null;
    iso_currency_code?: string | null;
    unofficial_currency_code?: string | null;
  };
  last_amount: {
    amount?: number | null;
    iso_currency_code?: string | null;
    unofficial_currency_code?: string | null;
  };
  is_active: boolean;
  status?: string;
  personal_finance_category?: { primary: string; detailed: string } | null;
}

type Loose = Record<string, unknown>;

export interface PlaidLiabilitiesLike {
  credit?: Array<Loose & { account_id?: string | null }> | null;
  mortgage?: Array<Loose & { account_id: string }> | null;
  student?: Array<Loose & { account_id?: string | null }> | null;
}

// ───────────────────────────── mappers ─────────────────────────────

const ACCOUNT_TYPES: ReadonlySet<string> = new Set<AccountType>([
  "depository",
  "credit",
  "loan",
  "investment",
]);

export function mapAccount(a: PlaidAccountLike): ProviderAccount {
  const type = (ACCOUNT_TYPES.has(a.type) ? a.type : "other") as AccountType;
  // Plaid's `brokerage` type is an investment account under another name.
  const resolved: AccountType = a.type === "brokerage" ? "investment" : type;
  const currency = currencyOf(a.balances);
  return {
    providerAccountId: a.account_id,
    name: a.name,
    officialName: a.official_name ?? null,
    mask: a.mask ?? null,
    type: resolved,
    subtype: a.subtype ?? null,
    currency,
    currentBalanceMinor: toMinorOrNull(a.balances.current, currency),
    availableBalanceMinor: toMinorOrNull(a.balances.available, currency),
    limitMinor: toMinorOrNull(a.balances.limit, currency),
  };
}

export function mapTransaction(t: PlaidTransactionLike): ProviderTransaction {
  const pfc = t.personal_finance_category;
  const { category, isTransfer } = categoryFromPlaid(pfc?.primary, pfc?.detailed);
  const currency = currencyOf(t);
  return {
    providerTransactionId: t.transaction_id,
    providerAccountId: t.account_id,
    pendingTransactionId: t.pending_transaction_id ?? null,
    date: t.date,
    authorizedDate: t.authorized_date ?? null,
    name: t.name ?? t.original_description ?? t.merchant_name ?? "Transaction",
    merchantName: t.merchant_name ?? null,
    amountMinor: negatedMinor(t.amount, currency),
    currency,
    category,
    pending: t.pending,
    isTransfer,
    paymentChannel: t.payment_channel ?? null,
  };
}

const SECURITY_TYPES = new Set([
  "equity",
  "etf",
  "mutual fund",
  "fixed income",
  "cash",
  "cryptocurrency",
  "derivative",
]);

export function mapSecurity(s: PlaidSecurityLike): ProviderSecurity {
  return {
    providerSecurityId: s.security_id,
    name: s.name ?? s.ticker_symbol ?? "Security",
    tickerSymbol: s.ticker_symbol ?? null,
    type: s.type && SECURITY_TYPES.has(s.type) ? s.type : "other",
    closePrice: s.close_price === null || s.close_price === undefined ? null : toDecimalString(s.close_price),
    closePriceAsOf: s.close_price_as_of ?? null,
    currency: currencyOf(s),
  };
}

export function mapHolding(h: PlaidHoldingLike): ProviderHolding {
  const currency = currencyOf(h);
  return {
    providerAccountId: h.account_id,
    providerSecurityId: h.security_id,
    quantity: toDecimalString(h.quantity),
    price: toDecimalString(h.institution_price),
    valueMinor: toMinorUnits(h.institution_value, currency),
    costBasisMinor: toMinorOrNull(h.cost_basis, currency),
    currency,
  };
}

const DIVIDEND_SUBTYPES = new Set([
  "dividend",
  "qualified dividend",
  "non-qualified dividend",
  "long-term capital gain",
  "short-term capital gain",
]);

/** Plaid (type, subtype) → ours: buy, sell, dividend, interest, fee, contribution, transfer, cash, other. */
export function investmentType(type: string, subtype: string): string {
  if (DIVIDEND_SUBTYPES.has(subtype)) return "dividend";
  if (subtype === "interest") return "interest";
  if (subtype === "contribution" || subtype === "deposit") return "contribution";
  if (type === "buy" || type === "sell" || type === "fee" || type === "transfer" || type === "cash")
    return type;
  return "other";
}

export function mapInvestmentTransaction(t: PlaidInvestmentTransactionLike): ProviderInvestmentTransaction {
  const currency = currencyOf(t);
  return {
    providerInvestmentTransactionId: t.investment_transaction_id,
    providerAccountId: t.account_id,
    providerSecurityId: t.security_id ?? null,
    date: t.date,
    name: t.name,
    type: investmentType(t.type, t.subtype),
    subtype: t.subtype,
    quantity: toDecimalString(t.quantity),
    price: toDecimalString(t.price),
    amountMinor: negatedMinor(t.amount, currency),
    feesMinor: toMinorOrNull(t.fees, currency),
    currency,
  };
}

const FREQUENCIES: Record<string, RecurringFrequency> = {
  WEEKLY: "weekly",
  BIWEEKLY: "biweekly",
  SEMI_MONTHLY: "semi_monthly",
  MONTHLY: "monthly",
  ANNUALLY: "annually",
};

/** A recurring stream, or null when Plaid cannot tell its frequency (UNKNOWN). */
export function mapRecurringStream(
  s: PlaidRecurringStreamLike,
  direction: "inflow" | "outflow",
): ProviderRecurringStream | null {
  const frequency = FREQUENCIES[s.frequency];
  if (!frequency) return null;
  const pfc = s.personal_finance_category;
  const currency = currencyOf(s.average_amount);
  return {
    providerStreamId: s.stream_id,
    providerAccountId: s.account_id,
    direction,
    merchantName: s.merchant_name || s.description,
    description: s.description || null,
    category: categoryFromPlaid(pfc?.primary, pfc?.detailed).category,
    frequency,
    averageAmountMinor: Math.abs(toMinorUnits(s.average_amount.amount ?? 0, currency)),
    lastAmountMinor: Math.abs(toMinorUnits(s.last_amount.amount ?? 0, currency)),
    firstDate: s.first_date,
    lastDate: s.last_date,
    predictedNextDate: s.predicted_next_date ?? null,
    isActive: s.is_active && s.status !== "TOMBSTONED",
    transactionIds: s.transaction_ids,
  };
}

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);
const pick = (o: Loose, keys: string[]) => {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (o[k] !== undefined && o[k] !== null) out[k] = o[k];
  return Object.keys(out).length > 0 ? out : null;
};

/**
 * `/liabilities/get` → one row per liability account (credit cards, student loans, mortgages).
 * `currencyOfAccount` gives each account's currency (the response's `accounts`), since the
 * liability amounts carry none.
 */
export function mapLiabilities(
  l: PlaidLiabilitiesLike,
  currencyOfAccount: (accountId: string) => string,
): ProviderLiability[] {
  const out: ProviderLiability[] = [];
  for (const c of l.credit ?? []) {
    if (!c.account_id) continue;
    const currency = currencyOfAccount(c.account_id);
    const minor = (v: unknown) => toMinorOrNull(num(v), currency);
    const aprs = Array.isArray(c.aprs) ? (c.aprs as Loose[]) : [];
    const purchase = aprs.find((a) => a.apr_type === "purchase_apr") ?? aprs[0];
    const apr = purchase ? num(purchase.apr_percentage) : null;
    out.push({
      providerAccountId: c.account_id,
      kind: "credit",
      aprPercentage: apr === null ? null : toDecimalString(apr),
      minimumPaymentMinor: minor(c.minimum_payment_amount),
      nextPaymentDueDate: str(c.next_payment_due_date),
      lastPaymentDate: str(c.last_payment_date),
      lastPaymentAmountMinor: minor(c.last_payment_amount),
      lastStatementBalanceMinor: minor(c.last_statement_balance),
      isOverdue: c.is_overdue === true,
      originationPrincipalMinor: null,
      maturityDate: null,
      // The statement date decides whether the bill is paid (lib/finance/liabilities.ts), so it is
      // kept even when the card reports no APRs.
      details:
        aprs.length > 0 || c.last_statement_issue_date
          ? { aprs, last_statement_issue_date: c.last_statement_issue_date ?? null }
          : null,
    });
  }
  for (const s of l.student ?? []) {
    if (!s.account_id) continue;
    const currency = currencyOfAccount(s.account_id);
    const minor = (v: unknown) => toMinorOrNull(num(v), currency);
    const rate = num(s.interest_rate_percentage);
    out.push({
      providerAccountId: s.account_id,
      kind: "student",
      aprPercentage: rate === null ? null : toDecimalString(rate),
      minimumPaymentMinor: minor(s.minimum_payment_amount),
      nextPaymentDueDate: str(s.next_payment_due_date),
      lastPaymentDate: str(s.last_payment_date),
      lastPaymentAmountMinor: minor(s.last_payment_amount),
      lastStatementBalanceMinor: minor(s.last_statement_balance),
      isOverdue: s.is_overdue === true,
      originationPrincipalMinor: minor(s.origination_principal_amount),
      maturityDate: str(s.expected_payoff_date),
      details: pick(s, [
        "loan_name",
        "servicer_address",
        "repayment_plan",
        "loan_status",
        "ytd_interest_paid",
      ]),
    });
  }
  for (const m of l.mortgage ?? []) {
    const currency = currencyOfAccount(m.account_id);
    const minor = (v: unknown) => toMinorOrNull(num(v), currency);
    const rate = m.interest_rate as Loose | undefined;
    const pct = rate ? num(rate.percentage) : null;
    const pastDue = num(m.past_due_amount);
    out.push({
      providerAccountId: m.account_id,
      kind: "mortgage",
      aprPercentage: pct === null ? null : toDecimalString(pct),
      minimumPaymentMinor: minor(m.next_monthly_payment),
      nextPaymentDueDate: str(m.next_payment_due_date),
      lastPaymentDate: str(m.last_payment_date),
      lastPaymentAmountMinor: minor(m.last_payment_amount),
      lastStatementBalanceMinor: null,
      isOverdue: pastDue !== null && pastDue > 0,
      originationPrincipalMinor: minor(m.origination_principal_amount),
      maturityDate: str(m.maturity_date),
      details: pick(m, [
        "loan_type_description",
        "loan_term",
        "escrow_balance",
        "property_address",
        "interest_rate",
      ]),
    });
  }
  return out;
}
