"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { accountChoiceFields, resolveAccountChoice } from "@/lib/account-access";
import { createAction } from "@/lib/action";
import { createApiKey, revokeApiKey, rotateApiKey, setApiKeyAccounts } from "@/lib/api-keys";

/** A key shown once: the full secret travels to the browser in this answer and nowhere else. */
export interface ShownKey {
  id: string;
  name: string;
  key: string;
  preview: string;
}

/** Only the fields the browser needs (not e.g. the creation time). */
function shownKey({ id, name, key, preview }: ShownKey): ShownKey {
  return { id, name, key, preview };
}

const createKeySchema = z.object({
  name: z
    .string()
    .trim()
    .min(1, "Give the key a name, such as the app that will use it.")
    .max(64, "Use at most 64 characters."),
  ...accountChoiceFields,
  // A key is for all accounts unless the person chooses.
  access: accountChoiceFields.access.default("all"),
});
const keyIdSchema = z.object({ keyId: z.string().min(1).max(64) });
const keyAccountsSchema = z.object({ keyId: z.string().min(1).max(64), ...accountChoiceFields });

/** A new key, for all accounts (the ones linked later included) or for the chosen ones. */
export const createApiKeyAction = createAction(createKeySchema, async ({ name, ...choice }, { db, user }) => {
  const created = await createApiKey(db, user.id, name, await resolveAccountChoice(db, user.id, choice));
  revalidatePath("/dashboard/keys");
  return { data: shownKey(created) };
});

/** Changes the accounts a key reads: its next call reads the new ones. */
export const setApiKeyAccountsAction = createAction(
  keyAccountsSchema,
  async ({ keyId, ...choice }, { db, user }) => {
    await setApiKeyAccounts(db, user.id, keyId, await resolveAccountChoice(db, user.id, choice));
    revalidatePath("/dashboard/keys");
    return { data: undefined, message: "Saved. The key reads these accounts from its next call." };
  },
);

/** Replaces the key, with the same accounts: the old one answers 401 from this moment. */
export const rotateApiKeyAction = createAction(keyIdSchema, async ({ keyId }, { db, user }) => {
  const created = await rotateApiKey(db, user.id, keyId);
  revalidatePath("/dashboard/keys");
  return { data: shownKey(created) };
});

export const revokeApiKeyAction = createAction(keyIdSchema, async ({ keyId }, { db, user }) => {
  await revokeApiKey(db, user.id, keyId);
  revalidatePath("/dashboard/keys");
  return { data: undefined, message: "Key revoked. It no longer works." };
});
