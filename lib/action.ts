/**
 * The one wrapper every server action goes through. It
 * 1. refuses a request whose `Origin` is not APP_URL's (security.md: "a server action called from
 *    a foreign Origin is refused"), on top of Next's own Origin/Host check;
 * 2. checks the session (actions are public endpoints: a page's check does not protect them);
 * 3. parses the form with a zod schema (parse, don't cast);
 * 4. maps an AppError to `{ error }` (5xx → a generic sentence, details logged) and lets Next's
 *    redirect/notFound signals through.
 *
 * The result shape suits `useActionState`: `(previousState, formData) => Promise<ActionState>`.
 */
import { headers } from "next/headers";
import { unstable_rethrow } from "next/navigation";
import type { z } from "zod";
import { type Database, getDb } from "@/db";
import { getSessionUser, type SessionUser } from "@/lib/auth";
import { getEnv } from "@/lib/env";
import { AppError, failureFields, isDatabaseUnavailable, toAppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { hasUnsafeText } from "@/lib/safe-text";
import type { ActionState } from "./action-state";

export type { ActionState } from "./action-state";
export { IDLE } from "./action-state";

export interface ActionContext {
  user: SessionUser;
  db: Database;
}

/** Throws `forbidden` unless the request's Origin is exactly APP_URL's origin. */
export async function assertSameOrigin(): Promise<void> {
  const origin = (await headers()).get("origin");
  const expected = new URL(getEnv().APP_URL).origin;
  if (origin !== expected)
    throw new AppError("forbidden", "This request came from another site and was refused.");
}

function toState(error: unknown): { status: "error"; error: string; field?: string } {
  const appError = toAppError(error);
  if (appError.status >= 500) {
    log.error("action.failed", failureFields(error));
    if (appError.code === "unavailable" || isDatabaseUnavailable(error))
      return { status: "error", error: "Ledgerlink is briefly unavailable. Please try again in a moment." };
    return { status: "error", error: "Something went wrong on our side. Please try again." };
  }
  const field = typeof appError.details?.field === "string" ? appError.details.field : undefined;
  return { status: "error", error: appError.message, ...(field ? { field } : {}) };
}

/**
 * The sentence for a form issue whose schema gave no message of its own: it names the field and
 * what is allowed (zod's defaults, "Invalid input: expected string, received undefined", are not
 * for people).
 */
function formIssueSentence(issue: z.core.$ZodRawIssue): string {
  const field = `The field "${issue.path?.map(String).join(".") || "form"}"`;
  switch (issue.code) {
    case "invalid_type":
      return issue.input === undefined || issue.input === null
        ? `${field} is required.`
        : `${field} must be text.`;
    case "too_small":
      return `${field} must be at least ${String(issue.minimum)} characters.`;
    case "too_big":
      return `${field} must be at most ${String(issue.maximum)} characters.`;
    case "invalid_value":
      return `${field} must be one of: ${issue.values.map(String).join(", ")}.`;
    default:
      return `${field} is not valid.`;
  }
}

/** The form's fields by name; a name sent more than once (ticked boxes of one list) gives an array. */
function formValues(formData: FormData): Record<string, FormDataEntryValue | FormDataEntryValue[]> {
  const values: Record<string, FormDataEntryValue | FormDataEntryValue[]> = {};
  for (const [name, value] of formData.entries()) {
    const before = values[name];
    values[name] =
      before === undefined ? value : Array.isArray(before) ? [...before, value] : [before, value];
  }
  return values;
}

function parseForm<S extends z.ZodType>(schema: S, formData: FormData): z.output<S> {
  const values = formValues(formData);
  for (const [name, value] of formData.entries()) {
    if (hasUnsafeText(name) || (typeof value === "string" && hasUnsafeText(value))) {
      throw new AppError(
        "invalid_input",
        `The field "${name}" holds a NUL character or an unpaired surrogate; use plain text.`,
        { field: name },
      );
    }
  }
  const result = schema.safeParse(values, { error: formIssueSentence });
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new AppError("invalid_input", issue?.message ?? "The form is not valid.", {
      field: String(issue?.path[0] ?? ""),
    });
  }
  return result.data;
}

/** A server action for a signed-in user. */
export function createAction<S extends z.ZodType, T>(
  schema: S,
  run: (input: z.output<S>, ctx: ActionContext) => Promise<{ data: T; message?: string }>,
): (previous: ActionState<T>, formData: FormData) => Promise<ActionState<T>> {
  return async (_previous, formData) => {
    try {
      await assertSameOrigin();
      const user = await getSessionUser();
      if (!user) throw new AppError("unauthorized", "Your session has ended. Please sign in again.");
      const input = parseForm(schema, formData);
      const { data, message } = await run(input, { user, db: await getDb() });
      return { status: "ok", data, ...(message ? { message } : {}) };
    } catch (error) {
      unstable_rethrow(error);
      return toState(error);
    }
  };
}

/** A server action for signed-out visitors (the sign-in form): Origin and input checks only. */
export function createPublicAction<S extends z.ZodType, T>(
  schema: S,
  run: (input: z.output<S>) => Promise<T>,
): (previous: ActionState<T>, formData: FormData) => Promise<ActionState<T>> {
  return async (_previous, formData) => {
    try {
      await assertSameOrigin();
      const data = await run(parseForm(schema, formData));
      return { status: "ok", data };
    } catch (error) {
      unstable_rethrow(error);
      return toState(error);
    }
  };
}
