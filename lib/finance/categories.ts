/**
 * Our category vocabulary: a small fixed list every provider maps into, so tools and totals never
 * see a provider's own taxonomy.
 *
 * Each category has a `kind` that decides how its amounts count (amounts are signed: negative =
 * money out of the account):
 * - `income`: income = the SUM of the signed amounts (a payroll reversal reduces income);
 * - `spending`: spending = MINUS the sum of the signed amounts, so a refund (a positive amount in
 *   the category it refunds) reduces spending there and is never income;
 * - `transfer`: neither income nor spending.
 *
 * Independently of the category, a transaction flagged `isTransfer` (a movement between two of
 * the user's own accounts, including a credit-card payment, both legs) is neither income nor
 * spending. Totals must exclude `isTransfer` rows first, then apply the kind rule.
 */
export type CategoryKind = "income" | "spending" | "transfer";

export const CATEGORIES = {
  income: { label: "Income", kind: "income" },
  interest_earned: { label: "Interest earned", kind: "income" },
  other_income: { label: "Other income", kind: "income" },
  transfer: { label: "Transfer", kind: "transfer" },
  credit_card_payment: { label: "Credit card payment", kind: "transfer" },
  housing: { label: "Rent & housing", kind: "spending" },
  utilities: { label: "Utilities", kind: "spending" },
  groceries: { label: "Groceries", kind: "spending" },
  restaurants: { label: "Restaurants & bars", kind: "spending" },
  shopping: { label: "Shopping", kind: "spending" },
  transportation: { label: "Transportation", kind: "spending" },
  travel: { label: "Travel", kind: "spending" },
  entertainment: { label: "Entertainment", kind: "spending" },
  subscriptions: { label: "Subscriptions", kind: "spending" },
  healthcare: { label: "Healthcare", kind: "spending" },
  personal_care: { label: "Personal care", kind: "spending" },
  education: { label: "Education", kind: "spending" },
  insurance: { label: "Insurance", kind: "spending" },
  fees: { label: "Bank fees", kind: "spending" },
  interest_charged: { label: "Interest charged", kind: "spending" },
  loan_payments: { label: "Loan payments", kind: "spending" },
  taxes: { label: "Taxes", kind: "spending" },
  gifts_and_donations: { label: "Gifts & donations", kind: "spending" },
  other: { label: "Other", kind: "spending" },
} as const satisfies Record<string, { label: string; kind: CategoryKind }>;

export type CategoryId = keyof typeof CATEGORIES;

/** Every category id, in display order. */
export const CATEGORY_IDS = Object.keys(CATEGORIES) as [CategoryId, ...CategoryId[]];

export function isCategoryId(value: string): value is CategoryId {
  return Object.hasOwn(CATEGORIES, value);
}

/** Human label, e.g. `restaurants` → "Restaurants & bars"; unknown ids are returned as given. */
export function categoryLabel(id: string): string {
  return isCategoryId(id) ? CATEGORIES[id].label : id;
}

/** How amounts in the category count; unknown ids count as spending (like `other`). */
export function categoryKind(id: string): CategoryKind {
  return isCategoryId(id) ? CATEGORIES[id].kind : "spending";
}

/** Category ids of one kind (for SQL `IN (…)` filters). */
export function categoriesOfKind(kind: CategoryKind): CategoryId[] {
  return CATEGORY_IDS.filter((id) => CATEGORIES[id].kind === kind);
}

/**
 * Maps Plaid's personal finance category (primary + detailed) to ours.
 * Taxonomy: https://plaid.com/documents/transactions-personal-finance-category-taxonomy.csv
 * Returns the category and whether Plaid considers it a movement of the user's own money
 * (TRANSFER_IN / TRANSFER_OUT / credit-card payments), which the caller uses for `isTransfer`.
 */
export function categoryFromPlaid(
  primary: string | null | undefined,
  detailed?: string | null,
): { category: CategoryId; isTransfer: boolean } {
  const d = (detailed ?? "").toUpperCase();
  switch ((primary ?? "").toUpperCase()) {
    case "INCOME":
      if (d === "INCOME_INTEREST_EARNED") return { category: "interest_earned", isTransfer: false };
      if (d === "INCOME_WAGES") return { category: "income", isTransfer: false };
      return { category: d === "INCOME_DIVIDENDS" ? "other_income" : "income", isTransfer: false };
    case "TRANSFER_IN":
    case "TRANSFER_OUT":
      return { category: "transfer", isTransfer: true };
    case "LOAN_PAYMENTS":
      if (d === "LOAN_PAYMENTS_CREDIT_CARD_PAYMENT")
        return { category: "credit_card_payment", isTransfer: true };
      if (d === "LOAN_PAYMENTS_MORTGAGE_PAYMENT") return { category: "housing", isTransfer: false };
      return { category: "loan_payments", isTransfer: false };
    case "BANK_FEES":
      if (d === "BANK_FEES_INTEREST_CHARGE") return { category: "interest_charged", isTransfer: false };
      return { category: "fees", isTransfer: false };
    case "FOOD_AND_DRINK":
      return { category: d === "FOOD_AND_DRINK_GROCERIES" ? "groceries" : "restaurants", isTransfer: false };
    case "RENT_AND_UTILITIES":
      return { category: d === "RENT_AND_UTILITIES_RENT" ? "housing" : "utilities", isTransfer: false };
    case "HOME_IMPROVEMENT":
      return { category: "housing", isTransfer: false };
    case "GENERAL_MERCHANDISE":
      return { category: "shopping", isTransfer: false };
    case "ENTERTAINMENT":
      return {
        category:
          d === "ENTERTAINMENT_TV_AND_MOVIES" || d === "ENTERTAINMENT_MUSIC_AND_AUDIO"
            ? "subscriptions"
            : "entertainment",
        isTransfer: false,
      };
    case "TRANSPORTATION":
      return { category: "transportation", isTransfer: false };
    case "TRAVEL":
      return { category: "travel", isTransfer: false };
    case "MEDICAL":
      return { category: "healthcare", isTransfer: false };
    case "PERSONAL_CARE":
      return { category: "personal_care", isTransfer: false };
    case "GENERAL_SERVICES":
      if (d === "GENERAL_SERVICES_INSURANCE") return { category: "insurance", isTransfer: false };
      if (d === "GENERAL_SERVICES_EDUCATION") return { category: "education", isTransfer: false };
      return { category: "other", isTransfer: false };
    case "GOVERNMENT_AND_NON_PROFIT":
      if (d === "GOVERNMENT_AND_NON_PROFIT_DONATIONS")
        return { category: "gifts_and_donations", isTransfer: false };
      if (d === "GOVERNMENT_AND_NON_PROFIT_TAX_PAYMENT") return { category: "taxes", isTransfer: false };
      return { category: "other", isTransfer: false };
    default:
      return { category: "other", isTransfer: false };
  }
}
