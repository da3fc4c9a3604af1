/**
 * Real MCP clients against the real route (app/api/mcp/route.ts) over HTTP, with the real 12
 * tools and 6 prompts: @modelcontextprotocol/sdk 1.x (the client most hosts ship today) and
 * @modelcontextprotocol/client 2.x as a second, independent implementation, the latter also in
 * its three negotiation modes (`legacy` 2025, `auto` and `{ pin: "2026-07-28" }`), whose answers
 * must be the same.
 *
 * Users come from the demo seed (db/seed.ts `seedDemo`) when it exists, so every tool runs on
 * the synthetic bank; otherwise from row fixtures in the same six states.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { and, eq, inArray, isNull } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Database } from "@/db";
import { apiKeys, bankConnections, toolCalls, users } from "@/db/schema";
import { settleDeferred } from "@/lib/deferred";
import { useTestDatabase } from "../helpers/db";
import {
  connectSdkClient,
  connectV2Client,
  connectV2ClientIn,
  createUserInState,
  DEMO_STATES,
  type DemoState,
  PROMPT_NAMES,
  rpc,
  TOOL_NAMES,
  warningSchema,
} from "../helpers/mcp-client";
import { type ServedRoutes, serveRoutes } from "../helpers/serve";

const getDb = useTestDatabase();

interface SeededUser {
  state: DemoState;
  userId: string;
  apiKey: string;
}

const seededSchema = z.array(z.object({ email: z.string(), state: z.enum(DEMO_STATES), apiKey: z.string() }));

/** The six demo users: from `seedDemo` when the bank work has landed, else row fixtures. */
async function seedUsers(db: Database): Promise<{ source: string; users: SeededUser[] }> {
  const seedFile = path.resolve(process.cwd(), "db/seed.ts");
  if (existsSync(seedFile)) {
    const module: Record<string, unknown> = await import(/* @vite-ignore */ pathToFileURL(seedFile).href);
    const seedDemo = module.seedDemo;
    if (typeof seedDemo === "function") {
      const seeded = seededSchema.parse(await seedDemo(db));
      const rows = await db
        .select({ id: users.id, email: users.email })
        .from(users)
        .where(
          inArray(
            users.email,
            seeded.map((s) => s.email),
          ),
        );
      return {
        source: "seedDemo",
        users: seeded.map((s) => {
          const row = rows.find((r) => r.email === s.email);
          if (!row) throw new Error(`seeded user ${s.email} not found`);
          return { state: s.state, userId: row.id, apiKey: s.apiKey };
        }),
      };
    }
  }
  const made: SeededUser[] = [];
  for (const state of DEMO_STATES) made.push(await createUserInState(db, state));
  return { source: "fixtures", users: made };
}

let server: ServedRoutes;
let url: string;
let seeded: SeededUser[] = [];

beforeAll(async () => {
  server = await serveRoutes({ "/api/mcp": () => import("@/app/api/mcp/route") });
  url = server.url("/api/mcp");
  const result = await seedUsers(getDb());
  seeded = result.users;
  console.info(`mcp-clients: demo users from ${result.source}`);
}, 300_000);

afterAll(async () => {
  await server?.close();
});

function userIn(state: DemoState): SeededUser {
  const u = seeded.find((s) => s.state === state);
  if (!u) throw new Error(`no demo user in state ${state}`);
  return u;
}

const envelopeSchema = z.object({
  status: z.enum(["ok", "setup_required"]),
  setup_url: z.string().optional(),
  message: z.string().optional(),
  data: z.unknown().optional(),
  warnings: z.array(warningSchema),
  as_of: z.string().optional(),
});

describe("@modelcontextprotocol/sdk 1.x client", () => {
  it("negotiates 2025-06-18 when it asks for a newer revision", async () => {
    const { transport, close } = await connectSdkClient(url, userIn("active").apiKey);
    try {
      expect(transport.protocolVersion).toBe("2025-06-18");
    } finally {
      await close();
    }
  });

  it("tools/list: exactly the 12 tools, each with title, readOnlyHint, input and output schemas", async () => {
    const { client, close } = await connectSdkClient(url, userIn("none").apiKey);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
      for (const tool of tools) {
        expect(tool.title, tool.name).toBeTruthy();
        expect(tool.description, tool.name).toBeTruthy();
        expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
        expect(tool.inputSchema.type, tool.name).toBe("object");
        expect(tool.outputSchema?.type, tool.name).toBe("object");
        expect(Object.keys(tool.outputSchema?.properties ?? {}), tool.name).toEqual(
          expect.arrayContaining(["status", "setup_url", "data", "warnings", "as_of", "page"]),
        );
      }
    } finally {
      await close();
    }
  });

  it("tools/list carries no $schema URIs or ±2^53 integer bounds (its size: answer-size.test.ts)", async () => {
    const answer = await rpc(
      url,
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      {
        apiKey: userIn("none").apiKey,
        accept: "application/json",
      },
    );
    const text = JSON.stringify((answer.body as { result: unknown }).result);
    expect(text).not.toContain("$schema");
    expect(text).not.toContain(String(Number.MAX_SAFE_INTEGER));
  });

  for (const state of DEMO_STATES) {
    it(`calls every tool with defaults in state ${state}`, async () => {
      const db = getDb();
      const u = userIn(state);
      const { client, close } = await connectSdkClient(url, u.apiKey);
      const reauthBanks = await db
        .select({ id: bankConnections.id, name: bankConnections.institutionName })
        .from(bankConnections)
        .where(and(eq(bankConnections.userId, u.userId), eq(bankConnections.status, "reauth_required")));
      try {
        const { tools } = await client.listTools();
        expect(tools).toHaveLength(12);
        for (const tool of tools) {
          const result = await client.callTool({ name: tool.name, arguments: {} });
          expect(result.isError, `${tool.name}: ${JSON.stringify(result.content)}`).toBeFalsy();
          const envelope = envelopeSchema.parse(result.structuredContent);
          const content = z.array(z.object({ type: z.string(), text: z.string() })).parse(result.content);
          expect(JSON.parse(content[0]?.text ?? "null"), tool.name).toEqual(result.structuredContent);
          const codes = envelope.warnings.map((w) => w.code);
          switch (state) {
            case "none":
            case "canceled":
            case "past_due":
              expect(envelope.status, tool.name).toBe("setup_required");
              expect(envelope.setup_url, tool.name).toBe(`${server.origin}/dashboard/billing`);
              expect(envelope.message, tool.name).toContain(envelope.setup_url);
              expect(envelope.data, tool.name).toBeUndefined();
              break;
            case "no_connections":
              expect(envelope.status, tool.name).toBe("ok");
              expect(codes, tool.name).toContain("NO_CONNECTIONS");
              expect(envelope.warnings.find((w) => w.code === "NO_CONNECTIONS")?.action_url).toBe(
                `${server.origin}/dashboard/banks`,
              );
              break;
            case "reauth_required": {
              expect(envelope.status, tool.name).toBe("ok");
              expect(reauthBanks.length).toBeGreaterThan(0);
              const reauth = envelope.warnings.filter((w) => w.code === "REAUTH_REQUIRED");
              // The gate names each affected bank (a tool may add its own, richer note too).
              for (const bank of reauthBanks) {
                const named = reauth.find((w) => w.connection_id === bank.id);
                expect(named?.institution, tool.name).toBe(bank.name);
                expect(named?.action_url, tool.name).toBe(
                  `${server.origin}/dashboard/banks?reconnect=${encodeURIComponent(bank.id)}`,
                );
              }
              expect(envelope.as_of, tool.name).toMatch(/^\d{4}-\d{2}-\d{2}T/);
              break;
            }
            case "active":
            case "multi_currency":
              expect(envelope.status, tool.name).toBe("ok");
              expect(codes, tool.name).not.toContain("NO_CONNECTIONS");
              expect(codes, tool.name).not.toContain("REAUTH_REQUIRED");
              if (state === "active") expect(codes, tool.name).not.toContain("MIXED_CURRENCIES");
              expect(envelope.data, tool.name).toBeDefined();
              expect(envelope.as_of, tool.name).toMatch(/^\d{4}-\d{2}-\d{2}T/);
              break;
          }
        }
      } finally {
        await close();
      }
      // The client has each answer as soon as its message arrives; the activity rows are
      // written after the answer (lib/deferred.ts).
      await settleDeferred();
      const logged = await db
        .select({ tool: toolCalls.tool, status: toolCalls.status, keyId: toolCalls.apiKeyId })
        .from(toolCalls)
        .where(eq(toolCalls.userId, u.userId));
      expect(logged.filter((r) => TOOL_NAMES.includes(r.tool))).toHaveLength(12);
      const expectedStatus = ["none", "canceled", "past_due"].includes(state) ? "setup_required" : "ok";
      expect(new Set(logged.map((r) => r.status))).toEqual(new Set([expectedStatus]));
      // The user's live key (a re-seeded database also holds its rotated ones).
      const [key] = await db
        .select({ id: apiKeys.id })
        .from(apiKeys)
        .where(and(eq(apiKeys.userId, u.userId), isNull(apiKeys.revokedAt), isNull(apiKeys.rotatedAt)));
      expect(new Set(logged.map((r) => r.keyId))).toEqual(new Set([key?.id]));
    }, 180_000);
  }

  it("an argument outside the allowed values is an isError naming it and the values", async () => {
    const { client, close } = await connectSdkClient(url, userIn("active").apiKey);
    try {
      const result = await client.callTool({ name: "get_upcoming_bills", arguments: { days_ahead: 500 } });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain("days_ahead");
      expect(JSON.stringify(result.content)).toContain("90");
    } finally {
      await close();
    }
  });

  for (const state of ["active", "canceled"] as const) {
    it(`prompts: listed and fetched (state ${state})`, async () => {
      const { client, close } = await connectSdkClient(url, userIn(state).apiKey);
      try {
        const { prompts } = await client.listPrompts();
        expect(prompts.map((p) => p.name).sort()).toEqual([...PROMPT_NAMES].sort());
        const args: Record<string, Record<string, string>> = {
          monthly_review: { month: "2025-03" },
          upcoming_bills_check: { days: "14" },
          debt_payoff_plan: { strategy: "snowball", extra_per_month: "150.50" },
          spending_deep_dive: { category_or_merchant: "groceries", months: "3" },
        };
        for (const prompt of prompts) {
          const got = await client.getPrompt({ name: prompt.name, arguments: args[prompt.name] ?? {} });
          const text = got.messages.map((m) => (m.content.type === "text" ? m.content.text : "")).join("\n");
          const named = TOOL_NAMES.filter((t) => text.includes(t));
          expect(named.length, prompt.name).toBeGreaterThan(0);
        }
        const review = await client.getPrompt({ name: "monthly_review", arguments: { month: "2024-02" } });
        expect(JSON.stringify(review.messages)).toContain(
          'start_date \\"2024-02-01\\" and end_date \\"2024-02-29\\"',
        );
        const plan = await client.getPrompt({ name: "debt_payoff_plan", arguments: {} });
        expect(JSON.stringify(plan.messages)).toContain("avalanche");
        expect(JSON.stringify(plan.messages)).toContain("get_liabilities");
      } finally {
        await close();
      }
    });
  }

  it("prompts: bad arguments are a JSON-RPC error naming the argument", async () => {
    const { client, close } = await connectSdkClient(url, userIn("past_due").apiKey);
    try {
      const cases: [string, Record<string, string>, string][] = [
        ["monthly_review", { month: "2025-13" }, "month must be YYYY-MM"],
        ["upcoming_bills_check", { days: "0" }, "days must be a whole number from 1 to 90"],
        ["upcoming_bills_check", { days: "91" }, "days must be a whole number from 1 to 90"],
        ["debt_payoff_plan", { strategy: "random" }, 'strategy must be "avalanche" or "snowball"'],
        ["debt_payoff_plan", { extra_per_month: "-5" }, "extra_per_month must be a non-negative amount"],
        ["spending_deep_dive", {}, "category_or_merchant is required"],
        [
          "spending_deep_dive",
          { category_or_merchant: "food", months: "25" },
          "months must be a whole number from 1 to 24",
        ],
      ];
      for (const [name, args, message] of cases) {
        await expect(
          client.getPrompt({ name, arguments: args }),
          `${name} ${JSON.stringify(args)}`,
        ).rejects.toThrow(message);
      }
    } finally {
      await close();
    }
  });
});

describe("misnamed and unset arguments (the official SDK client)", () => {
  it("a misnamed argument is refused by name, never ignored; null means not given", async () => {
    const { client, close } = await connectSdkClient(url, userIn("active").apiKey);
    try {
      const bills = await client.callTool({ name: "get_upcoming_bills", arguments: { days: 60 } });
      expect(bills.isError).toBe(true);
      expect(JSON.stringify(bills.content)).toContain(
        "Unknown argument: days. get_upcoming_bills takes: days_ahead",
      );
      const search = await client.callTool({ name: "search_transactions", arguments: { limt: 1 } });
      expect(search.isError).toBe(true);
      expect(JSON.stringify(search.content)).toContain("Unknown argument: limt.");
      const flow = await client.callTool({ name: "get_cash_flow", arguments: { months: null } });
      expect(flow.isError).toBeFalsy();
      expect(flow.structuredContent).toMatchObject({ status: "ok" });
    } finally {
      await close();
    }
  });
});

describe("@modelcontextprotocol/client 2.x client", () => {
  for (const version of ["2025-06-18", "2025-03-26", "2024-11-05"]) {
    it(`initialize asking for ${version} gets ${version}`, async () => {
      const { client, close } = await connectV2Client(url, userIn("active").apiKey, [version]);
      try {
        expect(client.getNegotiatedProtocolVersion()).toBe(version);
      } finally {
        await close();
      }
    });
  }

  it("initialize asking for a revision we do not speak gets 2025-06-18", async () => {
    const { client, close } = await connectV2Client(url, userIn("active").apiKey, [
      "2024-10-07",
      "2025-06-18",
    ]);
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe("2025-06-18");
    } finally {
      await close();
    }
  });

  it("tools/list and a call", async () => {
    const { client, close } = await connectV2Client(url, userIn("reauth_required").apiKey);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
      const result = await client.callTool({ name: "get_connection_status", arguments: {} });
      expect(result.isError).toBeFalsy();
      const envelope = envelopeSchema.parse(result.structuredContent);
      expect(envelope.status).toBe("ok");
      expect(envelope.warnings.map((w) => w.code)).toContain("REAUTH_REQUIRED");
    } finally {
      await close();
    }
  });
});

describe("@modelcontextprotocol/client 2.x in its three negotiation modes: the same product in both eras", () => {
  const MODES = [
    { name: "legacy", mode: "legacy", era: "legacy", version: "2025-06-18" },
    { name: "auto", mode: "auto", era: "modern", version: "2026-07-28" },
    { name: "pin 2026-07-28", mode: { pin: "2026-07-28" }, era: "modern", version: "2026-07-28" },
  ] as const;

  const PROMPT_ARGS: Record<string, Record<string, string>> = {
    monthly_review: { month: "2025-03" },
    upcoming_bills_check: { days: "14" },
    debt_payoff_plan: { strategy: "snowball", extra_per_month: "150.50" },
    spending_deep_dive: { category_or_merchant: "groceries", months: "3" },
  };

  it("each mode connects in its era: legacy by initialize, auto and pin by one server/discover, no failed round trip", async () => {
    for (const { name, mode, era, version } of MODES) {
      const { client, wire, close } = await connectV2ClientIn(url, userIn("active").apiKey, mode);
      try {
        expect(client.getProtocolEra(), name).toBe(era);
        expect(client.getNegotiatedProtocolVersion(), name).toBe(version);
        const methods = wire.exchanges.map((e) => e.method);
        if (era === "legacy") expect(methods, name).toEqual(["initialize", "notifications/initialized"]);
        // The probe is answered: no 400, no fallback to initialize.
        else expect(wire.exchanges, name).toEqual([{ method: "server/discover", status: 200 }]);
        expect(client.getServerVersion()?.name, name).toBe("ledgerlink");
        expect(client.getServerCapabilities()?.tools, name).toBeDefined();
        expect(client.getServerCapabilities()?.prompts, name).toBeDefined();
      } finally {
        await close();
      }
    }
  });

  it("tools/list: the 12 tools in one fixed order with their titles and hints in both eras; icons in 2026-07-28", async () => {
    const listed: Record<string, unknown[]> = {};
    for (const { name, mode, era } of MODES) {
      const { client, close } = await connectV2ClientIn(url, userIn("none").apiKey, mode);
      try {
        const { tools } = await client.listTools();
        expect(
          tools.map((t) => t.name),
          name,
        ).toEqual(TOOL_NAMES);
        for (const tool of tools) {
          expect(tool.title, tool.name).toBeTruthy();
          expect(tool.annotations, tool.name).toEqual({
            title: tool.title,
            readOnlyHint: true,
            destructiveHint: false,
            idempotentHint: true,
            openWorldHint: false,
          });
          if (era === "legacy") expect(tool.icons, tool.name).toBeUndefined();
          else
            expect(tool.icons, tool.name).toEqual([
              {
                src: `${server.origin}/icons/tools/${tool.name}.svg`,
                mimeType: "image/svg+xml",
                sizes: ["any"],
              },
              {
                src: `${server.origin}/icons/tools/${tool.name}.png`,
                mimeType: "image/png",
                sizes: ["64x64"],
              },
            ]);
        }
        listed[name] = tools.map(({ icons: _icons, ...tool }) => tool);
      } finally {
        await close();
      }
    }
    // Everything but the icons is the same in both eras.
    expect(listed.auto).toEqual(listed.legacy);
    expect(listed["pin 2026-07-28"]).toEqual(listed.legacy);
  });

  for (const state of DEMO_STATES) {
    it(`every tool and prompt in state ${state}: the same answer in all three modes`, async () => {
      const db = getDb();
      const u = userIn(state);
      const reauthBanks = await db
        .select({ id: bankConnections.id })
        .from(bankConnections)
        .where(and(eq(bankConnections.userId, u.userId), eq(bankConnections.status, "reauth_required")));
      const answers: Record<string, Record<string, unknown>> = {};
      for (const { name, mode } of MODES) {
        const { client, close } = await connectV2ClientIn(url, u.apiKey, mode);
        const byName: Record<string, unknown> = {};
        try {
          for (const tool of TOOL_NAMES) {
            const result = await client.callTool({ name: tool, arguments: {} });
            expect(result.isError, `${name} ${tool}: ${JSON.stringify(result.content)}`).toBeFalsy();
            const envelope = envelopeSchema.parse(result.structuredContent);
            const codes = envelope.warnings.map((w) => w.code);
            const setup = ["none", "canceled", "past_due"].includes(state);
            expect(envelope.status, `${name} ${tool}`).toBe(setup ? "setup_required" : "ok");
            if (setup)
              expect(envelope.setup_url, `${name} ${tool}`).toBe(`${server.origin}/dashboard/billing`);
            else expect(envelope.data, `${name} ${tool}`).toBeDefined();
            expect(codes.includes("NO_CONNECTIONS"), `${name} ${tool}`).toBe(state === "no_connections");
            const reauthNamed = envelope.warnings
              .filter((w) => w.code === "REAUTH_REQUIRED")
              .map((w) => w.connection_id);
            for (const bank of reauthBanks) expect(reauthNamed, `${name} ${tool}`).toContain(bank.id);
            if (state !== "reauth_required") expect(reauthNamed, `${name} ${tool}`).toEqual([]);
            byName[tool] = { structuredContent: result.structuredContent, content: result.content };
          }
          const { prompts } = await client.listPrompts();
          expect(prompts.map((p) => p.name).sort(), name).toEqual([...PROMPT_NAMES].sort());
          for (const prompt of prompts) {
            expect(prompt.title, prompt.name).toBeTruthy();
            const got = await client.getPrompt({
              name: prompt.name,
              arguments: PROMPT_ARGS[prompt.name] ?? {},
            });
            byName[`prompt ${prompt.name}`] = { title: prompt.title, messages: got.messages };
          }
        } finally {
          await close();
        }
        answers[name] = byName;
      }
      // `data` (and the whole envelope, and the text block) is the same across eras.
      expect(answers.auto).toEqual(answers.legacy);
      expect(answers["pin 2026-07-28"]).toEqual(answers.legacy);
    }, 180_000);
  }

  it("bad arguments: the same isError sentence in both eras, a prompt's the same JSON-RPC error", async () => {
    const sentences: string[] = [];
    for (const { name, mode } of MODES) {
      const { client, close } = await connectV2ClientIn(url, userIn("active").apiKey, mode);
      try {
        const bills = await client.callTool({ name: "get_upcoming_bills", arguments: { days_ahead: 500 } });
        expect(bills.isError, name).toBe(true);
        sentences.push(JSON.stringify(bills.content));
        await expect(
          client.getPrompt({ name: "monthly_review", arguments: { month: "2025-13" } }),
          name,
        ).rejects.toThrow("month must be YYYY-MM");
      } finally {
        await close();
      }
    }
    expect(new Set(sentences).size).toBe(1);
    expect(sentences[0]).toContain("days_ahead");
  });
});
