/**
 * The Categories and Transactions pages' server actions (app/dashboard/categories/actions.ts):
 * they act only on the signed-in person's rules and transactions, refuse bad input with a
 * sentence naming the field, and reach what every tool reads. The real actions run; only Next's
 * request context (headers, session, cache revalidation) is stood in for.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { transactions } from "@/db/schema";
import { IDLE } from "@/lib/action-state";
import { resetEnvCache } from "@/lib/env";
import { addRule, listRules, listTransferCategories } from "@/lib/finance/category-rules";
import { useTestDatabase } from "@/tests/helpers/db";
import { addAccount, addConnection, addTransactions, createUser } from "./tools-helpers";

const request = vi.hoisted(() => ({
  origin: "http://localhost:3999" as string | null,
  user: null as { id: string; email: string | null; name: string | null } | null,
}));

vi.mock("next/headers", () => ({
  headers: async () => new Headers(request.origin ? { origin: request.origin } : {}),
}));
vi.mock("next/cache", () => ({ revalidatePath: () => undefined }));
vi.mock("@/lib/auth", () => ({ getSessionUser: async () => request.user }));

const { addRuleAction, removeRuleAction, setTransactionCategoryAction, setTransferCategoriesAction } =
  await import("@/app/dashboard/categories/actions");

const getDb = useTestDatabase();
const savedAppUrl = process.env.APP_URL;
let me = "";
let other = "";
let myTransaction = "";

beforeAll(async () => {
  process.env.APP_URL = "http://localhost:3999";
  resetEnvCache();
  const db = getDb();
  me = await createUser(db);
  other = await createUser(db);
  const account = await addAccount(db, me, await addConnection(db, me), {
    name: "Checking",
    type: "depository",
    balance: 0,
  });
  await addTransactions(db, me, [
    {
      accountId: account,
      date: "2025-10-02",
      amountMinor: -2_500,
      category: "groceries",
      name: "CORNER PHARMACY",
    },
  ]);
  const [row] = await db
    .select({ id: transactions.id })
    .from(transactions)
    .where(eq(transactions.userId, me));
  myTransaction = row?.id ?? "";
});
afterAll(() => {
  if (savedAppUrl === undefined) delete process.env.APP_URL;
  else process.env.APP_URL = savedAppUrl;
  resetEnvCache();
});
beforeEach(() => {
  request.origin = "http://localhost:3999";
  request.user = { id: me, email: null, name: null };
});

const form = (fields: Record<string, string>) => {
  const data = new FormData();
  for (const [k, v] of Object.entries(fields)) data.set(k, v);
  return data;
};

const categoryOf = async (id: string) =>
  (await getDb().select({ c: transactions.category }).from(transactions).where(eq(transactions.id, id)))[0]
    ?.c;

describe("category actions", () => {
  it("add a rule, refusing bad input by field; remove only one's own", async () => {
    const bad = await addRuleAction(IDLE, form({ field: "merchant", pattern: "x", category: "pizza" }));
    expect(bad).toMatchObject({ status: "error", field: "category", error: "Choose a category." });
    const empty = await addRuleAction(IDLE, form({ field: "merchant", pattern: "  ", category: "other" }));
    expect(empty).toMatchObject({ status: "error", field: "pattern" });
    const long = await addRuleAction(
      IDLE,
      form({ field: "merchant", pattern: "x".repeat(101), category: "other" }),
    );
    expect(long).toMatchObject({ status: "error", field: "pattern", error: "Use at most 100 characters." });
    const field = await addRuleAction(IDLE, form({ field: "amount", pattern: "x", category: "other" }));
    expect(field).toMatchObject({ status: "error", field: "field" });
    expect(await listRules(getDb(), me)).toEqual([]);

    const added = await addRuleAction(
      IDLE,
      form({ field: "description", pattern: "pharmacy", category: "healthcare" }),
    );
    expect(added).toMatchObject({
      status: "ok",
      message: "Rule added: description contains “pharmacy” → Healthcare.",
    });
    expect(await categoryOf(myTransaction)).toBe("healthcare");

    const theirs = await addRule(getDb(), other, { field: "merchant", pattern: "x", category: "other" });
    expect(await removeRuleAction(IDLE, form({ ruleId: theirs.id }))).toMatchObject({
      status: "error",
      error: "No such rule.",
    });
    expect(await listRules(getDb(), other)).toHaveLength(1);
    const [mine] = await listRules(getDb(), me);
    expect(await removeRuleAction(IDLE, form({ ruleId: mine?.id ?? "" }))).toMatchObject({ status: "ok" });
    expect(await categoryOf(myTransaction)).toBe("groceries");
  });

  it("set and reset one's own transaction's category only", async () => {
    request.user = { id: other, email: null, name: null };
    expect(
      await setTransactionCategoryAction(IDLE, form({ transactionId: myTransaction, category: "travel" })),
    ).toMatchObject({ status: "error", error: "No such transaction." });
    expect(await categoryOf(myTransaction)).toBe("groceries");

    request.user = { id: me, email: null, name: null };
    expect(
      await setTransactionCategoryAction(IDLE, form({ transactionId: myTransaction, category: "nope" })),
    ).toMatchObject({ status: "error", field: "category" });
    expect(
      await setTransactionCategoryAction(IDLE, form({ transactionId: myTransaction, category: "travel" })),
    ).toMatchObject({ status: "ok", message: "Saved: Travel." });
    expect(await categoryOf(myTransaction)).toBe("travel");
    expect(
      await setTransactionCategoryAction(IDLE, form({ transactionId: myTransaction, category: "" })),
    ).toMatchObject({ status: "ok" });
    expect(await categoryOf(myTransaction)).toBe("groceries");
  });

  it("set the transfer categories from the checkboxes", async () => {
    const saved = await setTransferCategoriesAction(
      IDLE,
      form({ transfer_groceries: "on", transfer_gifts_and_donations: "on" }),
    );
    expect(saved).toMatchObject({
      status: "ok",
      message: "Counted as transfers: Groceries, Gifts & donations.",
    });
    expect(await listTransferCategories(getDb(), me)).toEqual(["groceries", "gifts_and_donations"]);
    const row = await getDb()
      .select({ isTransfer: transactions.isTransfer })
      .from(transactions)
      .where(eq(transactions.id, myTransaction));
    expect(row[0]?.isTransfer).toBe(true);
    expect(await setTransferCategoriesAction(IDLE, form({ transfer_groceries: "yes" }))).toMatchObject({
      status: "error",
      field: "transfer_groceries",
    });
    expect(await setTransferCategoriesAction(IDLE, form({}))).toMatchObject({ status: "ok" });
    expect(await listTransferCategories(getDb(), me)).toEqual([]);
  });

  it("refuses a foreign Origin and a missing session", async () => {
    request.origin = "https://evil.example";
    expect(
      await addRuleAction(IDLE, form({ field: "merchant", pattern: "x", category: "other" })),
    ).toMatchObject({
      status: "error",
    });
    request.origin = "http://localhost:3999";
    request.user = null;
    expect(await setTransferCategoriesAction(IDLE, form({ transfer_taxes: "on" }))).toMatchObject({
      status: "error",
    });
    expect(await listRules(getDb(), me)).toEqual([]);
    expect(await listTransferCategories(getDb(), me)).toEqual([]);
  });
});
