/**
 * One error type with a code. Entry points translate it once: a route → HTTP status and a
 * generic body (details logged, never returned); a server action → `{ error }`; a tool →
 * `isError` with a sentence naming the argument or the fix.
 */
export type ErrorCode =
  | "invalid_input"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "rate_limited"
  | "unavailable"
  | "provider_error"
  | "reauth_required"
  | "internal";

const STATUS: Record<ErrorCode, number> = {
  invalid_input: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
  unavailable: 503,
  provider_error: 502,
  reauth_required: 409,
  internal: 500,
};

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.details = details;
  }

  get status(): number {
    return STATUS[this.code];
  }

  /** A JSON response that never carries internals: a 5xx gets a generic sentence. */
  toResponse(headers?: HeadersInit): Response {
    const message = this.status >= 500 ? "Something went wrong on our side. Please try again." : this.message;
    return Response.json({ error: this.code, message }, { status: this.status, headers });
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/** Any thrown value as an AppError (unknown errors become `internal`). */
export function toAppError(error: unknown): AppError {
  if (isAppError(error)) return error;
  return new AppError("internal", error instanceof Error ? error.message : String(error));
}
