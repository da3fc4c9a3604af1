"use server";

import { redirect } from "next/navigation";
import { z } from "zod";
import { createPublicAction } from "@/lib/action";
import { signIn, signInMethods } from "@/lib/auth";
import { AppError } from "@/lib/errors";
import { safeCallbackPath } from "@/lib/safe-redirect";

const callbackUrl = z.string().optional().transform(safeCallbackPath);

const emailSignInSchema = z.object({
  email: z.email({ error: "Enter a valid email address." }).trim().toLowerCase().max(254),
  callbackUrl,
});

/** Sends (or logs) a magic link, then shows "check your email". */
export const signInWithEmailAction = createPublicAction(emailSignInSchema, async ({ email, callbackUrl }) => {
  if (!signInMethods().email) throw new AppError("forbidden", "Email sign-in is not available here.");
  // redirect: false, because Auth.js would go through its own /api/auth/verify-request first.
  await signIn("email", { email, redirectTo: callbackUrl, redirect: false });
  redirect("/sign-in/check-email");
});

/** Starts GitHub sign-in (redirects to GitHub). */
export const signInWithGitHubAction = createPublicAction(
  z.object({ callbackUrl }),
  async ({ callbackUrl }) => {
    if (!signInMethods().github) throw new AppError("forbidden", "GitHub sign-in is not available here.");
    await signIn("github", { redirectTo: callbackUrl });
    return undefined;
  },
);
