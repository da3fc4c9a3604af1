/**
 * The context an answer and the tool list cost a client (product.md, "Size"), over the real route:
 * `tools/list` within 20 KB, of which descriptions and input schemas within 10 KB, and the text
 * block of every tool's default answer within 8 KB for every demo user and for the heavy user
 * (five years, 100,000+ transactions over ten accounts, db/seed.ts `seedHeavyUser`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { seedDemo, seedHeavyUser } from "@/db/seed";
import { useTestDatabase } from "../helpers/db";
import { rpc } from "../helpers/mcp-client";
import { type ServedRoutes, serveRoutes } from "../helpers/serve";

const getDb = useTestDatabase();
const NOW = new Date("2025-11-15T12:00:00Z");
const KB = 1024;

let server: ServedRoutes;
let url: string;
const users: { name: string; apiKey: string }[] = [];

beforeAll(async () => {
  server = await serveRoutes({ "/api/mcp": () => import("@/app/api/mcp/route") });
  url = server.url("/api/mcp");
  for (const u of await seedDemo(getDb(), { now: NOW })) users.push({ name: u.state, apiKey: u.apiKey });
  const heavy = await seedHeavyUser(getDb(), { now: NOW });
  console.info(`answer-size: heavy user seeded in ${(heavy.milliseconds / 1000).toFixed(1)} s`);
  users.push({ name: "heavy", apiKey: heavy.apiKey });
}, 600_000);

afterAll(async () => {
  await server?.close();
});

const listed = z.object({
  tools: z.array(z.object({ name: z.string(), description: z.string(), inputSchema: z.unknown() })),
});
const called = z.object({ content: z.array(z.object({ type: z.literal("text"), text: z.string() })) });

async function result(apiKey: string, method: string, params?: unknown): Promise<unknown> {
  const answer = await rpc(
    url,
    { jsonrpc: "2.0", id: 1, method, params },
    { apiKey, accept: "application/json" },
  );
  return (answer.body as { result: unknown }).result;
}

/** Paths of every null in `value` (answers leave null fields out). */
function nullsIn(value: unknown, path = "$"): string[] {
  if (value === null) return [path];
  if (typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, v]) => nullsIn(v, `${path}.${key}`));
}

describe("context budget", () => {
  it("tools/list is within 20 KB, its descriptions and input schemas within 10 KB", async () => {
    const list = await result(users[0]!.apiKey, "tools/list");
    const { tools } = listed.parse(list);
    expect(tools).toHaveLength(12);
    expect(Buffer.byteLength(JSON.stringify(list))).toBeLessThanOrEqual(20 * KB);
    const described = tools.map(
      (t) => Buffer.byteLength(t.description) + Buffer.byteLength(JSON.stringify(t.inputSchema)),
    );
    expect(described.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(10 * KB);
  });

  it("every tool's default answer is within 8 KB and has no nulls, for every demo user and the heavy one", async () => {
    const sizes: Record<string, Record<string, number>> = {};
    for (const user of users) {
      const row: Record<string, number> = {};
      for (const { name } of listed.parse(await result(user.apiKey, "tools/list")).tools) {
        const answer = called.parse(await result(user.apiKey, "tools/call", { name, arguments: {} }));
        const text = answer.content[0]?.text ?? "";
        row[name] = Buffer.byteLength(text);
        expect(nullsIn(JSON.parse(text)), `${user.name} ${name}`).toEqual([]);
      }
      sizes[user.name] = row;
    }
    for (const [user, row] of Object.entries(sizes)) {
      for (const [tool, bytes] of Object.entries(row)) {
        expect(bytes, `${user} ${tool}`).toBeLessThanOrEqual(8 * KB);
      }
    }
    // The heavy user's search really pages: the bound is not met by an empty answer.
    expect(sizes.heavy?.search_transactions).toBeGreaterThan(4 * KB);
  });
});
