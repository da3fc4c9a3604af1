"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { createAction } from "@/lib/action";
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
