/** The tools' input schemas as web forms (lib/mcp/tool-form.ts), and forms back into arguments. */
import { describe, expect, it } from "vitest";
import { argsFromForm, type FormField, formFieldsOf } from "@/lib/mcp/tool-form";
import { allTools } from "@/lib/mcp/tools";
import { searchTransactionsTool } from "@/lib/mcp/tools/search-transactions";

const fields = formFieldsOf(searchTransactionsTool);
const field = (name: string) => fields.find((f) => f.name === name) as FormField;

describe("formFieldsOf", () => {
  it("gives every argument of every tool a field, in schema order", () => {
    for (const tool of allTools) {
      expect(formFieldsOf(tool).map((f) => f.name)).toEqual(Object.keys(tool.input.shape));
    }
  });

  it("picks the control from the schema, with its default and bounds", () => {
    expect(field("query")).toMatchObject({ kind: "text", maxLength: 200 });
    expect(field("start_date")).toMatchObject({ kind: "date" });
    expect(field("period")).toMatchObject({ kind: "select" });
    expect(field("period")).not.toHaveProperty("default");
    expect(field("direction")).toMatchObject({ kind: "select", default: "all" });
    expect(field("categories")).toMatchObject({ kind: "choices" });
    expect((field("categories") as { options: string[] }).options).toContain("groceries");
    expect(field("account_ids")).toMatchObject({ kind: "list" });
    expect(field("limit")).toMatchObject({ kind: "number", integer: true, min: 1, max: 250, default: 25 });
    expect(field("min_amount")).toMatchObject({ kind: "number", integer: false });
    expect(field("include_pending")).toMatchObject({ kind: "boolean", default: true });
  });
});

describe("argsFromForm", () => {
  it("leaves empty fields out and turns the rest into typed arguments", () => {
    const args = argsFromForm(fields, {
      query: "  coffee ",
      period: "",
      start_date: "2025-01-01",
      "categories.groceries": "on",
      "categories.restaurants": "on",
      account_ids: "acc_1, acc_2\nacc_3",
      limit: "25",
      min_amount: "12.5",
      include_pending: "on",
      $ACTION_ID_abc: "ignored",
    });
    expect(args).toEqual({
      query: "coffee",
      start_date: "2025-01-01",
      categories: ["groceries", "restaurants"],
      account_ids: ["acc_1", "acc_2", "acc_3"],
      limit: 25,
      min_amount: 12.5,
      include_pending: true,
      exclude_transfers: false,
    });
  });

  it("passes text in a number field on as given, for the tool's validation to name", () => {
    expect(argsFromForm([field("limit")], { limit: "lots" })).toEqual({ limit: "lots" });
  });
});
