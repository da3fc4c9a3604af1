/**
 * The token endpoint's grants and token lifecycle (RFC 6749 §4.1.3, §6; OAuth 2.1; RFC 9700 §4.14):
 * - authorization_code with PKCE: a code is redeemed once; a second attempt fails and revokes
 *   every token descended from it;
 * - refresh_token: rotates on every use. The winner is decided by one conditional UPDATE …
 *   WHERE used_at IS NULL RETURNING, so two racing refreshes have exactly one winner; any
 *   later presentation of a used refresh token is reuse and revokes the whole grant;
 * - tokens are opaque; only their SHA-256 is stored.
 */
import { and, desc, eq, gt, isNull, or, type SQL, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { type OAuthClient, oauthClients, oauthCodes, oauthGrants, oauthTokens } from "@/db/schema";
import { hashSecret } from "@/lib/api-keys";
import { GRANT_MAX_AGE_DAYS, getOAuthConfig, grantExpiry } from "./config";
import { OAuthError } from "./errors";
import { checkPkce } from "./pkce";
import { parseScope } from "./scopes";
import { generateSecret, looksLike, SECRET_PREFIX } from "./secrets";

/** RFC 6749 §5.1 successful token response. */
export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token?: string;
  scope: string;
}

interface TokenFamily {
  grantId: string;
  clientId: string;
  userId: string;
  resource: string;
  scope: string;
  codeHash: string | null;
}

async function issueTokens(
  tx: Database,
  family: TokenFamily,
  withRefresh: boolean,
  now: Date,
): Promise<TokenResponse> {
  const config = getOAuthConfig();
  const accessToken = generateSecret(SECRET_PREFIX.accessToken);
  const refreshToken = withRefresh ? generateSecret(SECRET_PREFIX.refreshToken) : undefined;
  const rows: (typeof oauthTokens.$inferInsert)[] = [
    {
      ...family,
      tokenHash: hashSecret(accessToken),
      kind: "access",
      expiresAt: new Date(now.getTime() + config.accessTokenTtlSeconds * 1000),
    },
  ];
  if (refreshToken) {
    rows.push({
      ...family,
      tokenHash: hashSecret(refreshToken),
      kind: "refresh",
      expiresAt: new Date(now.getTime() + config.refreshTokenTtlSeconds * 1000),
    });
  }
  await tx.insert(oauthTokens).values(rows);
  return {
    access_token: accessToken,
    token_type: "Bearer",
    expires_in: config.accessTokenTtlSeconds,
    ...(refreshToken ? { refresh_token: refreshToken } : {}),
    scope: family.scope,
  };
}

/** Ends every token descended from one authorization code (code replay, RFC 6749 §4.1.2). */
async function revokeCodeFamily(db: Database, codeHash: string): Promise<void> {
  await db
    .update(oauthTokens)
    .set({ revokedAt: new Date() })
    .where(and(eq(oauthTokens.codeHash, codeHash), isNull(oauthTokens.revokedAt)));
}

/** Ends a grant and every token in it (refresh reuse, revocation, "Connected apps" → Revoke). */
export async function revokeGrant(db: Database, grantId: string, userId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const now = new Date();
    const ended = await tx
      .update(oauthGrants)
      .set({ revokedAt: now })
      .where(and(eq(oauthGrants.id, grantId), eq(oauthGrants.userId, userId), isNull(oauthGrants.revokedAt)))
      .returning({ id: oauthGrants.id });
    await tx
      .update(oauthTokens)
      .set({ revokedAt: now })
      .where(
        and(eq(oauthTokens.grantId, grantId), eq(oauthTokens.userId, userId), isNull(oauthTokens.revokedAt)),
      );
    return ended.length > 0;
  });
}

function allowsRefresh(client: OAuthClient): boolean {
  return client.grantTypes.includes("refresh_token");
}

/**
 * grant_type=authorization_code. Everything is checked before the code is consumed, so a
 * request with a wrong verifier cannot burn a stolen code's legitimate redemption.
 */
export async function exchangeAuthorizationCode(
  db: Database,
  client: OAuthClient,
  form: URLSearchParams,
): Promise<TokenResponse> {
  const code = form.get("code");
  if (!code) throw new OAuthError("invalid_request", "code is required.");
  const redirectUri = form.get("redirect_uri");
  const verifier = form.get("code_verifier") ?? undefined;
  const resource = form.get("resource");
  if (!looksLike(SECRET_PREFIX.code, code)) throw new OAuthError("invalid_grant", "The code is invalid.");
  const codeHash = hashSecret(code);
  const [row] = await db.select().from(oauthCodes).where(eq(oauthCodes.codeHash, codeHash)).limit(1);
  if (!row) throw new OAuthError("invalid_grant", "The code is invalid.");
  if (row.consumedAt) {
    await revokeCodeFamily(db, codeHash);
    throw new OAuthError("invalid_grant", "The code was already used; tokens issued for it are revoked.");
  }
  if (row.expiresAt.getTime() <= Date.now()) throw new OAuthError("invalid_grant", "The code has expired.");
  if (row.clientId !== client.clientId)
    throw new OAuthError("invalid_grant", "The code was issued to another client.");
  if (redirectUri !== row.redirectUri) {
    throw new OAuthError("invalid_grant", "redirect_uri does not match the authorization request.");
  }
  if (resource !== null && resource !== row.resource) {
    throw new OAuthError("invalid_target", "resource does not match the authorization request.");
  }
  switch (checkPkce(row.codeChallenge, verifier)) {
    case "ok":
      break;
    case "missing_verifier":
      throw new OAuthError("invalid_grant", "code_verifier is required.");
    case "unexpected_verifier":
      throw new OAuthError(
        "invalid_grant",
        "code_verifier was sent but the authorization request had no code_challenge.",
      );
    case "mismatch":
      throw new OAuthError("invalid_grant", "code_verifier does not match the code_challenge.");
  }

  const now = new Date();
  const result = await db.transaction(async (tx) => {
    const [consumed] = await tx
      .update(oauthCodes)
      .set({ consumedAt: now })
      .where(and(eq(oauthCodes.codeHash, codeHash), isNull(oauthCodes.consumedAt)))
      .returning();
    if (!consumed) return null;
    const [grant] = await tx
      .select({ id: oauthGrants.id })
      .from(oauthGrants)
      .where(
        and(
          eq(oauthGrants.id, consumed.grantId),
          eq(oauthGrants.userId, consumed.userId),
          isNull(oauthGrants.revokedAt),
        ),
      )
      .limit(1);
    if (!grant) return "grant_revoked" as const;
    await tx.update(oauthClients).set({ expiresAt: null }).where(eq(oauthClients.clientId, client.clientId));
    return issueTokens(
      tx,
      {
        grantId: consumed.grantId,
        clientId: consumed.clientId,
        userId: consumed.userId,
        resource: consumed.resource,
        scope: consumed.scope,
        codeHash,
      },
      allowsRefresh(client),
      now,
    );
  });
  if (result === null) {
    // Lost a race with another redemption of the same code: that is a replay too.
    await revokeCodeFamily(db, codeHash);
    throw new OAuthError("invalid_grant", "The code was already used; tokens issued for it are revoked.");
  }
  if (result === "grant_revoked") throw new OAuthError("invalid_grant", "The user revoked this app.");
  return result;
}

/** grant_type=refresh_token, with rotation and reuse detection. */
/** How long a rotated refresh token still works (security.md: retried and parallel refreshes). */
export const REFRESH_GRACE_SECONDS = 30;

export async function refreshAccessToken(
  db: Database,
  client: OAuthClient,
  form: URLSearchParams,
): Promise<TokenResponse> {
  if (!allowsRefresh(client)) {
    throw new OAuthError("unauthorized_client", "This client did not register the refresh_token grant.");
  }
  const token = form.get("refresh_token");
  if (!token) throw new OAuthError("invalid_request", "refresh_token is required.");
  if (!looksLike(SECRET_PREFIX.refreshToken, token)) {
    throw new OAuthError("invalid_grant", "The refresh token is invalid.");
  }
  const tokenHash = hashSecret(token);
  const [row] = await db
    .select()
    .from(oauthTokens)
    .where(and(eq(oauthTokens.tokenHash, tokenHash), eq(oauthTokens.kind, "refresh")))
    .limit(1);
  if (!row || row.clientId !== client.clientId)
    throw new OAuthError("invalid_grant", "The refresh token is invalid.");
  const resource = form.get("resource");
  if (resource !== null && resource !== row.resource) {
    throw new OAuthError("invalid_target", "resource does not match the grant.");
  }
  // Refresh may narrow the scope, never widen it (RFC 6749 §6).
  const granted = parseScope(row.scope);
  const requested = parseScope(form.get("scope"));
  const wider = requested.find((s) => !granted.includes(s));
  if (wider) throw new OAuthError("invalid_scope", `The scope ${wider} was not granted.`);
  const scope = requested.length > 0 ? requested.join(" ") : row.scope;

  const now = new Date();
  const graceStart = new Date(now.getTime() - REFRESH_GRACE_SECONDS * 1000);
  const result = await db.transaction(async (tx) => {
    // Unused, or rotated within the grace: a client that retries a refresh (its answer lost) or
    // refreshes twice in parallel gets a working pair of the same grant instead of a logout.
    const [rotated] = await tx
      .update(oauthTokens)
      .set({ usedAt: sql`coalesce(${oauthTokens.usedAt}, ${now})` })
      .where(
        and(
          eq(oauthTokens.id, row.id),
          or(isNull(oauthTokens.usedAt), gt(oauthTokens.usedAt, graceStart)),
          isNull(oauthTokens.revokedAt),
          gt(oauthTokens.expiresAt, now),
        ),
      )
      .returning();
    if (!rotated) return null;
    const [grant] = await tx
      .update(oauthGrants)
      .set({ lastUsedAt: now })
      .where(
        and(
          eq(oauthGrants.id, rotated.grantId),
          eq(oauthGrants.userId, rotated.userId),
          isNull(oauthGrants.revokedAt),
          gt(oauthGrants.expiresAt, now),
        ),
      )
      .returning({ id: oauthGrants.id });
    if (!grant) return "grant_ended" as const;
    return issueTokens(
      tx,
      {
        grantId: rotated.grantId,
        clientId: rotated.clientId,
        userId: rotated.userId,
        resource: rotated.resource,
        scope,
        codeHash: rotated.codeHash,
      },
      true,
      now,
    );
  });
  if (result === "grant_ended")
    throw new OAuthError(
      "invalid_grant",
      `The user revoked this app, or its access ended (a grant lasts ${GRANT_MAX_AGE_DAYS} days unless the user keeps it); sign in again.`,
    );
  if (result) return result;
  // Not rotated: re-read to tell reuse after the grace (revoke the grant, RFC 9700 §4.14.2) from
  // plain expiry or revocation.
  const [after] = await db
    .select({ usedAt: oauthTokens.usedAt, revokedAt: oauthTokens.revokedAt })
    .from(oauthTokens)
    .where(eq(oauthTokens.id, row.id))
    .limit(1);
  if (after?.usedAt) {
    await revokeGrant(db, row.grantId, row.userId);
    throw new OAuthError("invalid_grant", "The refresh token was already used; the grant is revoked.");
  }
  throw new OAuthError("invalid_grant", "The refresh token has expired or was revoked.");
}

/**
 * RFC 7009 revocation. Unknown tokens and tokens of other clients are ignored (the caller still
 * answers 200). Revoking a refresh token ends the whole grant; an access token ends alone.
 */
export async function revokeToken(db: Database, client: OAuthClient, token: string): Promise<void> {
  const isRefresh = looksLike(SECRET_PREFIX.refreshToken, token);
  if (!isRefresh && !looksLike(SECRET_PREFIX.accessToken, token)) return;
  const [row] = await db
    .select()
    .from(oauthTokens)
    .where(and(eq(oauthTokens.tokenHash, hashSecret(token)), eq(oauthTokens.clientId, client.clientId)))
    .limit(1);
  if (!row) return;
  if (row.kind === "refresh") {
    await revokeGrant(db, row.grantId, row.userId);
    return;
  }
  await db
    .update(oauthTokens)
    .set({ revokedAt: new Date() })
    .where(
      and(
        eq(oauthTokens.id, row.id),
        eq(oauthTokens.clientId, client.clientId),
        isNull(oauthTokens.revokedAt),
      ),
    );
}

export interface ConnectedApp {
  grantId: string;
  clientId: string;
  clientName: string | null;
  clientUri: string | null;
  redirectUris: string[];
  scope: string;
  approvedAt: Date;
  expiresAt: Date;
  lastUsedAt: Date | null;
  /** The accounts the app may read; null for all of them (lib/account-access.ts). */
  accountIds: string[] | null;
}

/** The user's live grants, newest first: what "Connected apps" lists. */
export async function listConnectedApps(
  db: Database,
  userId: string,
  now = new Date(),
): Promise<ConnectedApp[]> {
  return db
    .select({
      grantId: oauthGrants.id,
      clientId: oauthGrants.clientId,
      clientName: oauthClients.clientName,
      clientUri: oauthClients.clientUri,
      redirectUris: oauthClients.redirectUris,
      scope: oauthGrants.scope,
      approvedAt: oauthGrants.createdAt,
      expiresAt: oauthGrants.expiresAt,
      lastUsedAt: oauthGrants.lastUsedAt,
      accountIds: oauthGrants.accountIds,
    })
    .from(oauthGrants)
    .innerJoin(oauthClients, eq(oauthClients.clientId, oauthGrants.clientId))
    .where(and(eq(oauthGrants.userId, userId), isNull(oauthGrants.revokedAt), gt(oauthGrants.expiresAt, now)))
    .orderBy(desc(oauthGrants.createdAt));
}

/**
 * "Keep": the person wants this app to keep its access; the grant's year starts again from `now`.
 * Null when the user has no such live grant (an ended one needs a new approval from the app).
 */
export async function keepGrant(
  db: Database,
  grantId: string,
  userId: string,
  now = new Date(),
): Promise<Date | null> {
  const [kept] = await db
    .update(oauthGrants)
    .set({ expiresAt: grantExpiry(now) })
    .where(liveGrant(grantId, userId, now))
    .returning({ expiresAt: oauthGrants.expiresAt });
  return kept?.expiresAt ?? null;
}

/** Grant `grantId` of `userId`, neither revoked nor ended at `now`. */
function liveGrant(grantId: string, userId: string, now: Date): SQL | undefined {
  return and(
    eq(oauthGrants.id, grantId),
    eq(oauthGrants.userId, userId),
    isNull(oauthGrants.revokedAt),
    gt(oauthGrants.expiresAt, now),
  );
}

/**
 * Sets the accounts live grant `grantId` of `userId` may read (null for all; ids checked by
 * lib/account-access.ts). Its tokens read them from the next call on. False when the user has no
 * such live grant.
 */
export async function setGrantAccounts(
  db: Database,
  grantId: string,
  userId: string,
  accountIds: string[] | null,
  now = new Date(),
): Promise<boolean> {
  const rows = await db
    .update(oauthGrants)
    .set({ accountIds })
    .where(liveGrant(grantId, userId, now))
    .returning({ id: oauthGrants.id });
  return rows.length > 0;
}

/** Number of live tokens in a grant (tests and diagnostics). */
export async function countLiveTokens(db: Database, grantId: string, userId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(oauthTokens)
    .where(
      and(
        eq(oauthTokens.grantId, grantId),
        eq(oauthTokens.userId, userId),
        isNull(oauthTokens.revokedAt),
        gt(oauthTokens.expiresAt, new Date()),
      ),
    );
  return row?.n ?? 0;
}
