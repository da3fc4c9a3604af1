/**
 * A request body read within bounds of size AND time. A client that sends its headers and then
 * its body slowly (or never) would otherwise hold whatever the handler took before reading it;
 * here it is given `timeoutMs` from the start of the read, then answered 408 and its connection
 * closed (RFC 9110 §15.5.9: a server that closes after 408 says so with `Connection: close`).
 */

export type BodyRead =
  | { kind: "read"; text: string }
  | { kind: "too_large" }
  | { kind: "timed_out" }
  /** The client went away or the stream broke. */
  | { kind: "failed" };

/**
 * Reads `request`'s body as UTF-8 text: `too_large` beyond `maxBytes` (declared or actual; reading
 * stops there), `timed_out` when the whole body has not arrived `timeoutMs` after the read began
 * (the stream is cancelled: nothing more is read).
 */
export async function readBodyWithin(
  request: Request,
  options: { maxBytes: number; timeoutMs: number },
): Promise<BodyRead> {
  if (Number(request.headers.get("content-length") ?? "0") > options.maxBytes) return { kind: "too_large" };
  if (!request.body) return { kind: "read", text: "" };
  const reader = request.body.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"timed_out">((resolve) => {
    timer = setTimeout(() => resolve("timed_out"), options.timeoutMs);
  });
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), deadline]);
      if (next === "timed_out") {
        void reader.cancel().catch(() => undefined);
        return { kind: "timed_out" };
      }
      if (next.done) break;
      size += next.value.byteLength;
      if (size > options.maxBytes) {
        void reader.cancel().catch(() => undefined);
        return { kind: "too_large" };
      }
      chunks.push(next.value);
    }
  } catch {
    return { kind: "failed" };
  } finally {
    clearTimeout(timer);
  }
  return { kind: "read", text: Buffer.concat(chunks).toString("utf8") };
}

/** The headers of a 408: the connection is closed after it, so a slow sender's socket is let go. */
export const REQUEST_TIMEOUT_HEADERS = { Connection: "close" } as const;
