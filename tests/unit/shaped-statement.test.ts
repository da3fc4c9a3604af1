import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { shapedStatement } from "@/db/fixed-statement";
import { transactions } from "@/db/schema";

describe("a statement kept by its shape", () => {
  it("binds every value as a placeholder, in order, and keeps one text per shape", () => {
    const ask = (user: string, accounts: string[]) =>
      shapedStatement(
        "test:user-accounts",
        (bind) =>
          sql`select 1 from ${transactions} where ${eq(transactions.userId, bind(user))}
            and ${transactions.accountId} = any(${bind(accounts)}::text[]) and ${eq(transactions.pending, false)}`,
      );
    const first = ask("u1", ["a", "b"]);
    const second = ask("u2", ["c"]);
    expect(second.statement.text).toBe(first.statement.text);
    expect(first.statement.text).toContain('"transactions"."user_id" = $1');
    expect(first.values).toEqual({ v0: "u1", v1: ["a", "b"] });
    expect(second.values).toEqual({ v0: "u2", v1: ["c"] });
  });

  it("refuses a shape that writes two statements, and a value not bound", () => {
    const ask = (withAccount: boolean) =>
      shapedStatement("test:incomplete", (bind) =>
        withAccount
          ? sql`select 1 from ${transactions} where ${eq(transactions.userId, bind("u"))} and ${transactions.accountId} = ${bind("a")}`
          : sql`select 1 from ${transactions} where ${eq(transactions.userId, bind("u"))}`,
      );
    ask(false);
    expect(() => ask(true)).toThrow(/test:incomplete renders two statements/);
    // One person's id written as a value would be kept with the text for the next person.
    expect(() =>
      shapedStatement(
        "test:unbound",
        () => sql`select 1 from ${transactions} where ${eq(transactions.userId, "u1")}`,
      ),
    ).toThrow(/holds a value not bound/);
  });
});
