/**
 * Clients that send their body slowly, or never, over real sockets to the MCP endpoint served on
 * HTTP: each is answered 408 with its connection closed once REQUEST_BODY_TIMEOUT_MS has passed,
 * and none of them holds one of its credential's slots meanwhile (a slot is taken once the body
 * has been read and parsed): with 20 of them open on one key, the same key's initialize and
 * tools/call are answered, and an invalid body gets its 400, not `503 Busy`. The slots exist on
 * a pooled database (PostgreSQL); the 408 is checked on both databases.
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetEnvCache } from "@/lib/env";
import { testDatabaseKind, useTestDatabase } from "../helpers/db";
import { createUserInState, initializeRequest, rpc, type StateUser } from "../helpers/mcp-client";
import { type ServedRoutes, serveRoutes } from "../helpers/serve";

const getDb = useTestDatabase();
const TIMEOUT_MS = 1_500;

interface SlowSender {
  /** Everything the server sent back. */
  received: () => string;
  /** Resolves when the server closed the connection. */
  closed: Promise<void>;
  destroy: () => void;
}

/** Opens a connection and sends a POST whose declared body never fully arrives. */
function slowSender(port: number, apiKey: string): SlowSender {
  const socket = net.connect({ host: "127.0.0.1", port });
  let received = "";
  socket.on("data", (chunk) => {
    received += chunk.toString("utf8");
  });
  socket.on("error", () => undefined);
  const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  const body = JSON.stringify(initializeRequest("2025-06-18"));
  socket.write(
    [
      "POST /api/mcp HTTP/1.1",
      `Host: 127.0.0.1:${port}`,
      `Authorization: Bearer ${apiKey}`,
      "Content-Type: application/json",
      "Accept: application/json, text/event-stream",
      `Content-Length: ${body.length}`,
      "",
      body.slice(0, 10),
    ].join("\r\n"),
  );
  return { received: () => received, closed, destroy: () => socket.destroy() };
}

describe("slow request bodies", () => {
  let server: ServedRoutes;
  let user: StateUser;
  const saved = process.env.REQUEST_BODY_TIMEOUT_MS;
  const senders: SlowSender[] = [];

  beforeAll(async () => {
    process.env.REQUEST_BODY_TIMEOUT_MS = String(TIMEOUT_MS);
    resetEnvCache();
    user = await createUserInState(getDb(), "active");
    server = await serveRoutes({ "/api/mcp": () => import("@/app/api/mcp/route") });
  });

  afterAll(async () => {
    for (const sender of senders) sender.destroy();
    await server?.close();
    if (saved === undefined) delete process.env.REQUEST_BODY_TIMEOUT_MS;
    else process.env.REQUEST_BODY_TIMEOUT_MS = saved;
    resetEnvCache();
  });

  it("a body that does not arrive in time: 408 and the connection closed", async () => {
    const sender = slowSender(server.port, user.apiKey);
    senders.push(sender);
    const started = Date.now();
    await sender.closed;
    const waited = Date.now() - started;
    expect(sender.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(sender.received().toLowerCase()).toContain("connection: close");
    expect(sender.received()).toContain("the body must arrive within");
    // Closed at the bound, not before it (with slack for a busy machine after it).
    expect(waited).toBeGreaterThanOrEqual(TIMEOUT_MS - 100);
  });

  it.runIf(testDatabaseKind() === "postgres")(
    "20 slow senders on one key hold none of its slots: its other requests are answered, a bad body gets 400",
    async () => {
      const slow = Array.from({ length: 20 }, () => slowSender(server.port, user.apiKey));
      senders.push(...slow);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const url = server.url("/api/mcp");
      const [initialize, call, invalid] = await Promise.all([
        rpc(url, initializeRequest("2025-06-18"), { apiKey: user.apiKey }),
        rpc(
          url,
          {
            jsonrpc: "2.0",
            id: 2,
            method: "tools/call",
            params: { name: "get_connection_status", arguments: {} },
          },
          { apiKey: user.apiKey, headers: { "mcp-protocol-version": "2025-06-18" } },
        ),
        rpc(url, "{ not json", { apiKey: user.apiKey }),
      ]);
      expect(initialize.status).toBe(200);
      expect(call.status).toBe(200);
      expect(call.text).not.toContain('"isError":true');
      expect(invalid.status).toBe(400);
      expect(invalid.body).toMatchObject({ error: { code: -32700 } });
      // None of the slow ones had been answered meanwhile; each gets its 408 at the bound.
      expect(slow.every((s) => s.received() === "")).toBe(true);
      await Promise.all(slow.map((s) => s.closed));
      for (const sender of slow) expect(sender.received()).toMatch(/^HTTP\/1\.1 408 /);
    },
  );
});
