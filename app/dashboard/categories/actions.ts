"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { createAction } from "@/lib/action";
import { CATEGORY_IDS, categoryLabel } from "@/lib/finance/categories";
import {
  addRule,
  MAX_PATTERN_LENGTH,
  removeRule,
  setTransactionCategory,
  setTransferCategories,
} from "@/lib/finance/category-rules";

// The library checks every value again and names the field; these give the form its sentences.
const ruleSchema = z.object({
  field: z.enum(
    ["merchant", "description"],
    "Choose whether the rule reads the merchant or the description.",
  ),
  pattern: z
    .string()
    .trim()
    .min(1, "Type the merchant or the words to look for.")
    .max(MAX_PATTERN_LENGTH, `Use at most ${MAX_PATTERN_LENGTH} characters.`),
  category: z.enum(CATEGORY_IDS, "Choose a category."),
});
const ruleIdSchema = z.object({ ruleId: z.string().min(1).max(64) });
const transferSchema = z.object(
  Object.fromEntries(CATEGORY_IDS.map((id) => [`transfer_${id}`, z.literal("on").optional()])),
);
const transactionSchema = z.object({
  transactionId: z.string().min(1).max(64),
  // Empty: back to the rules and the bank's category.
  category: z.union([z.enum(CATEGORY_IDS), z.literal("")], "Choose a category."),
});

/** What every tool reads follows at once; the pages showing categories are drawn again. */
function redraw() {
  revalidatePath("/dashboard/categories");
  revalidatePath("/dashboard/transactions");
}

export const addRuleAction = createAction(ruleSchema, async (input, { db, user }) => {
  const rule = await addRule(db, user.id, input);
  redraw();
  const what =
    rule.field === "merchant" ? `merchant is “${rule.pattern}”` : `description contains “${rule.pattern}”`;
  return { data: undefined, message: `Rule added: ${what} → ${categoryLabel(rule.category)}.` };
});

export const removeRuleAction = createAction(ruleIdSchema, async ({ ruleId }, { db, user }) => {
  await removeRule(db, user.id, ruleId);
  redraw();
  return { data: undefined, message: "Rule removed: its transactions are back to the bank's categories." };
});

export const setTransferCategoriesAction = createAction(transferSchema, async (input, { db, user }) => {
  const chosen = CATEGORY_IDS.filter((id) => input[`transfer_${id}`] === "on");
  await setTransferCategories(db, user.id, chosen);
  redraw();
  return {
    data: undefined,
    message:
      chosen.length === 0
        ? "No category is counted as a transfer."
        : `Counted as transfers: ${chosen.map(categoryLabel).join(", ")}.`,
  };
});

export const setTransactionCategoryAction = createAction(
  transactionSchema,
  async ({ transactionId, category }, { db, user }) => {
    await setTransactionCategory(db, user.id, transactionId, category === "" ? null : category);
    redraw();
    return {
      data: undefined,
      message: category === "" ? "Back to the bank's category." : `Saved: ${categoryLabel(category)}.`,
    };
  },
);
