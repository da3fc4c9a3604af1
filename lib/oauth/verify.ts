/**
 * Verifies an OAuth access token presented at /api/mcp; lib/mcp/auth.ts calls it for bearer
 * tokens that are not `llk_` API keys. Returns null for anything that is not a live access token
 * issued for `resource` (RFC 8707 audience, RFC 9068 §4): unknown, expired, revoked, a refresh
 * token, or a token whose grant the user revoked. Records the grant's last use at most once a
 * minute.
 */
import { and, eq, isNull, lt, or } from "drizzle-orm";
import type { Database } from "@/db";
import { oauthGrants, oauthTokens } from "@/db/schema";
import { hashSecret } from "@/lib/api-keys";
import { parseScope } from "./scopes";
import { looksLike, SECRET_PREFIX } from "./secrets";

export interface VerifiedAccessToken {
  userId: string;
  clientId: string;
  grantId: string;
  scopes: string[];
  expiresAt: Date;
}

const LAST_USED_RESOLUTION_MS = 60_000;

/** The token's owner, client, grant and scopes when it is a live access token for `resource`; else null. */
export async function verifyAccessToken(
  db: Database,
  token: string,
  resource: string,
): Promise<VerifiedAccessToken | null> {
  if (!looksLike(SECRET_PREFIX.accessToken, token)) return null;
  const [row] = await db
    .select({
      userId: oauthTokens.userId,
      clientId: oauthTokens.clientId,
      grantId: oauthTokens.grantId,
      resource: oauthTokens.resource,
      scope: oauthTokens.scope,
      expiresAt: oauthTokens.expiresAt,
      revokedAt: oauthTokens.revokedAt,
      grantRevokedAt: oauthGrants.revokedAt,
      grantExpiresAt: oauthGrants.expiresAt,
      lastUsedAt: oauthGrants.lastUsedAt,
    })
    .from(oauthTokens)
    .innerJoin(
      oauthGrants,
      and(eq(oauthGrants.id, oauthTokens.grantId), eq(oauthGrants.userId, oauthTokens.userId)),
    )
    .where(and(eq(oauthTokens.tokenHash, hashSecret(token)), eq(oauthTokens.kind, "access")))
    .limit(1);
  const now = new Date();
  if (!row || row.revokedAt || row.grantRevokedAt || row.resource !== resource) return null;
  if (row.expiresAt.getTime() <= now.getTime() || row.grantExpiresAt.getTime() <= now.getTime()) return null;
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
    const stale = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
    await db
      .update(oauthGrants)
      .set({ lastUsedAt: now })
      .where(
        and(
          eq(oauthGrants.id, row.grantId),
          eq(oauthGrants.userId, row.userId),
          or(isNull(oauthGrants.lastUsedAt), lt(oauthGrants.lastUsedAt, stale)),
        ),
      );
  }
  return {
    userId: row.userId,
    clientId: row.clientId,
    grantId: row.grantId,
    scopes: parseScope(row.scope),
    expiresAt: row.expiresAt,
  };
}
