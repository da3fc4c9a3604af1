"use server";

import { z } from "zod";
import { createPublicAction } from "@/lib/action";
import { signIn, signInMethods } from "@/lib/auth";
import { AppError } from "@/lib/errors";

const emailSignInSchema = z.object({
  email: z.email({ error: "Enter a valid email address." }).trim().toLowerCase().max(254),
});

/** Sends (or logs) a magic link; Auth.js then redirects to /sign-in/check-email. */
export const signInWithEmailAction = createPublicAction(emailSignInSchema, async ({ email }) => {
  if (!signInMethods().email) throw new AppError("forbidden", "Email sign-in is not available here.");
  await signIn("email", { email, redirectTo: "/dashboard" });
  return undefined;
});

/** Starts GitHub sign-in (redirects to GitHub). */
export const signInWithGitHubAction = createPublicAction(z.object({}), async () => {
  if (!signInMethods().github) throw new AppError("forbidden", "GitHub sign-in is not available here.");
  await signIn("github", { redirectTo: "/dashboard" });
  return undefined;
});
