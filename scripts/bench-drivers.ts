/**
 * The driver section of `npm run bench` (PostgreSQL only: `--database-url`): `tools/call` on the
 * heavy user answered by a production server, `next start`, with each driver, through a latency
 * proxy adding a round-trip time between the server and what it reaches (tests/support/fault-proxy.ts, with the TCP handshake's round trip on each new
 * connection):
 * - `pg`: node-postgres over TCP, the proxy in front of PostgreSQL;
 * - `neon`: Neon's WebSocket Pool, and `neon-http`: Neon's HTTP queries (with that Pool for
 *   transactions), the proxy in front of a local stand-in for Neon's proxy
 *   (tests/support/neon-local.ts), which reaches PostgreSQL at no added latency, as Neon's proxy
 *   sits beside its compute.
 * Cold: a new process's first call (list_accounts), from spawning `next start` to the answer (the
 * median of `COLD_RUNS` processes), and that first call's own time once the route's code is
 * loaded (a request without a credential, answered 401 without database work, comes first): the
 * driver's loading and its new connections' round trips, without the process's start-up, which
 * on a busy machine varies by seconds. Warm: the median of `WARM_CALLS` sequential calls on the last
 * process, after `WARM_UP` calls, of list_accounts (one statement in each of its two round trips)
 * and of get_financial_overview (four statements at once in its second). Each at 2 ms and 20 ms
 * of round-trip time, at 100 ms (where a round trip outweighs this machine's noise, so time / RTT
 * counts the round trips a call waits for), and node-postgres with no proxy at all (this
 * machine's own cold start and the calls' own cost). Telemetry is on: OTEL_EXPORTER_OTLP_ENDPOINT
 * points at a local sink that accepts whatever is exported (its count is printed).
 * Nothing here models TLS, which production adds to every new connection (docs/performance.md).
 * Last, this machine's idle penalty: the same CPU work back to back and after pauses of each RTT
 * (a server waits idle for its round trips, and some machines run the work after a wait slower).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { type FaultProxy, startFaultProxy } from "@/tests/support/fault-proxy";
import { startNeonLocal } from "@/tests/support/neon-local";

const COLD_RUNS = 3;
const WARM_UP = 5;
const WARM_CALLS = 30;
const RTTS = [2, 20, 100];
/** The cold call, then the warm ones. */
const TOOLS = ["list_accounts", "get_financial_overview"] as const;

export interface DriverRow {
  driver: "pg" | "neon" | "neon-http";
  rttMs: number;
  coldMs: number[];
  /** Of each cold run, the first call's own time (from the request the server accepted to its answer). */
  firstCallMs: number[];
  /** Median warm latency of each tool of TOOLS. */
  warmP50Ms: number[];
}

interface Options {
  databaseUrl: string;
  apiKey: string;
  port: number;
  nextBin: string;
  root: string;
  /** The bench's production-server environment (its build, secrets, settings). */
  serverEnv: NodeJS.ProcessEnv;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
};

/** A local OTLP/HTTP sink: answers every export 200 and counts them. */
async function startOtlpSink(): Promise<{ url: string; exports: () => number; close: () => Promise<void> }> {
  let exports = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      exports += 1;
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exports: () => exports,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export async function benchDrivers(options: Options): Promise<DriverRow[]> {
  const url = `http://localhost:${options.port}/api/mcp`;
  const bodyOf = (tool: string) =>
    JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: tool, arguments: {} } });
  const headers = {
    authorization: `Bearer ${options.apiKey}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2025-06-18",
  };
  const callOnce = async (tool: string = TOOLS[0]): Promise<number> => {
    const started = performance.now();
    const res = await fetch(url, { method: "POST", headers, body: bodyOf(tool) });
    const text = await res.text();
    if (res.status !== 200 || text.includes('"isError":true'))
      throw new Error(`${tool} answered ${res.status}: ${text.slice(0, 200)}`);
    return performance.now() - started;
  };

  const neonLocal = await startNeonLocal();
  const sink = await startOtlpSink();
  const rows: DriverRow[] = [];

  /** Starts `next start` with `env`; resolves with the time from spawn to the first answer. */
  const startServer = async (
    env: NodeJS.ProcessEnv,
  ): Promise<{ server: ChildProcess; coldMs: number; firstCallMs: number }> => {
    const started = performance.now();
    const server = spawn(process.execPath, [options.nextBin, "start", "-p", String(options.port)], {
      cwd: options.root,
      env,
      stdio: ["ignore", "ignore", "inherit"],
      detached: true,
    });
    // Ready once the MCP route answers a request without a credential (401: no database work,
    // but the route's code is loaded); then the timed call.
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (server.exitCode !== null) throw new Error(`next start exited with ${server.exitCode}`);
      if (Date.now() > deadline) throw new Error("the server did not answer within 60 s");
      const ready = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      })
        .then((res) => res.text().then(() => res.status === 401))
        .catch(() => false);
      if (ready) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const firstCallMs = await callOnce();
    return { server, coldMs: performance.now() - started, firstCallMs };
  };
  const stop = async (server: ChildProcess) => {
    if (server.exitCode !== null || !server.pid) return;
    const closed = new Promise((resolve) => server.once("close", resolve));
    try {
      process.kill(-server.pid, "SIGTERM");
    } catch {
      // already gone
    }
    await closed;
  };

  const measure = async (driver: DriverRow["driver"], rttMs: number, proxy: FaultProxy | undefined) => {
    const env: NodeJS.ProcessEnv = {
      ...options.serverEnv,
      DATABASE_DRIVER: driver,
      OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
    };
    if (driver === "pg") env.DATABASE_URL = proxy ? proxy.url : options.databaseUrl;
    else {
      env.DATABASE_URL = options.databaseUrl;
      env.NEON_LOCAL_PROXY = new URL(proxy?.url ?? "").host;
    }
    const coldMs: number[] = [];
    const firstCallMs: number[] = [];
    let last: ChildProcess | undefined;
    for (let run = 0; run < COLD_RUNS; run++) {
      if (last) await stop(last);
      const started = await startServer(env);
      coldMs.push(started.coldMs);
      firstCallMs.push(started.firstCallMs);
      last = started.server;
    }
    const warmP50Ms: number[] = [];
    try {
      for (const tool of TOOLS) {
        const warm: number[] = [];
        for (let i = 0; i < WARM_UP; i++) await callOnce(tool);
        for (let i = 0; i < WARM_CALLS; i++) warm.push(await callOnce(tool));
        warmP50Ms.push(median(warm));
      }
    } finally {
      if (last) await stop(last);
    }
    const row = { driver, rttMs, coldMs, firstCallMs, warmP50Ms };
    console.log(
      `  ${driver} at ${rttMs} ms RTT: cold ${coldMs.map((ms) => ms.toFixed(0)).join(" / ")} ms, warm p50 ${warmP50Ms.map((ms) => ms.toFixed(1)).join(" / ")} ms`,
    );
    rows.push(row);
  };

  try {
    await measure("pg", 0, undefined);
    for (const rtt of RTTS) {
      const toPostgres = await startFaultProxy(options.databaseUrl);
      const toNeon = await startFaultProxy(`postgres://neon@${neonLocal.host}/neon`);
      for (const proxy of [toPostgres, toNeon]) proxy.slow(rtt / 2, { handshake: true });
      try {
        await measure("pg", rtt, toPostgres);
        await measure("neon", rtt, toNeon);
        await measure("neon-http", rtt, toNeon);
      } finally {
        await toPostgres.close();
        await toNeon.close();
      }
    }
  } finally {
    await neonLocal.close();
    await sink.close();
  }
  printTable(rows, sink.exports());
  await printIdlePenalty();
  return rows;
}

/**
 * This machine's reference for the warm rows: the same CPU work (JSON and a hash, about what a
 * call spends) timed back to back and after pauses as long as the round trips a call waits for.
 * A server at 20 ms RTT waits idle before each of its CPU phases; where the machine runs work
 * slower after such a wait, the call reads more round trips than it makes.
 */
async function printIdlePenalty(): Promise<void> {
  const work = () => {
    const values: Record<string, string> = {};
    for (let i = 0; i < 20_000; i++) values[`k${i % 500}`] = JSON.stringify({ i, s: "x".repeat(i % 50) });
    return createHash("sha256").update(JSON.stringify(values)).digest("hex");
  };
  for (let i = 0; i < 100; i++) work();
  const cells: string[] = [];
  for (const pauseMs of [0, ...RTTS]) {
    const times: number[] = [];
    for (let i = 0; i < 40; i++) {
      if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
      const start = performance.now();
      work();
      times.push(performance.now() - start);
    }
    cells.push(`${median(times).toFixed(1)} ms after ${pauseMs === 0 ? "none" : `${pauseMs} ms`}`);
  }
  console.log(`Idle penalty (the same CPU work, median of 40, by pause before it): ${cells.join(", ")}.`);
}

function printTable(rows: DriverRow[], exports: number): void {
  console.log(
    `\nDrivers: tools/call on the heavy user, next start (cold: ${TOOLS[0]}, median of ${COLD_RUNS} processes; warm: median of ${WARM_CALLS} sequential calls)\n`,
  );
  const perRtt = (ms: number, rtt: number) => (rtt > 0 ? ` (${(ms / rtt).toFixed(1)} RTT)` : "");
  const header = [
    "driver",
    "RTT ms",
    "cold ms (median)",
    "cold runs ms",
    "first call ms (median)",
    ...TOOLS.map((t) => `warm ${t} p50 ms`),
  ];
  const table = rows.map((r) => [
    r.driver,
    String(r.rttMs),
    `${median(r.coldMs).toFixed(0)}${perRtt(median(r.coldMs), r.rttMs)}`,
    r.coldMs.map((ms) => ms.toFixed(0)).join(" / "),
    `${median(r.firstCallMs).toFixed(0)}${perRtt(median(r.firstCallMs), r.rttMs)}`,
    ...r.warmP50Ms.map((ms) => `${ms.toFixed(1)}${perRtt(ms, r.rttMs)}`),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => (row[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
  console.log(line(header));
  for (const row of table) console.log(line(row));
  console.log(
    `Telemetry: OTEL_EXPORTER_OTLP_ENDPOINT set to a local sink, which received ${exports} export request(s).`,
  );
}
