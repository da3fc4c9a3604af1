/**
 * One log line per HTTP request, for every route (pages, route handlers, server actions, the MCP
 * endpoint): `{"msg":"request","request_id","method","route","status","duration_ms","statements",
 * …what the handler noted (mcp_method, tool, credential)}`.
 *
 * Next 16 has no hook around a request (instrumentation.ts offers `register` and
 * `onRequestError` only), so this listens where every request passes: Node's HTTP server, through
 * its documented diagnostics channel `http.server.request.start`, published just before the
 * server hands the request to Next. There it picks the request id (`x-vercel-id`, or a random
 * UUID), sends it back as `x-request-id`, and makes a request record current for everything the
 * request then runs (lib/request-context.ts). When the response closes, the line is written.
 * https://nodejs.org/api/diagnostics_channel.html#http
 *
 * The route is the path without its query (a query can carry a sign-in token or an email); the
 * client's address and headers are never logged.
 *
 * In production Next loads instrumentation.ts lazily, while serving an instance's first request:
 * that request started before anyone listened. Its line is written when its response finishes
 * (`http.server.response.finish`), marked `cold_start`, with its duration counted from when the
 * hook was installed (a little less than the truth) and without an `x-request-id` header or a
 * statement count, which only a record made at its start could have.
 */
import { randomUUID } from "node:crypto";
import diagnostics from "node:diagnostics_channel";
import type { IncomingMessage, ServerResponse } from "node:http";
import { log } from "@/lib/log";
import { enterRequest, type RequestRecord } from "@/lib/request-context";

/** The response header that carries the request id back. */
export const REQUEST_ID_HEADER = "x-request-id";

/** Vercel's id of the request (`iad1::abcde-1700000000000-0123456789ab`), when it looks like one. */
const VERCEL_ID = /^[A-Za-z0-9:_.-]{1,128}$/;

/** The request's id: the platform's `x-vercel-id` when present and well formed, else a new UUID. */
export function requestIdFrom(vercelId: string | string[] | undefined): string {
  return typeof vercelId === "string" && VERCEL_ID.test(vercelId) ? vercelId : randomUUID();
}

/** The path of a request target, without query or fragment, at most 200 characters. */
export function routeOf(target: string | undefined): string {
  const path = (target ?? "/").split(/[?#]/, 1)[0] ?? "/";
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
}

/** Responses whose request was seen starting; the others finish with a cold-start line. */
const seen = new WeakSet<ServerResponse>();
let installedAt = 0;

function onRequestStart(message: unknown): void {
  const { request, response } = message as { request: IncomingMessage; response: ServerResponse };
  seen.add(response);
  const started = performance.now();
  const record: RequestRecord = {
    id: requestIdFrom(request.headers["x-vercel-id"]),
    statements: 0,
    fields: {},
  };
  if (!response.headersSent) response.setHeader(REQUEST_ID_HEADER, record.id);
  enterRequest(record);
  response.once("close", () => {
    log.info("request", {
      request_id: record.id,
      method: request.method,
      route: routeOf(request.url),
      status: response.statusCode,
      duration_ms: Math.round(performance.now() - started),
      statements: record.statements,
      ...record.fields,
      // The client left before the whole answer was written.
      ...(response.writableFinished ? {} : { aborted: true }),
    });
  });
}

function onResponseFinish(message: unknown): void {
  const { request, response } = message as { request: IncomingMessage; response: ServerResponse };
  if (seen.has(response)) return;
  log.info("request", {
    request_id: requestIdFrom(request.headers["x-vercel-id"]),
    method: request.method,
    route: routeOf(request.url),
    status: response.statusCode,
    duration_ms: Math.round(performance.now() - installedAt),
    cold_start: true,
  });
}

const WATCHING = Symbol.for("ledgerlink.request-log");

/** Starts writing a line per request served by any HTTP server in this process (once per process). */
export function watchHttpRequests(): void {
  const holder = globalThis as { [WATCHING]?: boolean };
  if (holder[WATCHING]) return;
  holder[WATCHING] = true;
  installedAt = performance.now();
  diagnostics.subscribe("http.server.request.start", onRequestStart);
  diagnostics.subscribe("http.server.response.finish", onResponseFinish);
}
