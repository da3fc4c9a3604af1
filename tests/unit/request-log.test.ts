/**
 * lib/request-log.ts on a real node HTTP server: each request gets an id (`x-vercel-id` when it
 * is well formed, else a UUID) sent back as `x-request-id`, and writes one JSON line when its
 * response closes, with the path but not the query, the status, the duration and the statements
 * counted while it ran. A request that started before the hook was installed (Next loads
 * instrumentation.ts while serving an instance's first request) still gets its line, marked
 * `cold_start`.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { log } from "@/lib/log";
import { countStatement, noteRequest } from "@/lib/request-context";
import { requestIdFrom, routeOf, watchHttpRequests } from "@/lib/request-log";

describe("the request log line", () => {
  const lines: Array<Record<string, unknown>> = [];
  let server: http.Server;
  let origin: string;

  beforeAll(async () => {
    vi.spyOn(console, "log").mockImplementation((text: unknown) => void lines.push(JSON.parse(String(text))));
    server = http.createServer(async (req, res) => {
      // As Next does: the first request loads the instrumentation while it is being served.
      watchHttpRequests();
      countStatement();
      countStatement();
      noteRequest({ mcp_method: "tools/call", tool: "list_accounts" });
      log.info("inside");
      await new Promise((r) => setTimeout(r, 5));
      res.writeHead(req.url?.startsWith("/missing") ? 404 : 200).end("ok");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    vi.restoreAllMocks();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const requestLines = () => lines.filter((line) => line.msg === "request");

  it("the first request, served while the hook was installed, is logged when it finishes, marked cold_start", async () => {
    const response = await fetch(`${origin}/api/health?token=secret`);
    await response.text();
    await vi.waitFor(() => expect(requestLines()).toHaveLength(1));
    expect(response.headers.get("x-request-id")).toBeNull();
    expect(requestLines()[0]).toMatchObject({
      method: "GET",
      route: "/api/health",
      status: 200,
      duration_ms: expect.any(Number),
      cold_start: true,
    });
  });

  it("later requests: an id sent back, one line with the path, status, duration, statements and notes", async () => {
    const response = await fetch(`${origin}/missing/page?email=someone%40example.test`, {
      headers: { "x-vercel-id": "iad1::abcde-1700000000000-0123456789ab" },
    });
    await response.text();
    expect(response.headers.get("x-request-id")).toBe("iad1::abcde-1700000000000-0123456789ab");
    await vi.waitFor(() => expect(requestLines()).toHaveLength(2));
    const line = requestLines()[1];
    expect(line).toEqual({
      time: expect.any(String),
      level: "info",
      msg: "request",
      request_id: "iad1::abcde-1700000000000-0123456789ab",
      method: "GET",
      route: "/missing/page",
      status: 404,
      duration_ms: expect.any(Number),
      statements: 2,
      mcp_method: "tools/call",
      tool: "list_accounts",
    });
    // A line written while serving it carries its id.
    expect(lines.filter((l) => l.msg === "inside").at(-1)?.request_id).toBe(line?.request_id);
    expect(JSON.stringify(lines)).not.toContain("someone");
  });

  it("request ids: x-vercel-id when it looks like one, else a new UUID", () => {
    expect(requestIdFrom("iad1::abcde-1700000000000-0123456789ab")).toBe(
      "iad1::abcde-1700000000000-0123456789ab",
    );
    for (const bad of [undefined, "", "a b", "x".repeat(200), ['{"json"}'], "<script>"])
      expect(requestIdFrom(bad as string | undefined)).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
      );
    expect(routeOf("/a/b?c=d#e")).toBe("/a/b");
    expect(routeOf(`/${"x".repeat(300)}`)).toHaveLength(201); // 200 and an ellipsis
  });
});
