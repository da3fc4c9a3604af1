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

function sqlState(value: unknown): string | undefined {
  const code = (value as { code?: unknown } | null | undefined)?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * A failure as it may be logged (lib/log.ts): our AppErrors give their code and sentence; anything
 * else only its kind, a database SQLSTATE, its cause's kind and where it was thrown, never its
 * message: a failed query's message quotes its parameters (drizzle's DrizzleQueryError), which can
 * be a session token, an amount or the hash of a secret, and JSON.parse quotes its input.
 */
export function failureFields(error: unknown): {
  error: string;
  code?: string;
  detail?: string;
  sqlstate?: string;
  cause?: string;
  at?: string[];
} {
  // By name too: Next bundles lib/errors.ts once per route, so an AppError thrown in a page is not
  // an instance of the class the logger's bundle holds.
  if (isAppError(error) || (error instanceof Error && error.name === "AppError"))
    return { error: error.name, code: String((error as AppError).code), detail: error.message };
  if (!(error instanceof Error)) return { error: typeof error };
  const sqlstate = sqlState(error) ?? sqlState(error.cause);
  const at = (error.stack ?? "")
    .split("\n")
    .filter((line) => line.startsWith("    at "))
    .slice(0, 5)
    .map((line) => line.trim().slice(3));
  return {
    error: error.name,
    ...(sqlstate ? { sqlstate } : {}),
    ...(error.cause instanceof Error ? { cause: error.cause.name } : {}),
    ...(at.length > 0 ? { at } : {}),
  };
}

/** Node socket errors that mean the database could not be reached or went away. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENOTFOUND",
]);

/**
 * True when `error` (or its cause) says the database is unreachable or overloaded rather than
 * that the request was wrong: connection failures (SQLSTATE class 08, Node socket errors), the
 * server shutting down or refusing connections (57P01–57P03, 53300), a statement cancelled by
 * our timeout (57014) or that gave up waiting for a lock (55P03), and the drivers' own timeouts and closed connections (Neon's HTTP mode: a
 * request that failed or was aborted, or a 5xx from its endpoint). Entry points answer
 * these 503 with Retry-After, everything else unexpected 500.
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 3) return false;
  const code = sqlState(error);
  if (
    code &&
    (code.startsWith("08") || ["57P01", "57P02", "57P03", "53300", "57014", "55P03"].includes(code))
  )
    return true;
  if (code && NETWORK_CODES.has(code)) return true;
  if (
    /timeout exceeded when trying to connect|Connection terminated|Query read timeout|connection timeout|Client has encountered a connection error|PGlite is closed|Error connecting to database|Server error \(HTTP status 5\d\d\)/i.test(
      error.message,
    )
  )
    return true;
  return isDatabaseUnavailable(error.cause, depth + 1);
}
