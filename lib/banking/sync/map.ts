/**
 * Stage 2, map: provider records → our rows. Pure functions, no database: each takes what the
 * provider said plus the ids the write has resolved (our account id for a provider account id,
 * our security id for a provider security id) and returns the row to upsert. Amounts stay in
 * minor units as the provider layer gives them (lib/banking/provider.ts).
 */
import type {
  bankAccounts,
  holdings,
  investmentTransactions,
  liabilities,
  recurringStreams,
  securities,
  transactions,
} from "@/db/schema";
import type {
  ProviderAccount,
  ProviderHolding,
  ProviderInvestmentTransaction,
  ProviderLiability,
  ProviderRecurringStream,
  ProviderSecurity,
  ProviderTransaction,
  RemovedTransaction,
} from "../provider";

export function accountRow(
  userId: string,
  connectionId: string,
  a: ProviderAccount,
  now: Date,
): typeof bankAccounts.$inferInsert {
  return {
    userId,
    connectionId,
    providerAccountId: a.providerAccountId,
    name: a.name,
    officialName: a.officialName,
    mask: a.mask,
    type: a.type,
    subtype: a.subtype,
    currency: a.currency,
    currentBalanceMinor: a.currentBalanceMinor,
    availableBalanceMinor: a.availableBalanceMinor,
    limitMinor: a.limitMinor,
    isClosed: false,
    balanceAsOf: now,
  };
}

export function transactionRow(
  userId: string,
  accountId: string,
  t: ProviderTransaction,
  now: Date,
): typeof transactions.$inferInsert {
  return {
    userId,
    accountId,
    providerTransactionId: t.providerTransactionId,
    pendingTransactionId: t.pendingTransactionId,
    date: t.date,
    authorizedDate: t.authorizedDate,
    name: t.name,
    merchantName: t.merchantName,
    amountMinor: t.amountMinor,
    currency: t.currency,
    // The provider's values; the trigger of migration 0021 puts the person's over them.
    category: t.category,
    providerCategory: t.category,
    pending: t.pending,
    isTransfer: t.isTransfer,
    providerIsTransfer: t.isTransfer,
    paymentChannel: t.paymentChannel,
    updatedAt: now,
  };
}

/**
 * The transactions to delete, as (provider account id, provider transaction id): those the
 * provider removed, and each pending one its posted transaction replaces (by
 * `pendingTransactionId`, even when the provider forgot to list it as removed), so a purchase is
 * counted once.
 */
export function transactionsToDelete(
  removed: readonly RemovedTransaction[],
  added: readonly ProviderTransaction[],
): Array<[providerAccountId: string, providerTransactionId: string]> {
  const out: Array<[string, string]> = removed.map((r) => [r.providerAccountId, r.providerTransactionId]);
  for (const t of added) {
    if (!t.pending && t.pendingTransactionId) out.push([t.providerAccountId, t.pendingTransactionId]);
  }
  return out;
}

/**
 * Every security the holdings and the investment transactions mention, once: the holdings'
 * description wins (it is the current one).
 */
export function securitiesOf(
  holdingSecurities: readonly ProviderSecurity[] | undefined,
  transactionSecurities: readonly ProviderSecurity[] | undefined,
): ProviderSecurity[] {
  const all = new Map<string, ProviderSecurity>();
  for (const s of holdingSecurities ?? []) all.set(s.providerSecurityId, s);
  for (const s of transactionSecurities ?? []) {
    if (!all.has(s.providerSecurityId)) all.set(s.providerSecurityId, s);
  }
  return [...all.values()];
}

export function securityRow(connectionId: string, s: ProviderSecurity): typeof securities.$inferInsert {
  return {
    connectionId,
    providerSecurityId: s.providerSecurityId,
    name: s.name,
    tickerSymbol: s.tickerSymbol,
    type: s.type,
    closePrice: s.closePrice,
    closePriceAsOf: s.closePriceAsOf,
    currency: s.currency,
  };
}

export function holdingRow(
  userId: string,
  accountId: string,
  securityId: string,
  h: ProviderHolding,
  now: Date,
): typeof holdings.$inferInsert {
  return {
    userId,
    accountId,
    securityId,
    quantity: h.quantity,
    price: h.price,
    valueMinor: h.valueMinor,
    costBasisMinor: h.costBasisMinor,
    currency: h.currency,
    asOf: now,
  };
}

export function investmentTransactionRow(
  userId: string,
  accountId: string,
  securityId: string | null,
  t: ProviderInvestmentTransaction,
): typeof investmentTransactions.$inferInsert {
  return {
    userId,
    accountId,
    securityId,
    providerInvestmentTransactionId: t.providerInvestmentTransactionId,
    date: t.date,
    name: t.name,
    type: t.type,
    subtype: t.subtype,
    quantity: t.quantity,
    price: t.price,
    amountMinor: t.amountMinor,
    feesMinor: t.feesMinor,
    currency: t.currency,
  };
}

export function liabilityRow(
  userId: string,
  accountId: string,
  l: ProviderLiability,
): typeof liabilities.$inferInsert {
  return {
    accountId,
    userId,
    kind: l.kind,
    aprPercentage: l.aprPercentage,
    minimumPaymentMinor: l.minimumPaymentMinor,
    nextPaymentDueDate: l.nextPaymentDueDate,
    lastPaymentDate: l.lastPaymentDate,
    lastPaymentAmountMinor: l.lastPaymentAmountMinor,
    lastStatementBalanceMinor: l.lastStatementBalanceMinor,
    isOverdue: l.isOverdue,
    originationPrincipalMinor: l.originationPrincipalMinor,
    maturityDate: l.maturityDate,
    details: l.details,
  };
}

export function streamRow(
  userId: string,
  connectionId: string,
  accountId: string,
  s: ProviderRecurringStream,
): typeof recurringStreams.$inferInsert {
  return {
    userId,
    connectionId,
    accountId,
    providerStreamId: s.providerStreamId,
    direction: s.direction,
    merchantName: s.merchantName,
    description: s.description,
    category: s.category,
    providerCategory: s.category,
    frequency: s.frequency,
    averageAmountMinor: s.averageAmountMinor,
    lastAmountMinor: s.lastAmountMinor,
    firstDate: s.firstDate,
    lastDate: s.lastDate,
    predictedNextDate: s.predictedNextDate,
    isActive: s.isActive,
    transactionIds: s.transactionIds,
  };
}
