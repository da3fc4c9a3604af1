// @ts-nocheck
/** Temp: in-process CPU per call. `tsx scripts/tmp-inproc.ts [pg|pglite] [seed] [n] [filter] [profile]` */
import path from "node:path";
import { writeFileSync } from "node:fs";
import { openDatabase } from "@/db";
import { seedHeavyUser } from "@/db/seed";
import { settleDeferred } from "@/lib/deferred";
import { createMcpEndpoint } from "@/lib/mcp/server";
import { Session } from "node:inspector/promises";

const kind = process.argv[2] ?? "pg";
const doSeed = process.argv[3] === "seed";
const N = Number(process.argv[4] ?? 200);
const filter = process.argv[5] ?? "";
const profile = process.argv[6] === "profile";
const URL_ = "postgres://postgres@127.0.0.1:5432/bench";
const handle = kind === "pg" ? await openDatabase({ url: URL_, migrate: doSeed }) : await openDatabase({ pgliteDir: path.resolve(".data/bench/pglite"), migrate: doSeed });
let apiKey;
if (doSeed) {
  const r = await seedHeavyUser(handle.db, { now: new Date() });
  apiKey = r.apiKey;
  writeFileSync(`/tmp/keep/key-${kind}`, apiKey);
  if (kind === "pg") await handle.db.execute("analyze");
  console.log("seeded", r.milliseconds);
} else apiKey = (await import("node:fs")).readFileSync(`/tmp/keep/key-${kind}`, "utf8");
process.env.APP_URL = "http://localhost:3917";
const endpoint = createMcpEndpoint({ getDb: async () => handle.db });
const targets = [
  ["ping"],
  ["get_financial_overview", {}],
  ["find_unusual_activity", {}],
  ["search_transactions", { query: "coffee" }],
  ["get_spending_breakdown", { group_by: "merchant", period: "last_12_months" }],
  ["get_net_worth", { interval: "day", months: 12 }],
  ["get_cash_flow", { months: 24 }],
  ["search_transactions", {}],
  ["list_accounts", {}],
  ["get_upcoming_bills", {}],
  ["get_liabilities", {}],
].filter(([n]) => !filter || filter.split(",").includes(n) || n === "ping");
const msg = ([n, a]) => n === "ping" ? { jsonrpc: "2.0", id: 1, method: "ping", params: {} } : { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: n, arguments: a } };
async function call(t) {
  const res = await endpoint(new Request("http://localhost:3917/api/mcp", { method: "POST", headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18", host: "localhost:3917" }, body: JSON.stringify(msg(t)) }));
  const text = await res.text();
  await settleDeferred();
  return text;
}
let session;
if (profile) { session = new Session(); session.connect(); await session.post("Profiler.enable"); await session.post("Profiler.setSamplingInterval", { interval: 100 }); }
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const best = new Map();
for (const t of targets) { for (let i = 0; i < 20; i++) await call(t); }
for (let r = 0; r < ROUNDS; r++) {
  for (const t of targets) {
    const key = t[0] + " " + (t[1] ? JSON.stringify(t[1]) : "");
    if (profile && r === ROUNDS - 1) await session.post("Profiler.start");
    const w0 = performance.now();
    for (let i = 0; i < N; i++) await call(t);
    const w = (performance.now() - w0) / N;
    if (profile && r === ROUNDS - 1) { const { profile: p } = await session.post("Profiler.stop"); writeFileSync(`/tmp/keep/prof-${kind}-${t[0]}${t[1]?.query ? "-q" : ""}${t[1]?.interval ? "-d" : ""}${t[1]?.group_by ? "-m" : ""}${t[1]?.months ? "-24" : ""}.cpuprofile`, JSON.stringify(p)); }
    best.set(key, Math.min(best.get(key) ?? Infinity, w));
  }
}
const ping = best.get("ping ");
for (const [k, w] of best) console.log(`${k.padEnd(80)} best wall ${w.toFixed(2)} ms  x ping ${(w / ping).toFixed(2)}`);
await handle.close();
process.exit(0);
