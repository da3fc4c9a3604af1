"use server";

import { z } from "zod";
import { createAction } from "@/lib/action";
import { signOut } from "@/lib/auth";

/** Ends the session (deletes its row) and goes back to the landing page. */
export const signOutAction = createAction(z.object({}), async () => {
  await signOut({ redirectTo: "/" });
  return { data: undefined };
});
