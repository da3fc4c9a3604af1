/**
 * `npm run bench`: how fast the MCP endpoint answers on a heavy account, on the production build.
 *
 * 1. Seeds a fresh PGlite (.data/bench/pglite), or the Postgres of `--database-url`, with the
 *    benchmark user (db/seed.ts `seedHeavyUser`: five years, 100,000+ transactions over ten
 *    accounts, active subscription).
 *    Seeding happens BEFORE the server starts: PGlite opens its folder from one process at a time.
 * 2. `next build` into .next-bench, then `next start` on its own port with that data folder.
 * 3. Drives POST /api/mcp over HTTP with autocannon: `ping`, then each of the 12 tools with its
 *    default arguments, and prints requests/s, p50 and p99 latency, the size of the default answer
 *    and each tool's p50 as a multiple of ping's p50 in the same run.
 *
 * Options: `--skip-build` reuses .next-bench; `--duration <s>` per target (default 6);
 * `--connections <n>` (default 8); `--port <n>` (default 3917);
 * `--database-url <postgres url>` (or BENCH_DATABASE_URL) runs the same benchmark on a real Postgres
 * instead of PGlite: the heavy user is seeded into that database (migrated first, re-seeding is
 * idempotent), the tables are ANALYZEd (what autovacuum does shortly after a bulk load), and the
 * server starts with DATABASE_URL. Use a scratch database: the run adds the benchmark user to it.
 * It prints figures; it asserts nothing.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import autocannon from "autocannon";
import { sql } from "drizzle-orm";
import { openDatabase } from "@/db";
import { seedHeavyUser } from "@/db/seed";

const ROOT = path.resolve(import.meta.dirname, "..");
const DIST_DIR = ".next-bench";
const DATA_DIR = ".data/bench/pglite";

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? Number(process.argv[i + 1]) : Number.NaN;
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

function stringOption(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? process.argv[i + 1] : undefined;
  return value && !value.startsWith("--") ? value : undefined;
}

/** Postgres to benchmark instead of PGlite; never printed (it may hold a password). */
const DATABASE_URL = stringOption("database-url") ?? (process.env.BENCH_DATABASE_URL || undefined);
if (DATABASE_URL && !/^postgres(ql)?:\/\//.test(DATABASE_URL)) {
  throw new Error("--database-url must be a postgres:// URL");
}
const DRIVER_LABEL = DATABASE_URL ? "Postgres" : "PGlite";
const DURATION = option("duration", 6);
const CONNECTIONS = option("connections", 8);
const PORT = option("port", 3917);
const SKIP_BUILD = process.argv.includes("--skip-build");
const APP_URL = `http://localhost:${PORT}`;
const MCP_URL = `${APP_URL}/api/mcp`;

// Throwaway secrets for this run: the production server insists on them, and the seed encrypts
// the sandbox bank's tokens with the same key the server will read them with.
process.env.ENCRYPTION_KEY ??= randomBytes(32).toString("hex");
process.env.AUTH_SECRET ??= randomBytes(32).toString("base64url");

const serverEnv: NodeJS.ProcessEnv = {
  ...process.env,
  NODE_ENV: "production",
  NEXT_DIST_DIR: DIST_DIR,
  PGLITE_DIR: DATA_DIR,
  DATABASE_URL: DATABASE_URL ?? "",
  APP_URL,
  BILLING: "local",
  // The benchmark measures the endpoint, not the per-key limit.
  RATE_LIMIT_PER_MINUTE: "1000000000",
  NEXT_TELEMETRY_DISABLED: "1",
};

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ["ignore", "inherit", "inherit"] });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(" ")} exited ${code}`)),
    );
  });
}

async function seed(): Promise<string> {
  if (!DATABASE_URL) {
    rmSync(path.join(ROOT, ".data/bench"), { recursive: true, force: true });
    mkdirSync(path.join(ROOT, ".data/bench"), { recursive: true });
  }
  const handle = DATABASE_URL
    ? await openDatabase({ url: DATABASE_URL, migrate: true })
    : await openDatabase({ pgliteDir: path.join(ROOT, DATA_DIR), migrate: true });
  try {
    const result = await seedHeavyUser(handle.db);
    console.log(`Seeded the heavy user in ${(result.milliseconds / 1000).toFixed(1)} s (${DRIVER_LABEL}).`);
    // A real server's autovacuum analyzes a bulk load within a minute; do it now so the run
    // measures the steady state rather than plans made without statistics.
    if (DATABASE_URL) await handle.db.execute(sql`analyze`);
    return result.apiKey;
  } finally {
    await handle.close();
  }
}

function headers(apiKey: string): Record<string, string> {
  return {
    authorization: `Bearer ${apiKey}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2025-06-18",
  };
}

function body(target: string): string {
  return JSON.stringify(
    target === "ping"
      ? { jsonrpc: "2.0", id: 1, method: "ping", params: {} }
      : { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: target, arguments: {} } },
  );
}

async function waitForServer(server: ChildProcess, apiKey: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`next start exited with ${server.exitCode}`);
    try {
      const res = await fetch(MCP_URL, { method: "POST", headers: headers(apiKey), body: body("ping") });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error("the server did not answer within 120 s");
}

async function listTools(apiKey: string): Promise<string[]> {
  const res = await fetch(MCP_URL, {
    method: "POST",
    headers: { ...headers(apiKey), accept: "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
  const json = (await res.json()) as { result?: { tools?: { name: string }[] } };
  return (json.result?.tools ?? []).map((t) => t.name);
}

/** One call as a real client makes it: bytes of the HTTP answer, and whether the tool said isError. */
async function probe(
  apiKey: string,
  target: string,
): Promise<{ bytes: number; isError: boolean; note: string }> {
  const res = await fetch(MCP_URL, { method: "POST", headers: headers(apiKey), body: body(target) });
  const text = await res.text();
  const isError = !res.ok || text.includes('"isError":true') || text.includes('"error":{');
  return { bytes: Buffer.byteLength(text), isError, note: isError ? text.slice(0, 200) : "" };
}

interface Row {
  target: string;
  rps: number;
  p50: number;
  p99: number;
  bytes: number;
  non2xx: number;
  errors: number;
}

async function load(apiKey: string, target: string): Promise<Omit<Row, "bytes">> {
  const result = await autocannon({
    url: MCP_URL,
    method: "POST",
    headers: headers(apiKey),
    body: body(target),
    connections: CONNECTIONS,
    duration: DURATION,
  });
  return {
    target,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

async function main() {
  const started = Date.now();
  const apiKey = await seed();
  if (!SKIP_BUILD || !existsSync(path.join(ROOT, DIST_DIR))) {
    console.log(`Building into ${DIST_DIR} …`);
    await run("npx", ["next", "build"], serverEnv);
  }
  console.log(`Starting next start on port ${PORT} …`);
  const server: ChildProcess = spawn("npx", ["next", "start", "-p", String(PORT)], {
    cwd: ROOT,
    env: serverEnv,
    stdio: ["ignore", "ignore", "inherit"],
    detached: true,
  });
  const stop = () => {
    if (server.pid && server.exitCode === null) {
      try {
        process.kill(-server.pid, "SIGTERM");
      } catch {
        // already gone
      }
    }
  };
  process.on("exit", stop);
  try {
    await waitForServer(server, apiKey);
    const tools = await listTools(apiKey);
    if (tools.length !== 12) console.warn(`Note: tools/list returned ${tools.length} tools, not 12.`);
    const rows: Row[] = [];
    for (const target of ["ping", ...tools]) {
      const first = await probe(apiKey, target); // also warms the route and the query plans
      if (first.isError) console.warn(`Note: ${target} answered an error: ${first.note}`);
      const measured = await load(apiKey, target);
      rows.push({ ...measured, bytes: first.bytes });
      console.log(`  ${target}: ${measured.rps.toFixed(0)} req/s, p50 ${measured.p50} ms`);
    }
    const pingP50 = rows[0]?.p50 || 1;
    console.log(
      `\nPOST /api/mcp, heavy user, ${CONNECTIONS} connections × ${DURATION} s per target (next start, ${DRIVER_LABEL})\n`,
    );
    const header = [
      "target",
      "req/s",
      "p50 ms",
      "p99 ms",
      "answer bytes",
      "p50 / ping p50",
      "non-2xx",
      "errors",
    ];
    const table = rows.map((r) => [
      r.target,
      r.rps.toFixed(0),
      r.p50.toFixed(1),
      r.p99.toFixed(1),
      String(r.bytes),
      r.target === "ping" ? "1.0" : (r.p50 / pingP50).toFixed(1),
      String(r.non2xx),
      String(r.errors),
    ]);
    const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => (row[i] ?? "").length)));
    const line = (cells: string[]) =>
      cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
    console.log(line(header));
    for (const row of table) console.log(line(row));
    console.log(`\nTotal bench time ${((Date.now() - started) / 1000).toFixed(0)} s.`);
  } finally {
    stop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
