/**
 * The 2025 era: `initialize` negotiates 2025-06-18 (asked for 2025-06-18 or anything newer),
 * 2025-03-26 or 2024-11-05, and every request is served by a fresh server over the SDK's
 * stateless streamable HTTP transport (what its `createMcpHandler` does for 2025-era traffic).
 * Exactly as before the 2026-07-28 era arrived, with one change: a header naming any revision we
 * know is served (some clients send the newest one after negotiating down).
 * https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#streamable-http
 */
import {
  type AuthInfo,
  type McpServer,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { type Answer, jsonRpcError } from "./answer";
import { buildMcpServer, type ServerProfile } from "./build-server";
import type { ToolDefinition } from "./define-tool";
import type { Era } from "./era";

/**
 * The revisions `initialize` negotiates, preferred first. A client asking for one of them gets
 * it back; any other request gets the first (2025-06-18, service-interface.md §9). 2025-11-25 is
 * never offered: its vocabulary (icons, tasks) is the 2026-07-28 era's.
 */
export const NEGOTIATED_PROTOCOL_VERSIONS = ["2025-06-18", "2025-03-26", "2024-11-05"] as const;

/** Every revision this server knows: a 2025-era request whose header names one of them is served. */
export const KNOWN_PROTOCOL_VERSIONS = [
  "2026-07-28",
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
] as const;

const PROFILE: ServerProfile = {
  protocolVersions: NEGOTIATED_PROTOCOL_VERSIONS,
  icons: false,
  listChanged: true,
};

/** Most messages in one JSON-RPC batch (revisions before 2025-06-18 only). */
export const MAX_BATCH_MESSAGES = 20;

/** 400 for an `MCP-Protocol-Version` header naming no revision we know. */
function versionRejection(req: Request): Response | undefined {
  const version = req.headers.get("mcp-protocol-version")?.trim();
  if (version === undefined || (KNOWN_PROTOCOL_VERSIONS as readonly string[]).includes(version))
    return undefined;
  return jsonRpcError(
    400,
    -32000,
    `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(version)} (supported: ${KNOWN_PROTOCOL_VERSIONS.join(", ")})`,
  );
}

/**
 * 2025-06-18 removed JSON-RPC batching: a batch under it (or a later revision) is an invalid
 * request. Older revisions allow it, bounded here so one request cannot carry an unbounded amount
 * of work. A request without the version header is `initialize` or a client of 2025-03-26 (the
 * spec's default).
 */
function batchRejection(req: Request, size: number): Response | undefined {
  const invalid = (message: string) => jsonRpcError(400, -32600, `Invalid Request: ${message}`);
  const version = req.headers.get("mcp-protocol-version")?.trim();
  if (version !== undefined && version >= "2025-06-18")
    return invalid(`JSON-RPC batches are not part of MCP ${version}; send one message per request.`);
  if (size === 0) return invalid("the batch is empty.");
  if (size > MAX_BATCH_MESSAGES)
    return invalid(`a batch holds at most ${MAX_BATCH_MESSAGES} messages; this one has ${size}.`);
  return undefined;
}

/** True when `Accept` admits JSON but not an event stream (e.g. `application/json`). */
export function acceptsJsonOnly(accept: string | null): boolean {
  if (!accept) return false;
  const types = accept
    .split(",")
    .map((part) => part.split(";"))
    .filter(([, ...params]) => !params.some((p) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(p)))
    .map(([type]) => (type ?? "").trim().toLowerCase());
  const json = types.includes("application/json") || types.includes("application/*") || types.includes("*/*");
  return json && !types.includes("text/event-stream");
}

/**
 * Collapses an SSE answer into one JSON body: the JSON-RPC response it carries (for a batch, the
 * array of its responses). Stateless requests here never stream notifications, so the stream
 * holds only those responses.
 */
function sseToJson(answer: Answer, batch: boolean): Answer {
  const type = answer.headers.get("content-type") ?? "";
  if (!type.startsWith("text/event-stream")) return answer;
  const answers: unknown[] = [];
  for (const event of answer.text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).replace(/^ /, ""))
      .join("\n");
    if (!data) continue;
    try {
      const message: unknown = JSON.parse(data);
      if (message && typeof message === "object" && ("result" in message || "error" in message))
        answers.push(message);
    } catch {
      // not a JSON-RPC message (keep-alive comment or similar)
    }
  }
  if (answers.length === 0)
    return {
      status: 500,
      headers: new Headers({ "content-type": "application/json" }),
      text: JSON.stringify({
        jsonrpc: "2.0",
        error: { code: -32603, message: "Internal error: no response was produced" },
        id: null,
      }),
    };
  const headers = new Headers(answer.headers);
  headers.set("content-type", "application/json");
  headers.delete("content-length");
  return { status: answer.status, headers, text: JSON.stringify(batch ? answers : answers.at(-1)) };
}

/**
 * Serves one request through the SDK's stateless streamable HTTP transport and reads the answer
 * whole: the stream of a stateless exchange ends once every response is written, so the answer
 * leaves as one body instead of passing through layers of streams. Nothing is left to close
 * afterwards: the transport ended its stream and cleared its timers when it wrote the last
 * response, and the server and transport live for this exchange only. A client that leaves
 * closes the transport, which aborts the running handlers.
 */
async function exchange(
  server: McpServer,
  req: Request,
  message: unknown,
  authInfo: AuthInfo,
): Promise<Answer> {
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  // The server gave the transport the revisions it negotiates; the header may name any we know
  // (checked before, versionRejection).
  transport.setSupportedProtocolVersions([...KNOWN_PROTOCOL_VERSIONS]);
  const leave = () => void transport.close().catch(() => undefined);
  req.signal.addEventListener("abort", leave, { once: true });
  try {
    const response = await transport.handleRequest(req, { authInfo, parsedBody: message });
    return { status: response.status, headers: response.headers, text: await response.text() };
  } finally {
    req.signal.removeEventListener("abort", leave);
  }
}

/**
 * `tools/list` answers the same to every caller: the SDK's answer for a revision, made once per
 * endpoint with a placeholder id, is split at that id and given to later requests with theirs.
 * Only a plain request takes this path (one message, `jsonrpc` 2.0, a string or integer id, no
 * params but an empty object); anything else goes to the SDK, which validates it. The listing is
 * this era's own: the 2026-07-28 era's answers (icons, cache hints, `_meta`) are the SDK's, made
 * for each request.
 */
const LISTING_ID = "ledgerlink-listing-placeholder-id";
interface Listing {
  status: number;
  headers: Headers;
  parts: [string, string];
}
function isPlainToolsList(message: unknown): message is { id: string | number } {
  if (message === null || typeof message !== "object" || Array.isArray(message)) return false;
  const { jsonrpc, id, method, params, ...rest } = message as Record<string, unknown>;
  return (
    jsonrpc === "2.0" &&
    method === "tools/list" &&
    Object.keys(rest).length === 0 &&
    (typeof id === "string" || Number.isSafeInteger(id)) &&
    (params === undefined ||
      (params !== null && typeof params === "object" && Object.keys(params).length === 0))
  );
}

function fromListing(listing: Listing, id: string | number): Answer {
  return {
    status: listing.status,
    headers: new Headers(listing.headers),
    text: listing.parts.join(JSON.stringify(id)),
  };
}

/** The listing made from one answer of the SDK with the placeholder id, when it is one. */
function listingOf(answer: Answer): Listing | undefined {
  const parts = answer.text.split(JSON.stringify(LISTING_ID));
  if (answer.status !== 200 || parts.length !== 2 || !answer.text.includes('"result"')) return undefined;
  return { status: answer.status, headers: answer.headers, parts: parts as [string, string] };
}

/** The 2025 era of an endpoint serving `tools`. */
export function createEra2025(tools: readonly ToolDefinition[]): Era {
  const buildServer = () => buildMcpServer(PROFILE, tools);

  /** The listings of this endpoint's tools, per revision and answer type. */
  const listings = new Map<string, Listing>();

  /** The SDK's answer to `message`; a plain `tools/list` from the listing of its revision. */
  async function answer(req: Request, message: unknown, authInfo: AuthInfo, key: string): Promise<Answer> {
    if (!isPlainToolsList(message)) return exchange(buildServer(), req, message, authInfo);
    const known = listings.get(key);
    if (known) return fromListing(known, message.id);
    const answered = await exchange(buildServer(), req, { ...message, id: LISTING_ID }, authInfo);
    const listing = listingOf(answered);
    if (!listing) return exchange(buildServer(), req, message, authInfo);
    listings.set(key, listing);
    return fromListing(listing, message.id);
  }

  return {
    refuseEarly: (req) => versionRejection(req),

    admit(req, request) {
      if (!Array.isArray(request.message)) return { cost: 1 };
      const refusal = batchRejection(req, request.messages);
      return refusal ? { cost: 1, refusal } : { cost: request.messages };
    },

    async serve(req, request, authInfo) {
      const wantsJsonOnly = acceptsJsonOnly(req.headers.get("accept"));
      // The SDK's stateless transport always streams and insists on both types; a JSON-only
      // client gets the same single answer unwrapped from the stream.
      let forwarded = req;
      if (wantsJsonOnly) {
        const headers = new Headers(req.headers);
        headers.set("accept", "application/json, text/event-stream");
        forwarded = new Request(req.url, { method: "POST", headers, signal: req.signal });
      }
      const version = req.headers.get("mcp-protocol-version")?.trim() ?? "";
      const served = await answer(forwarded, request.message, authInfo, `${version} ${wantsJsonOnly}`);
      return wantsJsonOnly ? sseToJson(served, Array.isArray(request.message)) : served;
    },
  };
}
