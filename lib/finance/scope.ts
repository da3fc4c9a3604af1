/**
 * Which of a person's accounts one call may read (issue 35): the accounts its credential was
 * given (an API key's or an OAuth grant's `account_ids`, null for all of them, accounts linked
 * later included), less the accounts the person hid. Every tool reads through it: rows, totals,
 * rollups and history of the other accounts are left out as if they did not exist, and an
 * account id outside it finds nothing, like another person's.
 *
 * `accountIds` is null when nothing is left out (the credential reads all accounts and none is
 * hidden): the queries then take their unscoped paths, unchanged. Otherwise it lists the accounts
 * the call may read (possibly none).
 */
import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { executeRows } from "./sql";

export interface AccountScope {
  /** The accounts the call may read; null for all of the person's accounts. */
  readonly accountIds: readonly string[] | null;
  /** The banks of those accounts; null with `accountIds`. A scoped call sees no other bank. */
  readonly connectionIds: readonly string[] | null;
  /** How many of the person's accounts are hidden (the HIDDEN_ACCOUNTS warning). */
  readonly hiddenCount: number;
}

/** Every account, none hidden: the scope of a person without choices. */
export const ALL_ACCOUNTS: AccountScope = { accountIds: null, connectionIds: null, hiddenCount: 0 };

/**
 * The columns of a scope, `hidden_count` and `visible` (a JSON array of [account id, connection
 * id] pairs, or null for all),
 * for the person `userId` and a credential's `granted` accounts (a text[] expression, null for all).
 * Used inside the one statement that finds the caller (lib/mcp/caller.ts), and by `loadAccountScope`.
 */
export function scopeColumns(userId: SQL, granted: SQL): SQL {
  return sql`(select count(*) from bank_accounts h where h.user_id = ${userId} and h.hidden) as hidden_count,
    case when ${granted} is null
        and not exists (select 1 from bank_accounts h where h.user_id = ${userId} and h.hidden)
      then null
      else coalesce((
        select json_agg(json_build_array(a.id, a.connection_id) order by a.id) from bank_accounts a
        where a.user_id = ${userId} and not a.hidden and (${granted} is null or a.id = any(${granted}))
      ), '[]'::json)
    end as visible`;
}

/** A scope from the columns `scopeColumns` selects. */
export function scopeFromRow(row: Record<string, unknown>): AccountScope {
  const raw = row.visible;
  const pairs = (typeof raw === "string" ? JSON.parse(raw) : raw) as Array<[string, string]> | null;
  return {
    accountIds: pairs ? pairs.map(([account]) => account) : null,
    connectionIds: pairs ? [...new Set(pairs.map(([, connection]) => connection))] : null,
    hiddenCount: Number(row.hidden_count ?? 0),
  };
}

/** What a scope is loaded for: the person themself (all accounts), one of their keys, or a grant. */
export type ScopeOf =
  | { kind: "person" }
  | { kind: "api_key"; id: string }
  | { kind: "oauth"; grantId: string };

/**
 * The scope of `of` for `userId` (the dashboard's tools page running as a key or an app). A key or
 * grant that is not the person's, or no longer live, reads nothing.
 */
export async function loadAccountScope(db: Database, userId: string, of: ScopeOf): Promise<AccountScope> {
  // ::text[] makes each subquery one array value: `= any((select …))` would compare to its rows.
  const granted =
    of.kind === "person"
      ? sql`null::text[]`
      : of.kind === "api_key"
        ? sql`(select k.account_ids from api_keys k where k.id = ${of.id} and k.user_id = ${userId})::text[]`
        : sql`(select g.account_ids from oauth_grants g where g.id = ${of.grantId} and g.user_id = ${userId})::text[]`;
  const live =
    of.kind === "person"
      ? sql`true`
      : of.kind === "api_key"
        ? sql`exists (select 1 from api_keys k where k.id = ${of.id} and k.user_id = ${userId}
            and k.revoked_at is null and k.rotated_at is null)`
        : sql`exists (select 1 from oauth_grants g where g.id = ${of.grantId} and g.user_id = ${userId}
            and g.revoked_at is null)`;
  const [row] = await executeRows(db, sql`select ${live} as live, ${scopeColumns(sql`${userId}`, granted)}`);
  if (!row || row.live === false || row.live === "f")
    return { accountIds: [], connectionIds: [], hiddenCount: 0 };
  return scopeFromRow(row);
}

/**
 * An id no account has: a list of it finds nothing, where an empty list would mean "no filter"
 * to the queries that take account ids.
 */
const NO_ACCOUNT = "none";

/**
 * The account ids a query should be limited to: what the caller asked for (`requested`, ids from
 * list_accounts) within the scope. Undefined when neither limits anything; a list that finds
 * nothing when the request and the scope do not meet (an id outside the scope finds nothing, like
 * another person's).
 */
export function scopedAccountIds(
  scope: AccountScope,
  requested?: readonly string[] | undefined,
): string[] | undefined {
  if (scope.accountIds === null) return requested === undefined ? undefined : [...requested];
  const allowed = new Set(scope.accountIds);
  const ids = requested === undefined ? [...scope.accountIds] : requested.filter((id) => allowed.has(id));
  return ids.length > 0 ? ids : [NO_ACCOUNT];
}

/** A condition limiting `column` (an account id) to the scope, or undefined when it reads every account. */
export function inScope(scope: AccountScope, column: SQLWrapper): SQL | undefined {
  if (scope.accountIds === null) return undefined;
  // One array value: the statement's text is the same for every scope, so it is planned once.
  return sql`${column} = any(${sql.param(scopedAccountIds(scope) ?? [])}::text[])`;
}

/**
 * `inScope` in a statement prepared once (db/fixed-statement.ts `perDatabase`): the scope's
 * accounts are its placeholder `accounts` (`scopedAccountIds`).
 */
export function inScopeOf(column: SQLWrapper): SQL {
  return sql`${column} = any(${sql.placeholder("accounts")}::text[])`;
}

/**
 * The rows of accounts in `scope`: for the short per-account lists (recurring streams, debts,
 * holdings) read whole and cut here, where a second statement per list would cost more.
 */
export function readable<T extends { accountId: string }>(scope: AccountScope, rows: T[]): T[] {
  if (scope.accountIds === null) return rows;
  const allowed = new Set(scope.accountIds);
  return rows.filter((r) => allowed.has(r.accountId));
}

/** The banks a call sees: all of them, or those holding an account in its scope. */
export function visibleConnections<T extends { id: string }>(scope: AccountScope, connections: T[]): T[] {
  if (scope.connectionIds === null) return connections;
  const visible = new Set(scope.connectionIds);
  return connections.filter((c) => visible.has(c.id));
}
