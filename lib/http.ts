/**
 * HTTP pieces shared by the route handlers:
 * - `notAllowed(...)`: Next answers a method a route does not export with a bare 405 (no
 *   `Allow`); each route exports this for the other methods, so every 405 names what the route
 *   accepts (RFC 9110 §15.5.6);
 * - `readBodyText`: a body read that stops at MAX_BODY_BYTES (413 before parsing);
 * - `unavailable`: the 503 with Retry-After every surface answers when the database is down.
 */
import { isDatabaseUnavailable } from "@/lib/errors";

/** Largest body any endpoint reads (webhooks and JSON APIs; the MCP endpoint has its own, smaller one). */
export const MAX_BODY_BYTES = 1024 * 1024;

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
type Method = (typeof METHODS)[number];

/** A handler answering 405 with `Allow` listing `allowed` (HEAD comes with GET). */
export function notAllowed(...allowed: Method[]): () => Response {
  const allow = allowed.includes("GET") ? [...allowed, "HEAD"] : allowed;
  return () =>
    Response.json(
      { error: "method_not_allowed", error_description: `This endpoint accepts ${allowed.join(", ")} only.` },
      { status: 405, headers: { Allow: allow.join(", ") } },
    );
}

/**
 * The body as text, or null when it exceeds `maxBytes` (declared or actual): reading stops there,
 * so an oversized body is never buffered whole.
 */
export async function readBodyText(request: Request, maxBytes = MAX_BODY_BYTES): Promise<string | null> {
  if (Number(request.headers.get("content-length") ?? "0") > maxBytes) return null;
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** 413 in the JSON shape of the route handlers. */
export function tooLarge(maxBytes = MAX_BODY_BYTES): Response {
  return Response.json(
    { error: "too_large", message: `The body must not exceed ${maxBytes} bytes.` },
    { status: 413 },
  );
}

/** 503 + Retry-After when `error` says the database is unreachable; null for any other error. */
export function unavailable(error: unknown, retryAfterSeconds = 5): Response | null {
  if (!isDatabaseUnavailable(error)) return null;
  return Response.json(
    { error: "unavailable", message: "The service is briefly unavailable. Please retry in a few seconds." },
    { status: 503, headers: { "Retry-After": String(retryAfterSeconds) } },
  );
}
