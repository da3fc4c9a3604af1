"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { accountChoiceFields, resolveAccountChoice } from "@/lib/account-access";
import { createAction } from "@/lib/action";
import { AppError } from "@/lib/errors";
import { keepGrant, revokeGrant, setGrantAccounts } from "@/lib/oauth/tokens";

const grantSchema = z.object({ grantId: z.uuid({ error: "Unknown app." }) });
const grantAccountsSchema = z.object({ grantId: z.uuid({ error: "Unknown app." }), ...accountChoiceFields });

/** Disconnects an app: the grant and every token in it end at once (scoped to the signed-in user). */
export const revokeAppAction = createAction(grantSchema, async ({ grantId }, { user, db }) => {
  const ended = await revokeGrant(db, grantId, user.id);
  if (!ended) throw new AppError("not_found", "That app is not connected.");
  revalidatePath("/dashboard/apps");
  return { data: undefined, message: "Disconnected." };
});

/** Keeps an app connected for another year from today (a grant otherwise ends a year after approval). */
export const keepAppAction = createAction(grantSchema, async ({ grantId }, { user, db }) => {
  const until = await keepGrant(db, grantId, user.id);
  if (!until) throw new AppError("not_found", "That app is not connected.");
  revalidatePath("/dashboard/apps");
  return { data: undefined, message: "Kept for another year." };
});

/** Changes the accounts an app reads: its next call reads the new ones. */
export const setAppAccountsAction = createAction(
  grantAccountsSchema,
  async ({ grantId, ...choice }, { user, db }) => {
    const saved = await setGrantAccounts(
      db,
      grantId,
      user.id,
      await resolveAccountChoice(db, user.id, choice),
    );
    if (!saved) throw new AppError("not_found", "That app is not connected.");
    revalidatePath("/dashboard/apps");
    return { data: undefined, message: "Saved. The app reads these accounts from its next call." };
  },
);
