/**
 * Authorization codes (RFC 6749 §4.1.2): issued when the signed-in user approves a client,
 * single use, at most 10 minutes, bound to client, redirect URI, PKCE challenge, resource and
 * scope. Only the SHA-256 of a code is stored.
 */
import { and, eq, isNull } from "drizzle-orm";
import type { Database } from "@/db";
import { oauthCodes, oauthGrants } from "@/db/schema";
import { hashSecret } from "@/lib/api-keys";
import type { ValidAuthorizationRequest } from "./authorize";
import { keepClient } from "./clients";
import { CODE_TTL_SECONDS, grantExpiry } from "./config";
import { parseScope } from "./scopes";
import { generateSecret, SECRET_PREFIX } from "./secrets";

/**
 * Records the user's approval (creating the grant, or widening the user's existing live grant
 * for this client) and returns a fresh code. The client stops expiring: it has a grant now.
 * The grant reads `accountIds` (null for all accounts, already checked to be the user's): the
 * consent screen's choice, which replaces the one of an earlier approval.
 */
export async function issueAuthorizationCode(
  db: Database,
  userId: string,
  request: ValidAuthorizationRequest,
  accountIds: string[] | null,
): Promise<string> {
  const code = generateSecret(SECRET_PREFIX.code);
  const clientId = request.client.clientId;
  await db.transaction(async (tx) => {
    const [existing] = await tx
      .select({ id: oauthGrants.id, scope: oauthGrants.scope })
      .from(oauthGrants)
      .where(
        and(
          eq(oauthGrants.userId, userId),
          eq(oauthGrants.clientId, clientId),
          eq(oauthGrants.resource, request.resource),
          isNull(oauthGrants.revokedAt),
        ),
      )
      .limit(1);
    let grantId: string;
    // Approving (again) starts the grant's year afresh.
    const expiresAt = grantExpiry(new Date());
    if (existing) {
      grantId = existing.id;
      const scope = [...new Set([...parseScope(existing.scope), ...parseScope(request.scope)])].join(" ");
      await tx
        .update(oauthGrants)
        .set({ scope, expiresAt, accountIds })
        .where(and(eq(oauthGrants.id, grantId), eq(oauthGrants.userId, userId)));
    } else {
      const [grant] = await tx
        .insert(oauthGrants)
        .values({ userId, clientId, scope: request.scope, resource: request.resource, expiresAt, accountIds })
        .returning({ id: oauthGrants.id });
      if (!grant) throw new Error("grant not saved");
      grantId = grant.id;
    }
    await keepClient(tx, clientId);
    await tx.insert(oauthCodes).values({
      codeHash: hashSecret(code),
      grantId,
      clientId,
      userId,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      resource: request.resource,
      scope: request.scope,
      expiresAt: new Date(Date.now() + CODE_TTL_SECONDS * 1000),
    });
  });
  return code;
}
