/**
 * HTTP answers shared by the route handlers. Next answers a method a route does not export with a
 * bare 405 (no `Allow`); each route exports `notAllowed(...)` for the other methods instead, so
 * every 405 names what the route accepts (RFC 9110 §15.5.6).
 */

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
