"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { createAction } from "@/lib/action";
import { AppError } from "@/lib/errors";
import { revokeGrant } from "@/lib/oauth/tokens";

const revokeAppSchema = z.object({ grantId: z.uuid({ error: "Unknown app." }) });

/** Disconnects an app: the grant and every token in it end at once (scoped to the signed-in user). */
export const revokeAppAction = createAction(revokeAppSchema, async ({ grantId }, { user, db }) => {
  const ended = await revokeGrant(db, grantId, user.id);
  if (!ended) throw new AppError("not_found", "That app is not connected.");
  revalidatePath("/dashboard/apps");
  return { data: undefined, message: "Disconnected." };
});
