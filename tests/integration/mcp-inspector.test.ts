/**
 * The official MCP Inspector CLI lists the tools of the real route, authenticated by header.
 * Pinned to @modelcontextprotocol/inspector 1.0.3: the newest whose CLI runs on Node 20 (2.x
 * pulls undici 8 and commander 15, which need Node ≥ 22.12/22.19; 1.0.3's `engines` says 22 only
 * because of its web UI, its CLI and dependencies run on Node 20).
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { z } from "zod";
import { useTestDatabase } from "../helpers/db";
import { createUserInState, type StateUser } from "../helpers/mcp-client";
import { type ServedRoutes, serveRoutes } from "../helpers/serve";

const getDb = useTestDatabase();

let server: ServedRoutes;
let active: StateUser;

beforeAll(async () => {
  server = await serveRoutes({ "/api/mcp": () => import("@/app/api/mcp/route") });
  active = await createUserInState(getDb(), "active");
});

afterAll(async () => {
  await server?.close();
});

function runInspector(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const bin = path.resolve(process.cwd(), "node_modules/.bin/mcp-inspector");
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, {
      env: { ...process.env, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill("SIGTERM"), 90_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The JSON document the CLI prints (after any banner lines). */
function jsonOf(stdout: string): unknown {
  const start = stdout.indexOf("{");
  if (start < 0) throw new Error(`no JSON in inspector output: ${stdout.slice(0, 500)}`);
  return JSON.parse(stdout.slice(start));
}

/** The CLI arguments for tools/list over streamable HTTP against our endpoint. */
const toolsListArgs = () => [
  "--cli",
  server.url("/api/mcp"),
  "--transport",
  "http",
  "--method",
  "tools/list",
];

it("inspector --cli --transport http lists the 12 tools with the key in a header", async () => {
  const { code, stdout, stderr } = await runInspector([
    ...toolsListArgs(),
    "--header",
    `Authorization: Bearer ${active.apiKey}`,
  ]);
  expect(code, stderr).toBe(0);
  const { tools } = z
    .object({
      tools: z.array(z.object({ name: z.string(), annotations: z.object({ readOnlyHint: z.boolean() }) })),
    })
    .parse(jsonOf(stdout));
  expect(tools).toHaveLength(12);
  expect(tools.every((t) => t.annotations.readOnlyHint)).toBe(true);
}, 120_000);

it("inspector without the header is refused (401)", async () => {
  const { code, stdout, stderr } = await runInspector(toolsListArgs());
  expect(code).not.toBe(0);
  expect(`${stdout}\n${stderr}`).toMatch(/401|Unauthorized|invalid_token/i);
}, 120_000);
