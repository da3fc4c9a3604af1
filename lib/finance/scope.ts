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
import { type SQL, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { executeRows } from "./sql";

export interface AccountScope {
  /** The accounts the call may read; null for all of the person's accounts. */
  readonly accountIds: readonly string[] | null;
  /** How many of the person's accounts are hidden (the HIDDEN_ACCOUNTS warning). */
  readonly hiddenCount: number;
}

/** Every account, none hidden: the scope of a person without choices. */
export const ALL_ACCOUNTS: AccountScope = { accountIds: null, hiddenCount: 0 };

/** Whether `scope` leaves any account of the person out. */
export function isScoped(scope: AccountScope): scope is AccountScope & { accountIds: readonly string[] } {
  return scope.accountIds !== null;
}

/**
 * The two columns of a scope, `hidden_count` and `visible_ids` (a JSON array, or null for all),
 * for the person `userId` and a credential's `granted` accounts (a text[] expression, null for all).
 * Used inside the one statement that finds the caller (lib/mcp/caller.ts), and by `loadAccountScope`.
 */
export function scopeColumns(userId: SQL, granted: SQL): SQL {
  return sql`(select count(*) from bank_accounts h where h.user_id = ${userId} and h.hidden) as hidden_count,
    case when ${granted} is null
        and not exists (select 1 from bank_accounts h where h.user_id = ${userId} and h.hidden)
      then null
      else coalesce((
        select json_agg(a.id order by a.id) from bank_accounts a
        where a.user_id = ${userId} and not a.hidden and (${granted} is null or a.id = any(${granted}))
      ), '[]'::json)
    end as visible_ids`;
}

/** A scope from the columns `scopeColumns` selects. */
export function scopeFromRow(row: Record<string, unknown>): AccountScope {
  const raw = row.visible_ids;
  const ids = typeof raw === "string" ? (JSON.parse(raw) as unknown) : raw;
  return {
    accountIds: Array.isArray(ids) ? ids.map(String) : null,
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
  const granted =
    of.kind === "person"
      ? sql`null::text[]`
      : of.kind === "api_key"
        ? sql`(select k.account_ids from api_keys k where k.id = ${of.id} and k.user_id = ${userId})`
        : sql`(select g.account_ids from oauth_grants g where g.id = ${of.grantId} and g.user_id = ${userId})`;
  const live =
    of.kind === "person"
      ? sql`true`
      : of.kind === "api_key"
        ? sql`exists (select 1 from api_keys k where k.id = ${of.id} and k.user_id = ${userId}
            and k.revoked_at is null and k.rotated_at is null)`
        : sql`exists (select 1 from oauth_grants g where g.id = ${of.grantId} and g.user_id = ${userId}
            and g.revoked_at is null)`;
  const [row] = await executeRows(db, sql`select ${live} as live, ${scopeColumns(sql`${userId}`, granted)}`);
  if (!row || row.live === false || row.live === "f") return { accountIds: [], hiddenCount: 0 };
  return scopeFromRow(row);
}
