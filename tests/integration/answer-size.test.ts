/**
 * The context an answer and the tool list cost a client (product.md, "Size"), over the real route:
 * `tools/list` within 20 KB, of which descriptions and input schemas within 10 KB, and the text
 * block of every tool's default answer within 8 KB for every demo user and for the heavy user
 * (five years, 100,000+ transactions over ten accounts, db/seed.ts `seedHeavyUser`). On PostgreSQL
 * in a database of its own: the demo users' addresses are fixed and other files seed them too.
 * Seeded at today's date, as the tools read it, so the default periods hold data.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type Handle, openDatabase, setDbForTesting } from "@/db";
import { seedDemo, seedHeavyUser } from "@/db/seed";
import { settleDeferred } from "@/lib/deferred";
import { createScratchDatabase, testDatabaseKind } from "../helpers/db";
import { rpc } from "../helpers/mcp-client";
import { type ServedRoutes, serveRoutes } from "../helpers/serve";

const KB = 1024;

let handle: Handle;
let dropScratch: (() => Promise<void>) | undefined;
let server: ServedRoutes;
let url: string;
const users: { name: string; apiKey: string }[] = [];

beforeAll(async () => {
  if (testDatabaseKind() === "postgres") {
    const scratch = await createScratchDatabase("ledgerlink_sizes");
    dropScratch = scratch.drop;
    handle = await openDatabase({ url: scratch.url, migrate: true });
  } else handle = await openDatabase({ pgliteDir: "memory://" });
  setDbForTesting(handle);
  server = await serveRoutes({ "/api/mcp": () => import("@/app/api/mcp/route") });
  url = server.url("/api/mcp");
  for (const u of await seedDemo(handle.db)) users.push({ name: u.state, apiKey: u.apiKey });
  const heavy = await seedHeavyUser(handle.db);
  console.info(`answer-size: heavy user seeded in ${(heavy.milliseconds / 1000).toFixed(1)} s`);
  users.push({ name: "heavy", apiKey: heavy.apiKey });
}, 600_000);

afterAll(async () => {
  await server?.close();
  await settleDeferred();
  setDbForTesting(undefined);
  await handle?.close();
  await dropScratch?.();
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
    console.info(`answer-size: default answers in bytes ${JSON.stringify(sizes)}`);
    for (const [user, row] of Object.entries(sizes)) {
      for (const [tool, bytes] of Object.entries(row)) {
        expect(bytes, `${user} ${tool}`).toBeLessThanOrEqual(8 * KB);
      }
    }
    // The heavy user's search really pages: the bound is not met by an empty answer.
    expect(sizes.heavy?.search_transactions).toBeGreaterThan(4 * KB);
  });
});
