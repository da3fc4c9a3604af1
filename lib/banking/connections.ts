/**
 * Bank-connection service functions for the dashboard, the seed and the cron route. Every one
 * is scoped by `userId`: a connection id of another user is `not_found`. Bank data itself is
 * written only by the sync engine (lib/banking/sync/).
 */
import { and, desc, eq } from "drizzle-orm";
import type { Database } from "@/db";
import { type BankConnection, bankConnections } from "@/db/schema";
import { decryptSecret, encryptSecret } from "@/lib/crypto";
import { getEnv } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { type LinkToken, ProviderError, type ProviderInstitution, type ProviderKind } from "./provider";
import { getProvider } from "./registry";
import { createSandboxPublicToken } from "./sandbox/provider";
import { listSandboxInstitutions as listInstitutions } from "./sandbox/world";
import { accessTokenAad, type SyncSummary, syncConnection } from "./sync";

export { getProvider, setProviderForTesting } from "./registry";
export { type SyncSummary, syncConnection } from "./sync";

/** The sandbox institutions offered in the connect screen. */
export function listSandboxInstitutions(): ProviderInstitution[] {
  return listInstitutions();
}

/** The user's connections, newest first (never the token). */
export async function listConnections(db: Database, userId: string) {
  return db
    .select({
      id: bankConnections.id,
      provider: bankConnections.provider,
      institutionId: bankConnections.institutionId,
      institutionName: bankConnections.institutionName,
      status: bankConnections.status,
      lastSyncedAt: bankConnections.lastSyncedAt,
      lastSyncAttemptAt: bankConnections.lastSyncAttemptAt,
      lastErrorCode: bankConnections.lastErrorCode,
      lastErrorMessage: bankConnections.lastErrorMessage,
      warnings: bankConnections.warnings,
      createdAt: bankConnections.createdAt,
    })
    .from(bankConnections)
    .where(eq(bankConnections.userId, userId))
    .orderBy(desc(bankConnections.createdAt));
}

/** The user's connection `connectionId`; throws `not_found` otherwise. */
export async function requireConnection(
  db: Database,
  userId: string,
  connectionId: string,
): Promise<BankConnection> {
  const [row] = await db
    .select()
    .from(bankConnections)
    .where(and(eq(bankConnections.id, connectionId), eq(bankConnections.userId, userId)))
    .limit(1);
  if (!row) throw new AppError("not_found", "No such bank connection.");
  return row;
}

function accessTokenOf(connection: BankConnection): string {
  return decryptSecret(
    connection.accessTokenCiphertext,
    connection.accessTokenKeyVersion,
    accessTokenAad(connection.provider, connection.providerItemId),
  );
}

function rethrowAsAppError(error: unknown): never {
  if (error instanceof ProviderError) {
    const code =
      error.code === "reauth_required"
        ? "reauth_required"
        : error.code === "rate_limited"
          ? "rate_limited"
          : "provider_error";
    throw new AppError(code, error.message, { providerCode: error.providerCode, requestId: error.requestId });
  }
  throw error;
}

export interface LinkResult {
  connection: BankConnection;
  sync: SyncSummary;
}

/**
 * Links a bank: exchanges the public token (for the sandbox, one is made for `institutionId`
 * when none is given), stores the access token encrypted, inserts the connection and runs the
 * first sync. `seed` (sandbox only) picks the synthetic data; by default the user id, so all of
 * a user's sandbox banks describe the same person.
 */
export async function linkConnection(
  db: Database,
  input: {
    userId: string;
    provider: ProviderKind;
    institutionId?: string;
    publicToken?: string;
    seed?: string;
    now?: Date;
  },
): Promise<LinkResult> {
  const now = input.now ?? new Date();
  const provider = getProvider(input.provider, db);
  let publicToken = input.publicToken;
  if (!publicToken) {
    if (input.provider !== "sandbox" || !input.institutionId) {
      throw new AppError("invalid_input", "A public token from the bank's connect flow is required.", {
        field: "publicToken",
      });
    }
    if (!listInstitutions({ includeHidden: true }).some((i) => i.id === input.institutionId)) {
      throw new AppError("invalid_input", `Unknown sandbox institution ${input.institutionId}.`, {
        field: "institutionId",
      });
    }
    publicToken = createSandboxPublicToken(input.institutionId, input.seed ?? input.userId);
  }
  const item = await provider.exchangePublicToken(publicToken, { now }).catch((error: unknown) => {
    // A public token lives 30 minutes and exchanges once (Plaid INVALID_PUBLIC_TOKEN): the
    // browser sent a stale or reused one, so the request is at fault (400), not the provider.
    if (error instanceof ProviderError && error.code === "invalid_token") {
      throw new AppError(
        "invalid_input",
        "The bank link has expired or was already used. Please link the bank again.",
        { field: "public_token", providerCode: error.providerCode, requestId: error.requestId },
      );
    }
    return rethrowAsAppError(error);
  });
  const encrypted = encryptSecret(item.accessToken, accessTokenAad(input.provider, item.itemId));
  const [connection] = await db
    .insert(bankConnections)
    .values({
      userId: input.userId,
      provider: input.provider,
      providerItemId: item.itemId,
      institutionId: item.institution.id,
      institutionName: item.institution.name,
      status: "healthy",
      accessTokenCiphertext: encrypted.ciphertext,
      accessTokenKeyVersion: encrypted.keyVersion,
    })
    .returning();
  if (!connection) throw new AppError("internal", "The bank connection could not be saved.");
  const sync = await syncConnection(db, connection.id, { now, provider });
  return { connection: await requireConnection(db, input.userId, connection.id), sync };
}

/** Syncs the user's connection now (the dashboard's "Sync now"); `skipped: "already_running"` while another sync of it runs. */
export async function syncNow(
  db: Database,
  userId: string,
  connectionId: string,
  options: { now?: Date } = {},
): Promise<SyncSummary> {
  await requireConnection(db, userId, connectionId);
  return syncConnection(db, connectionId, options);
}

/** A Link token for the browser; with `connectionId`, for update mode (Reconnect). */
export async function createLinkTokenFor(
  db: Database,
  userId: string,
  input: { provider: ProviderKind; connectionId?: string; now?: Date },
): Promise<LinkToken> {
  const now = input.now ?? new Date();
  if (input.connectionId) {
    const connection = await requireConnection(db, userId, input.connectionId);
    const provider = getProvider(connection.provider, db);
    return provider
      .createLinkToken({ userId, accessToken: accessTokenOf(connection) }, { now })
      .catch(rethrowAsAppError);
  }
  return getProvider(input.provider, db).createLinkToken({ userId }, { now }).catch(rethrowAsAppError);
}

/**
 * Reconnect finished (update mode): the provider confirms the item works again, the connection
 * becomes healthy and syncs. If the bank still refuses, the sync records it again.
 */
export async function reconnectConnection(
  db: Database,
  userId: string,
  connectionId: string,
  options: { now?: Date } = {},
): Promise<SyncSummary> {
  const connection = await requireConnection(db, userId, connectionId);
  const provider = getProvider(connection.provider, db);
  const now = options.now ?? new Date();
  await provider.confirmReconnect(accessTokenOf(connection), { now }).catch(rethrowAsAppError);
  await db
    .update(bankConnections)
    .set({ status: "healthy", lastErrorCode: null, lastErrorMessage: null })
    .where(and(eq(bankConnections.id, connectionId), eq(bankConnections.userId, userId)));
  return syncConnection(db, connectionId, { now, provider });
}

/** The sandbox's "force re-authorization" control: development, or a build that allows it explicitly. */
export function canForceSandboxReauth(): boolean {
  const env = getEnv();
  return env.NODE_ENV !== "production" || env.ALLOW_SANDBOX_REAUTH;
}

/**
 * Sandbox only, refused in production (NODE_ENV=production) unless ALLOW_SANDBOX_REAUTH=1 (for
 * browser tests of the production build): puts the connection's item into "login required" (like
 * Plaid's /sandbox/item/reset_login) and, unless `sync: false`, syncs at once so the
 * connection shows `reauth_required` — with all its data kept.
 */
export async function forceReauth(
  db: Database,
  userId: string,
  connectionId: string,
  options: { now?: Date; sync?: boolean } = {},
): Promise<SyncSummary | null> {
  if (!canForceSandboxReauth()) {
    throw new AppError("forbidden", "Forcing re-authorization is only available outside production.");
  }
  const connection = await requireConnection(db, userId, connectionId);
  const provider = getProvider(connection.provider, db);
  if (connection.provider !== "sandbox" || !provider.resetLogin) {
    throw new AppError("forbidden", "Only sandbox connections can be forced into re-authorization.");
  }
  const now = options.now ?? new Date();
  await provider.resetLogin(accessTokenOf(connection), { now }).catch(rethrowAsAppError);
  if (options.sync === false) return null;
  return syncConnection(db, connectionId, { now, provider });
}

/**
 * Tells the provider to forget the item (Plaid /item/remove). An item the provider no longer
 * knows is fine; a passing failure (rate limit, outage) is tried three times in all.
 */
export async function releaseAtProvider(db: Database, connection: BankConnection, now: Date): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await getProvider(connection.provider, db).removeItem(accessTokenOf(connection), { now });
      return;
    } catch (error) {
      if (error instanceof ProviderError && error.code === "invalid_token") return;
      if (!(error instanceof ProviderError && error.retryable) || attempt >= 3) rethrowAsAppError(error);
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}

/**
 * Removes the connection: tells the provider (Plaid /item/remove; an already-invalid token is
 * fine) and deletes the connection with all of that bank's data (accounts, transactions,
 * holdings … cascade).
 */
export async function removeConnection(
  db: Database,
  userId: string,
  connectionId: string,
  options: { now?: Date } = {},
) {
  const connection = await requireConnection(db, userId, connectionId);
  await releaseAtProvider(db, connection, options.now ?? new Date());
  await db
    .delete(bankConnections)
    .where(and(eq(bankConnections.id, connectionId), eq(bankConnections.userId, userId)));
}
