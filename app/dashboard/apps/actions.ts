"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { createAction } from "@/lib/action";
import { AppError } from "@/lib/errors";
import { keepGrant, revokeGrant } from "@/lib/oauth/tokens";

const grantSchema = z.object({ grantId: z.uuid({ error: "Unknown app." }) });

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
