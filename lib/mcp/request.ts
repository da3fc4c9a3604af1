/**
 * What the endpoint knows of one MCP request once its body is read: the protocol era that
 * serves it, and the method, tool and protocol revision it names. This is the ONE place a
 * request's era is decided (`decideEra`); everything after it looks its era up by name and never
 * asks again. Logs and traces read a request's method, tool and revision from `McpRequest`.
 *
 * The rule (product.md, "Protocol revisions"): a request belongs to the 2026-07-28 era when it is
 * `server/discover` or its body carries the 2026-07-28 per-request `_meta`; any other request is
 * a 2025-era request. The body decides, as the SDK's own classifier does when it is given the
 * body alone: a 2025 client that sends `MCP-Protocol-Version: 2026-07-28` after negotiating
 * 2025-06-18 (a known client bug) stays a 2025 client. Each era then checks the headers its own
 * way: the 2025 era serves any revision we know (era-2025.ts), the SDK's 2026-07-28 path checks
 * them against the body (-32020).
 * https://modelcontextprotocol.io/specification/2026-07-28/basic/transports
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  classifyInboundRequest,
  isJSONRPCNotification,
  isJSONRPCRequest,
  PROTOCOL_VERSION_META_KEY,
} from "@modelcontextprotocol/server";
import { getEnv } from "@/lib/env";
import { REQUEST_TIMEOUT_HEADERS, readBodyWithin } from "@/lib/request-body";
import { type JsonRpcId, jsonRpcError } from "./answer";

/** The protocol eras one endpoint serves. */
export type EraName = "2025" | "2026-07-28";

/** Largest request body accepted (a tools/call is a few hundred bytes). */
export const MAX_BODY_BYTES = 256 * 1024;

export interface McpRequest {
  era: EraName;
  /** The parsed body; undefined when it could not be read (`bodyError`). */
  message: unknown;
  /** 400 (unreadable, not JSON) or 413 (over MAX_BODY_BYTES), answered once the caller is counted. */
  bodyError?: Response;
  /** 408 when the body did not arrive within REQUEST_BODY_TIMEOUT_MS: answered at once, the connection closed. */
  timedOut?: Response;
  /** The JSON-RPC method of a single message (a batch has none). */
  method?: string;
  /** The tool a `tools/call` names. */
  toolName?: string;
  /**
   * The protocol revision the request names: the per-request `_meta` claim (2026-07-28), else
   * the `MCP-Protocol-Version` header, else what an `initialize` asks for.
   */
  protocolVersion?: string;
  /** The id the endpoint's own errors carry: the request's in 2026-07-28, null as ever in 2025. */
  errorId: JsonRpcId;
  /** Messages in the body: a batch (2025 era, before 2025-06-18) counts each against the rate limit. */
  messages: number;
}

/** Reads and parses the body (bounded, no database work) and decides the request's era. */
export async function readMcpRequest(req: Request): Promise<McpRequest> {
  // Within a deadline: the endpoint reads the body before it takes the credential's slot, and a
  // client sending it slowly must hold nothing for longer than this.
  const timeoutMs = getEnv().REQUEST_BODY_TIMEOUT_MS;
  const read = await readBodyWithin(req, { maxBytes: MAX_BODY_BYTES, timeoutMs });
  if (read.kind === "timed_out") {
    const timedOut = jsonRpcError(
      408,
      -32000,
      `Request Timeout: the body must arrive within ${timeoutMs / 1000} s`,
      {
        headers: REQUEST_TIMEOUT_HEADERS,
      },
    );
    return { ...unreadable(req, timedOut), timedOut };
  }
  if (read.kind === "failed")
    return unreadable(req, jsonRpcError(400, -32700, "Parse error: the request body could not be read"));
  if (read.kind === "too_large")
    return unreadable(
      req,
      jsonRpcError(413, -32000, `Payload Too Large: the body must not exceed ${MAX_BODY_BYTES} bytes`),
    );
  let message: unknown;
  try {
    message = JSON.parse(read.text);
  } catch {
    return unreadable(req, jsonRpcError(400, -32700, "Parse error: the request body is not valid JSON"));
  }
  return describe(req, message);
}

/** A body that could not be read is a 2025-era request (as the SDK routes one), answered with `error`. */
function unreadable(req: Request, error: Response): McpRequest {
  return { ...describe(req, undefined), bodyError: error };
}

function describe(req: Request, message: unknown): McpRequest {
  const era = decideEra(message);
  const single = isJSONRPCRequest(message) || isJSONRPCNotification(message) ? message : undefined;
  const params = single?.params as Record<string, unknown> | undefined;
  const header = req.headers.get("mcp-protocol-version")?.trim() || undefined;
  const claimed = params?._meta as Record<string, unknown> | undefined;
  const claimedVersion = claimed?.[PROTOCOL_VERSION_META_KEY];
  const asked = single?.method === "initialize" ? params?.protocolVersion : undefined;
  const id: JsonRpcId = isJSONRPCRequest(single) ? single.id : null;
  return {
    era,
    message,
    method: single?.method,
    toolName: single?.method === "tools/call" && typeof params?.name === "string" ? params.name : undefined,
    protocolVersion:
      era === "2026-07-28" && typeof claimedVersion === "string"
        ? claimedVersion
        : (header ?? (typeof asked === "string" ? asked : undefined)),
    errorId: era === "2026-07-28" ? id : null,
    messages: Array.isArray(message) ? message.length : 1,
  };
}

/**
 * THE era decision. The SDK's classifier, given the body alone, finds the 2026-07-28 per-request
 * `_meta` claim (its protocol version): a request carrying it is modern, so is one whose claim is
 * malformed and a batch holding one (the SDK refuses both, -32602 and -32600). So is a `_meta`
 * holding the envelope's other keys without the claim, an incomplete envelope no 2025 client
 * sends (the SDK says what is missing), and `server/discover` with or without any (without, the
 * SDK answers which revisions it serves).
 */
export function decideEra(message: unknown): EraName {
  const outcome = classifyInboundRequest({ httpMethod: "POST", body: message });
  const claimed =
    outcome.kind === "modern" ||
    (outcome.kind === "reject" &&
      (outcome.rung === "envelope" || outcome.cell === "batch-with-modern-element"));
  const discover = isJSONRPCRequest(message) && message.method === "server/discover";
  return claimed || discover || carriesEnvelopeKeys(message) ? "2026-07-28" : "2025";
}

const ENVELOPE_KEYS = [PROTOCOL_VERSION_META_KEY, CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY];

/** Whether the message's `_meta` holds any key of the 2026-07-28 per-request envelope. */
function carriesEnvelopeKeys(message: unknown): boolean {
  if (message === null || typeof message !== "object" || Array.isArray(message)) return false;
  const params = (message as { params?: unknown }).params;
  const meta =
    params !== null && typeof params === "object" ? (params as { _meta?: unknown })._meta : undefined;
  return meta !== null && typeof meta === "object" && ENVELOPE_KEYS.some((key) => key in meta);
}
