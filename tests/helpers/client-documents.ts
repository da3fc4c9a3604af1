/**
 * A loopback web server that publishes client metadata documents and JWK Sets the way a
 * client's host does (chatgpt.com, vscode.dev, claude.ai), for tests: every path answers what
 * the test told it to (status, headers, body, a delay, a body that never ends), and every request
 * is counted. `useDocumentServer()` starts one for a test file and names its origin in
 * OAUTH_CIMD_TEST_ORIGINS, so the server fetches from it over plain http.
 *
 * `startConnectionCounter()` is a bare TCP listener on loopback that only counts connections:
 * the place a refused fetch must never reach.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import { afterAll, beforeAll } from "vitest";
import { resetEnvCache } from "@/lib/env";

export interface DocumentAnswer {
  status?: number;
  headers?: Record<string, string>;
  /** JSON-encoded unless a string. */
  body?: unknown;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Send the headers and part of the body, then never finish. */
  neverEnd?: boolean;
}

export interface DocumentServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  url(path: string): string;
  /** Answer `path` with `answer` from now on. */
  publish(path: string, answer: DocumentAnswer): void;
  /** How many requests `path` has had. */
  hits(path: string): number;
  close(): Promise<void>;
}

export async function startDocumentServer(): Promise<DocumentServer> {
  const answers = new Map<string, DocumentAnswer>();
  const counts = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const answer = answers.get(path);
    if (!answer) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    const send = () => {
      const body =
        answer.body === undefined
          ? ""
          : typeof answer.body === "string"
            ? answer.body
            : JSON.stringify(answer.body);
      res.writeHead(answer.status ?? 200, { "content-type": "application/json", ...answer.headers });
      if (answer.neverEnd) {
        res.write(body.slice(0, 1));
        return;
      }
      res.end(body);
    };
    if (answer.delayMs) setTimeout(send, answer.delayMs);
    else send();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    url: (path) => `${origin}${path}`,
    publish: (path, answer) => answers.set(path, answer),
    hits: (path) => counts.get(path) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Starts a document server for the file and allows its origin in OAUTH_CIMD_TEST_ORIGINS. */
export function useDocumentServer(): () => DocumentServer {
  let server: DocumentServer | undefined;
  const saved = process.env.OAUTH_CIMD_TEST_ORIGINS;
  beforeAll(async () => {
    server = await startDocumentServer();
    process.env.OAUTH_CIMD_TEST_ORIGINS = server.origin;
    resetEnvCache();
  });
  afterAll(async () => {
    await server?.close();
    if (saved === undefined) delete process.env.OAUTH_CIMD_TEST_ORIGINS;
    else process.env.OAUTH_CIMD_TEST_ORIGINS = saved;
    resetEnvCache();
  });
  return () => {
    if (!server) throw new Error("document server not started yet");
    return server;
  };
}

/** A TCP listener on 127.0.0.1 that accepts and counts connections, and says nothing. */
export async function startConnectionCounter(): Promise<{
  port: number;
  connections: () => number;
  close: () => Promise<void>;
}> {
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
