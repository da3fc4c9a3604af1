/**
 * The icons the 2026-07-28 era lists (the server's in `server/discover`, each tool's in
 * `tools/list`): absolute URLs on APP_URL's origin, each naming a file under public/ (which
 * Next serves from that origin: tests/e2e/icons.test.ts fetches them from the production build),
 * an SVG and a 64-px PNG per icon, all different from each other. The 2025 era lists none.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { z } from "zod";
import { useTestDatabase } from "../helpers/db";
import {
  createUserInState,
  initializeRequest,
  modernRequest,
  rpc,
  type StateUser,
  TOOL_NAMES,
} from "../helpers/mcp-client";
import { type ServedRoutes, serveRoutes } from "../helpers/serve";

const getDb = useTestDatabase();
const PUBLIC = path.resolve(import.meta.dirname, "../../public");

let server: ServedRoutes;
let url: string;
let user: StateUser;

beforeAll(async () => {
  server = await serveRoutes({ "/api/mcp": () => import("@/app/api/mcp/route") });
  url = server.url("/api/mcp");
  user = await createUserInState(getDb(), "active");
});

afterAll(async () => {
  await server?.close();
});

const iconSchema = z.object({ src: z.string(), mimeType: z.string(), sizes: z.array(z.string()) });

async function modernResult(method: string): Promise<Record<string, unknown>> {
  const { body, headers } = modernRequest(method);
  const answer = await rpc(url, body, { apiKey: user.apiKey, headers, accept: "application/json" });
  expect(answer.status, answer.text).toBe(200);
  return z.object({ result: z.record(z.string(), z.unknown()) }).parse(answer.body).result;
}

/** The width and height a PNG's IHDR chunk states. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  expect(bytes.subarray(12, 16).toString("ascii")).toBe("IHDR");
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

it("the server and each of the 12 tools list an SVG and a 64-px PNG served from our origin's public/", async () => {
  const discover = await modernResult("server/discover");
  const serverInfo = z
    .object({ name: z.literal("ledgerlink"), icons: z.array(iconSchema) })
    .parse((discover._meta as Record<string, unknown>)["io.modelcontextprotocol/serverInfo"]);
  const { tools } = z
    .object({ tools: z.array(z.object({ name: z.string(), icons: z.array(iconSchema) })) })
    .parse(await modernResult("tools/list"));
  expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES);

  const digests = new Set<string>();
  for (const [owner, icons] of [
    ["server", serverInfo.icons] as const,
    ...tools.map((t) => [t.name, t.icons] as const),
  ]) {
    expect(
      icons.map((i) => [i.mimeType, i.sizes]),
      owner,
    ).toEqual([
      ["image/svg+xml", ["any"]],
      ["image/png", ["64x64"]],
    ]);
    for (const icon of icons) {
      const src = new URL(icon.src);
      expect(src.origin, icon.src).toBe(server.origin);
      expect(src.pathname, icon.src).toMatch(/^\/icons\/[a-z_/]+\.(svg|png)$/);
      const bytes = readFileSync(path.join(PUBLIC, src.pathname));
      digests.add(createHash("sha256").update(bytes).digest("hex"));
      if (icon.mimeType === "image/png") expect(pngSize(bytes), icon.src).toEqual({ width: 64, height: 64 });
      else {
        const text = bytes.toString("utf8");
        expect(text, icon.src).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 64 64">/);
        expect(text, icon.src).toMatch(/<title>[^<]+<\/title>/);
      }
    }
  }
  // 13 icons, each its own drawing in both formats.
  expect(digests.size).toBe(26);
});

it("the 2025 era lists no icons: initialize's serverInfo and tools/list are as they were", async () => {
  const init = await rpc(url, initializeRequest("2025-06-18"), {
    apiKey: user.apiKey,
    accept: "application/json",
  });
  expect((init.body as { result: { serverInfo: unknown } }).result.serverInfo).toEqual({
    name: "ledgerlink",
    version: "1.0.0",
  });
  const list = await rpc(
    url,
    { jsonrpc: "2.0", id: 2, method: "tools/list" },
    { apiKey: user.apiKey, accept: "application/json", headers: { "mcp-protocol-version": "2025-06-18" } },
  );
  expect(list.text).not.toContain('"icons"');
  expect(list.text).not.toContain("/icons/");
});
