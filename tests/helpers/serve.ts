/**
 * Mounts real Next.js route handler modules (`export async function POST(req: Request)` …) on a
 * node `http` server on 127.0.0.1 with an ephemeral port, inside the test process, so the test
 * owns the database (useTestDatabase()) and drives the routes over real HTTP.
 *
 * ```ts
 * const server = await serveRoutes({
 *   "/api/mcp": () => import("@/app/api/mcp/route"),
 *   "/.well-known/oauth-protected-resource": () => import("@/app/.well-known/oauth-protected-resource/route"),
 * });
 * // server.url("/api/mcp") → "http://127.0.0.1:54321/api/mcp"
 * await server.close();
 * ```
 *
 * - Routes match the request path exactly (query strings are passed through, never matched).
 *   A path that is not mounted answers 404; a method the module does not export answers 405.
 * - Modules may be given as loaders (`() => import(...)`). They are loaded on the first request,
 *   AFTER `serveRoutes` has set `process.env.APP_URL` to the server's origin (unless
 *   `setAppUrl: false`) and reset the env cache, so code that reads APP_URL at import time sees
 *   the test server. Pass modules already imported only if they read the env lazily.
 * - The WHATWG Request gets the full URL built from the listening address, all headers, the
 *   body as a stream, and an AbortSignal that fires when the client goes away. The Response body
 *   is streamed back chunk by chunk (SSE works).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { settleDeferred } from "@/lib/deferred";
import { resetEnvCache } from "@/lib/env";

type Handler = (req: Request) => Response | Promise<Response>;
export type RouteModule = Partial<
  Record<"GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS" | "HEAD", unknown>
>;
export type ModuleSource = RouteModule | (() => Promise<RouteModule>);

export interface ServedRoutes {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
  /** Absolute URL of `path` on this server. */
  url(path: string): string;
  close(): Promise<void>;
}

export interface ServeOptions {
  /** Set process.env.APP_URL to this server's origin (default true). */
  setAppUrl?: boolean;
}

function isHandler(value: unknown): value is Handler {
  return typeof value === "function";
}

/** Starts the server; see the file comment. */
export async function serveRoutes(
  routes: Record<string, ModuleSource>,
  options: ServeOptions = {},
): Promise<ServedRoutes> {
  const loaded = new Map<string, Promise<RouteModule>>();
  const load = (path: string): Promise<RouteModule> | undefined => {
    const source = routes[path];
    if (source === undefined) return undefined;
    let module = loaded.get(path);
    if (!module) {
      module = typeof source === "function" ? source() : Promise.resolve(source);
      loaded.set(path, module);
    }
    return module;
  };

  let origin = "";
  const server = http.createServer(async (nodeReq, nodeRes) => {
    const controller = new AbortController();
    nodeRes.on("close", () => {
      if (!nodeRes.writableFinished) controller.abort();
    });
    try {
      const url = new URL(nodeReq.url ?? "/", origin);
      const modulePromise = load(url.pathname);
      if (!modulePromise) {
        nodeRes.writeHead(404, { "content-type": "text/plain" }).end("Not found");
        return;
      }
      const module = await modulePromise;
      const method = (nodeReq.method ?? "GET").toUpperCase() as keyof RouteModule;
      const handler = module[method];
      if (!isHandler(handler)) {
        nodeRes.writeHead(405, { "content-type": "text/plain" }).end("Method not allowed");
        return;
      }
      const headers = new Headers();
      for (const [name, value] of Object.entries(nodeReq.headers)) {
        if (value === undefined) continue;
        for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
      }
      const hasBody = method !== "GET" && method !== "HEAD";
      const request = new Request(url, {
        method,
        headers,
        body: hasBody ? (Readable.toWeb(nodeReq) as ReadableStream<Uint8Array>) : undefined,
        signal: controller.signal,
        // Required by undici for a streamed request body.
        ...(hasBody ? { duplex: "half" } : {}),
      } as RequestInit);
      const response = await handler(request);
      // The client is gone: like `next start`, leave the answer unread (the handler must not
      // depend on its body being read or cancelled to free what it holds).
      if (controller.signal.aborted) return;
      const outHeaders: Record<string, string | string[]> = {};
      response.headers.forEach((value, name) => {
        if (name === "set-cookie") return;
        outHeaders[name] = value;
      });
      // A handler that answered without reading the whole body (413 …) leaves bytes on the socket:
      // close it, so the client does not reuse a connection node is about to reset.
      if (hasBody && !nodeReq.complete) outHeaders.connection = "close";
      const cookies = response.headers.getSetCookie();
      if (cookies.length > 0) outHeaders["set-cookie"] = cookies;
      nodeRes.writeHead(response.status, response.statusText, outHeaders);
      if (!response.body || method === "HEAD") {
        await settleDeferred();
        nodeRes.end();
        return;
      }
      const reader = response.body.getReader();
      nodeRes.on("close", () => void reader.cancel().catch(() => {}));
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        nodeRes.write(value);
      }
      // Work deferred until after the answer (lib/deferred.ts: the activity row …) has run by the
      // time the client sees the response end, so tests can read its effects at once.
      await settleDeferred();
      nodeRes.end();
    } catch (error) {
      console.error("serveRoutes: handler threw", error);
      if (!nodeRes.headersSent) nodeRes.writeHead(500, { "content-type": "text/plain" });
      nodeRes.end("Internal error");
    }
  });

  // Tests may idle longer than node's 5 s default between requests; a socket closed by the server
  // while the client reuses it would surface as ECONNRESET.
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  if (options.setAppUrl !== false) {
    process.env.APP_URL = origin;
    resetEnvCache();
  }

  return {
    origin,
    port,
    url: (path) => new URL(path, origin).toString(),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
