/**
 * The provider registry: which BankProvider serves a connection's `provider` column.
 * The Plaid helper adds its factory to `factories` below (one line); nothing else changes.
 */
import type { Database } from "@/db";
import { AppError } from "@/lib/errors";
import { PlaidProvider } from "./plaid/provider";
import type { BankProvider, ProviderKind } from "./provider";
import { createSandboxProvider } from "./sandbox/provider";

type ProviderFactory = (db: Database) => BankProvider;

const factories: Partial<Record<ProviderKind, ProviderFactory>> = {
  sandbox: (db) => createSandboxProvider(db),
  // Calls fail with a ProviderError naming the settings when PLAID_CLIENT_ID/PLAID_SECRET are unset.
  plaid: () => new PlaidProvider(),
};

const overrides = new Map<ProviderKind, BankProvider>();

/** The provider for `kind`; throws `unavailable` when it is not configured. */
export function getProvider(kind: ProviderKind, db: Database): BankProvider {
  const override = overrides.get(kind);
  if (override) return override;
  const factory = factories[kind];
  if (!factory) throw new AppError("unavailable", `The ${kind} bank provider is not configured.`);
  return factory(db);
}

/** Tests: serve `kind` with a given provider (undefined restores the real one). */
export function setProviderForTesting(kind: ProviderKind, provider: BankProvider | undefined): void {
  if (provider) overrides.set(kind, provider);
  else overrides.delete(kind);
}
