/**
 * Stage 1, fetch: everything a sync needs from the provider, read before anything is written —
 * every /transactions/sync page from the stored cursor, the accounts, holdings, investment
 * transactions, liabilities and recurring streams, and (for the days the balance history lacks)
 * the provider's balance history when it has one.
 *
 * Products the bank does not serve (investments, liabilities, recurring streams: ProviderError
 * `product_not_supported`) are not failures: the sync goes on without them and records one
 * warning per product in `Fetched.warnings`, which the write stores on the connection
 * (`bank_connections.warnings`, replaced by every successful sync), where the Banks page and
 * get_connection_status show it. Any other provider error ends the sync (index.ts records it).
 */
import type { ConnectionWarning } from "@/db/schema";
import { AppError } from "@/lib/errors";
import {
  type BankProvider,
  isProviderError,
  type ProviderAccount,
  type ProviderBalancePoint,
  type ProviderContext,
  type ProviderHolding,
  type ProviderInvestmentTransaction,
  type ProviderLiability,
  type ProviderRecurringStream,
  type ProviderSecurity,
  type ProviderTransaction,
  type RemovedTransaction,
} from "../provider";
import { addDays, HISTORY_DAYS, isoDay } from "./util";

/** More /transactions/sync pages than this is a provider loop, not a history. */
const MAX_PAGES = 10_000;

type OptionalProduct = ConnectionWarning["product"];

const PRODUCT_TEXT: Record<OptionalProduct, string> = {
  investments: "Investments (holdings and trades)",
  liabilities: "Debt details (APRs, minimum payments, due dates)",
  recurring: "Recurring payments (subscriptions, bills, income streams)",
};

/** The warning recorded when the provider does not serve `product` for this item. */
function productWarning(product: OptionalProduct, providerCode: string | undefined): ConnectionWarning {
  // PRODUCT_NOT_READY (Plaid is still preparing the data) clears by itself on a later sync.
  const why =
    providerCode === "PRODUCT_NOT_READY"
      ? "are not ready yet at this bank; the next sync tries again"
      : "are not available from this bank";
  return {
    code: "PRODUCT_NOT_SUPPORTED",
    product,
    message: `${PRODUCT_TEXT[product]} ${why}.`,
    ...(providerCode ? { providerCode } : {}),
  };
}

/**
 * Calls a provider product, turning `product_not_supported` into null plus a warning in
 * `warnings` (one per product).
 */
async function optionalProduct<T>(
  product: OptionalProduct,
  warnings: ConnectionWarning[],
  call: () => Promise<T>,
): Promise<T | null> {
  try {
    return await call();
  } catch (error) {
    if (isProviderError(error) && error.code === "product_not_supported") {
      if (!warnings.some((w) => w.product === product)) {
        warnings.push(productWarning(product, error.providerCode));
      }
      return null;
    }
    throw error;
  }
}

export interface Fetched {
  accounts: ProviderAccount[];
  added: ProviderTransaction[];
  modified: ProviderTransaction[];
  removed: RemovedTransaction[];
  cursor: string;
  investments: { holdings: ProviderHolding[]; securities: ProviderSecurity[] } | null;
  investmentTransactions: {
    investmentTransactions: ProviderInvestmentTransaction[];
    securities: ProviderSecurity[];
  } | null;
  liabilities: ProviderLiability[] | null;
  streams: ProviderRecurringStream[] | null;
  warnings: ConnectionWarning[];
}

/** Reads everything but the balance history from the provider, from `startCursor` on. */
export async function fetchFromProvider(
  provider: BankProvider,
  accessToken: string,
  startCursor: string | null,
  ctx: ProviderContext,
): Promise<Fetched> {
  const accounts = await provider.getAccounts(accessToken, ctx);
  const added: ProviderTransaction[] = [];
  const modified: ProviderTransaction[] = [];
  const removed: RemovedTransaction[] = [];
  let cursor = startCursor;
  for (let page = 0; ; page++) {
    if (page >= MAX_PAGES)
      throw new AppError("internal", "The provider kept returning more transaction pages.");
    const result = await provider.syncTransactions(accessToken, cursor, ctx);
    added.push(...result.added);
    modified.push(...result.modified);
    removed.push(...result.removed);
    cursor = result.nextCursor;
    if (!result.hasMore) break;
  }
  const today = isoDay(ctx.now);
  const warnings: ConnectionWarning[] = [];
  const investments = await optionalProduct("investments", warnings, () =>
    provider.getHoldings(accessToken, ctx),
  );
  const investmentTxns = investments
    ? await optionalProduct("investments", warnings, () =>
        provider.getInvestmentTransactions(
          accessToken,
          { startDate: addDays(today, -HISTORY_DAYS), endDate: today },
          ctx,
        ),
      )
    : null;
  const liabilityRows = await optionalProduct("liabilities", warnings, () =>
    provider.getLiabilities(accessToken, ctx),
  );
  const streams = await optionalProduct("recurring", warnings, () =>
    provider.getRecurringStreams(accessToken, ctx),
  );
  return {
    accounts,
    added,
    modified,
    removed,
    cursor: cursor ?? "",
    investments,
    investmentTransactions: investmentTxns,
    liabilities: liabilityRows,
    streams,
    warnings,
  };
}

/**
 * The provider's daily balances from `earliest` to yesterday, for the days the history lacks;
 * null when the provider has no balance history (derived.ts then derives what it can).
 */
export async function fetchBalanceHistory(
  provider: BankProvider,
  accessToken: string,
  earliest: string | null,
  ctx: ProviderContext,
): Promise<ProviderBalancePoint[] | null> {
  if (!earliest || !provider.getBalanceHistory) return null;
  return provider.getBalanceHistory(
    accessToken,
    { startDate: earliest, endDate: addDays(isoDay(ctx.now), -1) },
    ctx,
  );
}
