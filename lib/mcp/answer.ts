/**
 * The MCP endpoint's own HTTP answers (what it refuses before or around the SDK) and the shape an
 * SDK answer takes once read whole. Both protocol eras use them.
 */

/** A JSON-RPC id, or null where no single request's id could be read (JSON-RPC 2.0 §5). */
export type JsonRpcId = string | number | null;

/** An answer read whole: a stateless exchange's stream ends once its responses are written. */
export interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

/** A JSON-RPC error as an HTTP answer of `status`. */
export function jsonRpcError(
  status: number,
  code: number,
  message: string,
  options: { id?: JsonRpcId; headers?: HeadersInit } = {},
): Response {
  return Response.json(
    { jsonrpc: "2.0", error: { code, message }, id: options.id ?? null },
    { status, headers: options.headers },
  );
}

/** Reads a Response whole (the SDK's answers end once their last message is written). */
export async function readWhole(response: Response): Promise<Answer> {
  return { status: response.status, headers: response.headers, text: await response.text() };
}

export function toResponse(answer: Answer): Response {
  return new Response(answer.text, { status: answer.status, headers: answer.headers });
}
