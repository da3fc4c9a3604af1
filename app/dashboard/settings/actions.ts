"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { z } from "zod";
import { deleteAccount } from "@/lib/account";
import { createAction } from "@/lib/action";
import { AppError } from "@/lib/errors";
import { adoptBrowserTimezone, isTimezone, setTimezone } from "@/lib/timezone";

const zoneSchema = z.object({
  timezone: z
    .string()
    .trim()
    .refine(isTimezone, "Pick a timezone from the list, such as Europe/Paris or America/New_York."),
});

/** Settings: the person picks their timezone. */
export const saveTimezoneAction = createAction(zoneSchema, async ({ timezone }, { db, user }) => {
  await setTimezone(db, user.id, timezone);
  revalidatePath("/dashboard", "layout");
  return { data: undefined, message: `Saved: periods and times now follow ${timezone}.` };
});

/** First visit: the browser's zone, unless the person has set one already. */
export const adoptBrowserTimezoneAction = createAction(zoneSchema, async ({ timezone }, { db, user }) => {
  const taken = await adoptBrowserTimezone(db, user.id, timezone);
  if (taken) revalidatePath("/dashboard", "layout");
  return { data: undefined };
});

const deleteSchema = z.object({ confirm: z.string().trim() });

/** Deletes the account after the person typed their email address (lib/account.ts). */
export const deleteAccountAction = createAction(deleteSchema, async ({ confirm }, { db, user }) => {
  if (!user.email || confirm.toLowerCase() !== user.email.toLowerCase()) {
    throw new AppError("invalid_input", "Type your email address exactly as shown to confirm.", {
      field: "confirm",
    });
  }
  await deleteAccount(db, user.id);
  redirect("/?deleted=1");
});
