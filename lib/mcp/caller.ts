/**
 * The caller of one MCP request, from ONE SQL statement (one round trip, which matters when the
 * function and the database sit in different zones): the credential (API key, or OAuth access
 * token bound to this resource), its rate-limit count for the current minute, the subscription,
 * the bank connections and the user's timezone. The same statement records the credential's last
 * use (at most once a minute).
 *
 * The count comes from an upsert (`insert … on conflict do update … returning`): PostgreSQL
 * applies concurrent increments one after the other on the row, so a burst of parallel requests
 * with one credential never sees a stale count. A credential that is unknown, revoked, rotated,
 * expired, of another resource or of an ended grant yields no row: nothing is counted or touched.
 */
import { type SQL, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { type FixedStatement, fixedStatement, runFixed } from "@/db/fixed-statement";
import type { ConnectionStatus } from "@/db/schema";
import { type AccessState, computeAccess } from "@/lib/access";
import { hashSecret, isWellFormedApiKey, KEY_PREFIX } from "@/lib/api-keys";
import { type AccountScope, scopeColumns, scopeFromRow } from "@/lib/finance/scope";
import { parseScope } from "@/lib/oauth/scopes";
import { looksLike, SECRET_PREFIX } from "@/lib/oauth/secrets";
import { rateLimitWindow } from "@/lib/rate-limit";
import type { McpCredential } from "./credential";

/** Last use is written at most this often per credential. */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface Caller {
  credential: McpCredential;
  access: AccessState;
  /** The accounts this credential may read (lib/finance/scope.ts). */
  scope: AccountScope;
  timezone: string;
  /** Requests counted in the current one-minute window, this one included (when counted). */
  count: number;
  /** Whole seconds until the window ends (at least 1), for `Retry-After`. */
  retryAfterSeconds: number;
}

export interface LoadCallerOptions {
  /** The resource OAuth access tokens must be bound to (`${APP_URL}/api/mcp`). */
  resource: string;
  now?: Date;
  /** Requests to count against the rate limit (a batch counts each message); 0 counts nothing. */
  cost?: number;
}

const p = sql.placeholder;

/**
 * The statement for an API key or an OAuth token, counted against the limit or not: four texts,
 * each rendered once (db/fixed-statement.ts).
 */
const callerStatements = new Map<string, FixedStatement>();
function callerStatement(isKey: boolean, counted: boolean): FixedStatement {
  const key = `${isKey} ${counted}`;
  let statement = callerStatements.get(key);
  if (statement) return statement;
  const credential: SQL = isKey
    ? sql`select 'api_key' as kind, k.id as credential_id, k.user_id, null::text as client_id,
             null::text as scope, null::timestamptz as expires_at, 'api_key:' || k.id as bucket,
             k.account_ids
          from api_keys k
          where k.key_hash = ${p("hash")} and k.revoked_at is null and k.rotated_at is null`
    : sql`select 'oauth' as kind, t.grant_id as credential_id, t.user_id, t.client_id,
             t.scope, t.expires_at, 'oauth:' || t.grant_id as bucket, g.account_ids
          from oauth_tokens t
          join oauth_grants g on g.id = t.grant_id and g.user_id = t.user_id
          where t.token_hash = ${p("hash")} and t.kind = 'access' and t.resource = ${p("resource")}
            and t.revoked_at is null and g.revoked_at is null
            and t.expires_at > ${p("now")}::timestamptz
            and g.expires_at > ${p("now")}::timestamptz`;
  const touched: SQL = isKey
    ? sql`update api_keys set last_used_at = ${p("now")}::timestamptz
          where id = (select credential_id from cred)
            and (last_used_at is null or last_used_at < ${p("stale")}::timestamptz)
          returning 1`
    : sql`update oauth_grants set last_used_at = ${p("now")}::timestamptz
          where id = (select credential_id from cred) and user_id = (select user_id from cred)
            and (last_used_at is null or last_used_at < ${p("stale")}::timestamptz)
          returning 1`;
  const countedRow: SQL = counted
    ? sql`insert into rate_limits (key, window_start, count)
          select bucket, ${p("windowStart")}::timestamptz, ${p("cost")}::int from cred
          on conflict (key, window_start) do update set count = rate_limits.count + excluded.count
          returning count`
    : sql`select 0 as count where false`;
  statement = fixedStatement(
    sql`with cred as (${credential} limit 1),
      counted as (${countedRow}),
      touched as (${touched})
    select cred.kind, cred.credential_id, cred.user_id, cred.client_id, cred.scope,
      cred.expires_at::text as expires_at, u.timezone,
      (select count from counted) as count,
      ${scopeColumns(sql`cred.user_id`, sql`cred.account_ids`)},
      (select s.status from subscriptions s where s.user_id = cred.user_id) as subscription_status,
      coalesce((
        select json_agg(json_build_object(
          'id', c.id, 'institutionName', c.institution_name, 'provider', c.provider,
          'status', c.status, 'lastSyncedAt', c.last_synced_at, 'lastErrorCode', c.last_error_code,
          'accountCount', (select count(*) from bank_accounts a where a.connection_id = c.id and a.user_id = c.user_id)
        ) order by c.created_at)
        from bank_connections c where c.user_id = cred.user_id
      ), '[]'::json) as connections
    from cred join users u on u.id = cred.user_id`,
  );
  callerStatements.set(key, statement);
  return statement;
}

/** The caller for a bearer `token`, or null when it is no live credential. Throws when the database fails. */
export async function loadCaller(
  db: Database,
  token: string,
  options: LoadCallerOptions,
): Promise<Caller | null> {
  const isKey = token.startsWith(`${KEY_PREFIX}_`);
  if (isKey ? !isWellFormedApiKey(token) : !looksLike(SECRET_PREFIX.accessToken, token)) return null;
  const now = options.now ?? new Date();
  const cost = options.cost ?? 1;
  const { windowStart, retryAfterSeconds } = rateLimitWindow(now);
  const [row] = await runFixed(db, callerStatement(isKey, cost > 0), {
    hash: hashSecret(token),
    resource: options.resource,
    now: now.toISOString(),
    stale: new Date(now.getTime() - LAST_USED_RESOLUTION_MS).toISOString(),
    windowStart: windowStart.toISOString(),
    cost,
  });
  if (!row) return null;

  const userId = String(row.user_id);
  const credentialId = String(row.credential_id);
  const connections = parseJson(row.connections) as Array<{
    id: string;
    institutionName: string;
    provider: string;
    status: ConnectionStatus;
    lastSyncedAt: string | null;
    lastErrorCode: string | null;
    accountCount: number;
  }>;
  return {
    credential:
      row.kind === "api_key"
        ? { kind: "api_key", userId, apiKeyId: credentialId }
        : {
            kind: "oauth",
            userId,
            oauthClientId: String(row.client_id),
            grantId: credentialId,
            scopes: parseScope(String(row.scope ?? "")),
            expiresAt: new Date(String(row.expires_at)),
          },
    access: computeAccess({
      subscriptionStatus: row.subscription_status === null ? null : String(row.subscription_status),
      connections: connections.map((c) => ({
        ...c,
        lastSyncedAt: c.lastSyncedAt ? new Date(c.lastSyncedAt) : null,
        accountCount: Number(c.accountCount),
      })),
    }),
    scope: scopeFromRow(row),
    timezone: row.timezone ? String(row.timezone) : "UTC",
    count: row.count === null || row.count === undefined ? 0 : Number(row.count),
    retryAfterSeconds,
  };
}

function parseJson(value: unknown): unknown {
  return typeof value === "string" ? JSON.parse(value) : value;
}
