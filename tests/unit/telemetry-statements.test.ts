/**
 * A statement's span is named for its operation and first table, from its text: comments and
 * quoted literals never become part of the name, and a function after FROM is not a table.
 */
import { describe, expect, it } from "vitest";
import { statementSpanName, summarizeStatement } from "@/lib/telemetry";

const name = (text: string) => statementSpanName(summarizeStatement(text));

describe("summarizeStatement", () => {
  it("names the operation and the first table, without schema or quotes", () => {
    expect(name('select "id", "name" from "bank_accounts" where "user_id" = $1')).toBe(
      "SELECT bank_accounts",
    );
    expect(name('insert into "tool_calls" ("user_id") values ($1)')).toBe("INSERT tool_calls");
    expect(name('update "bank_connections" set "status" = $1')).toBe("UPDATE bank_connections");
    expect(name('delete from "rate_limits" where "window_start" < $1')).toBe("DELETE rate_limits");
    expect(name("select max(created_at) from drizzle.__drizzle_migrations")).toBe(
      "SELECT __drizzle_migrations",
    );
    expect(name('with "k" as (select 1 from "api_keys") select * from "k"')).toBe("WITH api_keys");
    expect(name("set max_parallel_workers_per_gather = 0")).toBe("SET");
  });

  it("drops comments and literals first, and skips functions", () => {
    expect(name('/* planned each run */ select * from "transactions"')).toBe("SELECT transactions");
    expect(name("select 'from alice_secret' as x, 1 from \"users\"")).toBe("SELECT users");
    expect(name('-- from hidden\nselect 1 from "sessions"')).toBe("SELECT sessions");
    expect(name('select * from jsonb_to_recordset($1) as r(a int) join "transactions" t on true')).toBe(
      "SELECT transactions",
    );
    expect(name("select ledgerlink_rebuild_net_worth()")).toBe("SELECT");
  });
});
