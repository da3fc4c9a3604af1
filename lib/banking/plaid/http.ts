/**
 * The checks every browser-facing Plaid route makes itself (a layout redirect is convenience,
 * not security): the request comes from our own origin (security.md: a foreign Origin is
 * refused), a signed-in session (`auth()` via getSessionUser), and a zod-parsed JSON body.
 */
import type { z } from "zod";
import { getSessionUser, type SessionUser } from "@/lib/auth";
import { getEnv } from "@/lib/env";
import { AppError, failureFields, toAppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { isPlaidConfigured } from "./client";

/** The signed-in user of a same-origin request with Plaid configured; throws AppError otherwise. */
export async function requirePlaidRouteUser(request: Request): Promise<SessionUser> {
  const origin = request.headers.get("origin");
  if (origin !== new URL(getEnv().APP_URL).origin) {
    throw new AppError("forbidden", "This request came from another site and was refused.");
  }
  const user = await getSessionUser();
  if (!user) throw new AppError("unauthorized", "Sign in first.");
  if (!isPlaidConfigured()) throw new AppError("not_found", "Plaid is not configured on this server.");
  return user;
}

/** The request's JSON body parsed with `schema`; `invalid_input` names the first bad field. */
export async function parseJsonBody<S extends z.ZodType>(request: Request, schema: S): Promise<z.output<S>> {
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    throw new AppError("invalid_input", "The request body must be JSON.");
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join(".") || "body";
    throw new AppError("invalid_input", `Invalid ${field}: ${issue?.message ?? "not valid"}.`, { field });
  }
  return parsed.data;
}

/** An AppError (or anything thrown) as a JSON response; 5xx details are logged, not returned. */
export function errorResponse(error: unknown, label: string): Response {
  const appError = toAppError(error);
  if (appError.status >= 500) log.error(`${label}.failed`, failureFields(error));
  return appError.toResponse();
}
