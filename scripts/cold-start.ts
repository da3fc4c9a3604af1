/**
 * Cold start with and without telemetry: the time from spawning `next start` (the production
 * build in NEXT_DIST_DIR, default `.next`) to the first `tools/call` answer, in rounds that
 * alternate telemetry off and on (OTEL_EXPORTER_OTLP_ENDPOINT at a local OTLP/HTTP collector,
 * tests/fixtures/otlp-sink.ts, default protocol http/protobuf). The request is sent every 10 ms
 * from the spawn on, so the figure includes Next's start, its lazy load of instrumentation.ts and
 * the route, the database's first connection and the call itself.
 *
 *   npx tsx scripts/cold-start.ts --database-url postgres://…/scratch [--rounds 6]
 *
 * Use a scratch database (migrated here; a user with a key is added). Build first
 * (`NEXT_DIST_DIR=.next-cold npx next build`, or any build), and run it on a quiet machine: it
 * prints medians and every round, and asserts nothing.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { openDatabase } from "@/db";
import { subscriptions, users } from "@/db/schema";
import { createApiKey } from "@/lib/api-keys";
import { type OtlpSink, startOtlpSink } from "@/tests/fixtures/otlp-sink";

const ROOT = path.resolve(import.meta.dirname, "..");
const NEXT_BIN = path.join(ROOT, "node_modules", "next", "dist", "bin", "next");
const DIST_DIR = process.env.NEXT_DIST_DIR ?? ".next";

function argument(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

/** Spawns the server and times the first tools/call answer from the spawn. */
async function coldStart(databaseUrl: string, apiKey: string, sink: OtlpSink | undefined): Promise<number> {
  const port = await freePort();
  const baseUrl = `http://localhost:${port}`;
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, [NEXT_BIN, "start", "-p", String(port)], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: "production",
      NEXT_DIST_DIR: DIST_DIR,
      DATABASE_URL: databaseUrl,
      APP_URL: baseUrl,
      BILLING: "local",
      AUTH_SECRET: randomBytes(32).toString("base64"),
      ENCRYPTION_KEY: randomBytes(32).toString("hex"),
      ...(sink ? { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_BSP_SCHEDULE_DELAY: "100" } : {}),
    },
    stdio: "ignore",
  });
  try {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "get_connection_status", arguments: {} },
    });
    for (;;) {
      if (child.exitCode !== null) throw new Error(`next start exited with ${child.exitCode}`);
      if (performance.now() - started > 60_000) throw new Error("no answer within 60 s");
      const answer = await fetch(`${baseUrl}/api/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${apiKey}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-06-18",
        },
        body,
      }).catch(() => null);
      if (answer) {
        const text = await answer.text();
        if (answer.status !== 200) throw new Error(`first tools/call answered ${answer.status}: ${text}`);
        const ms = performance.now() - started;
        // Telemetry was on only if its spans arrive (untimed: after the answer).
        const received = sink ? sink.protobufBodies + sink.bodies.length : 0;
        for (
          let wait = 0;
          sink && wait < 100 && sink.protobufBodies + sink.bodies.length === received;
          wait++
        )
          await new Promise((r) => setTimeout(r, 50));
        if (sink && sink.protobufBodies + sink.bodies.length === received)
          throw new Error("telemetry was on but nothing was exported within 5 s");
        return ms;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  }
}

async function main() {
  const databaseUrl = argument("database-url");
  if (!databaseUrl) throw new Error("--database-url <postgres url of a scratch database> is required");
  const rounds = Number(argument("rounds") ?? 6);
  if (!existsSync(path.join(ROOT, DIST_DIR, "BUILD_ID")))
    throw new Error(
      `No production build in ${DIST_DIR}: run NEXT_DIST_DIR=${DIST_DIR} npx next build first.`,
    );

  const handle = await openDatabase({ url: databaseUrl, migrate: true });
  let apiKey: string;
  try {
    const [user] = await handle.db
      .insert(users)
      .values({ email: `cold-start-${randomBytes(4).toString("hex")}@example.test` })
      .returning({ id: users.id });
    if (!user) throw new Error("no user");
    await handle.db
      .insert(subscriptions)
      .values({ userId: user.id, provider: "local", customerId: `cus_${user.id}`, status: "active" });
    apiKey = (await createApiKey(handle.db, user.id, "cold start")).key;
  } finally {
    await handle.close();
  }

  const sink = await startOtlpSink();
  const times: Record<"off" | "on", number[]> = { off: [], on: [] };
  try {
    for (let round = 0; round < rounds; round++) {
      const mode = round % 2 === 0 ? "off" : "on";
      const ms = await coldStart(databaseUrl, apiKey, mode === "on" ? sink : undefined);
      times[mode].push(ms);
      console.log(`round ${round + 1}: telemetry ${mode}, ${Math.round(ms)} ms`);
    }
  } finally {
    await sink.close();
  }
  console.log(
    `Cold start to the first tools/call answer (median): telemetry off ${Math.round(median(times.off))} ms, on ${Math.round(median(times.on))} ms (OTLP bodies received: ${sink.protobufBodies + sink.bodies.length}).`,
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
