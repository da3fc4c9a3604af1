/**
 * `npx tsx scripts/simulate-sync.ts`: how many bank connections the scheduled sync keeps fresh,
 * at the defaults and at 10× and 100× as many (docs/deploy.md, "Scheduled sync at scale").
 *
 * 1. Measured: real cron runs (lib/banking/sync-due.ts `syncDueConnections`, the code behind
 *    /api/cron/sync) on a real database against an in-process fake provider that answers like
 *    Plaid in latency (below): every connection first linked (its first sync, untimed), then made
 *    stale, then one run of SYNC_BATCH_SIZE (and one of 3× that) is timed. From it: the time one
 *    sync takes (provider calls plus the database), and the syncs per second of one run.
 * 2. Modelled: a day and a half of cron runs in virtual time with the same rules — due when the
 *    data is older than SYNC_STALE_AFTER_MINUTES, oldest first, at most the batch per run,
 *    CONCURRENCY at a time, a run cut at maxDuration (300 s; what it had not finished is due
 *    again next run) — each sync taking a duration drawn from step 1's. Reported for the second
 *    day: the oldest data any connection had, and the share of connections whose data was never
 *    older than the staleness plus one cron interval ("kept fresh").
 *
 * Fake provider latency (assumed, Plaid-like; Plaid publishes no figures): /accounts/get
 * 200–500 ms; /transactions/sync 300–800 ms per page, 1–4 pages; /investments/holdings/get
 * 300–900 ms (70 % of items: no investment accounts), then /investments/transactions/get
 * 400–1000 ms; /liabilities/get 300–900 ms (half: none); /transactions/recurring/get 400–1200 ms.
 *
 * Options: `--database-url <postgres url>` (default: an in-memory PGlite; use a scratch
 * database, the run adds its users), `--connections <n>` measured in step 1 (default the batch
 * size), `--seed <n>`. It prints figures; it asserts nothing.
 */
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";

process.env.LOG_LEVEL ||= "error";
process.env.ENCRYPTION_KEY ||= Buffer.alloc(32, 7).toString("base64");

const { values: args } = parseArgs({
  options: {
    "database-url": { type: "string" },
    connections: { type: "string" },
    seed: { type: "string", default: "34" },
  },
});

// vercel.json's schedule and app/api/cron/sync/route.ts's maxDuration.
const CRON_MINUTES = 60;
const MAX_DURATION_S = 300;

/** A small seeded PRNG (mulberry32), so runs are repeatable. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = prng(Number(args.seed));
const between = (lo: number, hi: number) => lo + (hi - lo) * random();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main() {
  const { openDatabase } = await import("@/db");
  const { bankConnections, users } = await import("@/db/schema");
  const { encryptSecret } = await import("@/lib/crypto");
  const { getEnv } = await import("@/lib/env");
  const { ProviderError } = await import("@/lib/banking/provider");
  const { setProviderForTesting } = await import("@/lib/banking/registry");
  const { accessTokenAad, syncConnection } = await import("@/lib/banking/sync");
  const { CONCURRENCY, syncDueConnections } = await import("@/lib/banking/sync-due");
  const { inArray } = await import("drizzle-orm");
  type BankProvider = import("@/lib/banking/provider").BankProvider;
  type ProviderTransaction = import("@/lib/banking/provider").ProviderTransaction;

  const env = getEnv();
  const batch = env.SYNC_BATCH_SIZE;
  const staleMinutes = env.SYNC_STALE_AFTER_MINUTES;

  // The fake provider: Plaid-like latency, a few new transactions per page.
  let latencyOn = false;
  const wait = (lo: number, hi: number) => (latencyOn ? sleep(between(lo, hi)) : Promise.resolve());
  const items = new Map<string, { investments: boolean; liabilities: boolean; syncs: number }>();
  let providerMs = 0;
  const timed = async <T>(lo: number, hi: number, answer: () => T): Promise<T> => {
    const started = performance.now();
    await wait(lo, hi);
    providerMs += performance.now() - started;
    return answer();
  };
  const notSupported = (what: string) =>
    new ProviderError("product_not_supported", `${what} are not available`, { providerCode: "NO_ACCOUNTS" });
  const itemOf = (token: string) => {
    let item = items.get(token);
    if (!item) {
      item = { investments: random() < 0.3, liabilities: random() < 0.5, syncs: 0 };
      items.set(token, item);
    }
    return item;
  };
  const accounts = (token: string) => [
    {
      providerAccountId: `${token}-chk`,
      name: "Checking",
      officialName: null,
      mask: "0001",
      type: "depository" as const,
      subtype: "checking",
      currency: "USD",
      currentBalanceMinor: 250_000,
      availableBalanceMinor: 250_000,
      limitMinor: null,
    },
    {
      providerAccountId: `${token}-cc`,
      name: "Card",
      officialName: null,
      mask: "0002",
      type: "credit" as const,
      subtype: "credit card",
      currency: "USD",
      currentBalanceMinor: 40_000,
      availableBalanceMinor: null,
      limitMinor: 500_000,
    },
  ];
  const fake = {
    getAccounts: (token: string) => timed(200, 500, () => accounts(token)),
    syncTransactions: (token: string, cursor: string | null) =>
      timed(300, 800, () => {
        const item = itemOf(token);
        const page = cursor?.includes(":p") ? Number(cursor.split(":p")[1]) : 0;
        if (page === 0) item.syncs += 1;
        const pages = latencyOn ? 1 + Math.floor(random() * 4) : 1;
        const today = new Date().toISOString().slice(0, 10);
        const added: ProviderTransaction[] = Array.from({ length: 5 }, (_, i) => ({
          providerTransactionId: `${token}-${item.syncs}-${page}-${i}`,
          providerAccountId: `${token}-${i % 2 ? "cc" : "chk"}`,
          pendingTransactionId: null,
          date: today,
          authorizedDate: today,
          name: "Coffee",
          merchantName: "Coffee",
          amountMinor: -450,
          currency: "USD",
          category: "restaurants",
          pending: false,
          isTransfer: false,
          paymentChannel: "in store",
        }));
        const hasMore = page + 1 < pages;
        return {
          added,
          modified: [],
          removed: [],
          nextCursor: `${token}:s${item.syncs}:p${hasMore ? page + 1 : 0}`,
          hasMore,
        };
      }),
    getHoldings: (token: string) =>
      timed(300, 900, () => {
        if (!itemOf(token).investments) throw notSupported("Investments");
        return { holdings: [], securities: [] };
      }),
    getInvestmentTransactions: () => timed(400, 1000, () => ({ investmentTransactions: [], securities: [] })),
    getLiabilities: (token: string) =>
      timed(300, 900, () => {
        if (!itemOf(token).liabilities) throw notSupported("Liabilities");
        return [];
      }),
    getRecurringStreams: () => timed(400, 1200, () => []),
  } as unknown as BankProvider;
  setProviderForTesting("plaid", fake);

  const handle = await openDatabase(
    args["database-url"] ? { url: args["database-url"] } : { pgliteDir: "memory://" },
  );
  const db = handle.db;
  const userIds: string[] = [];

  async function addConnections(n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const userId = randomUUID();
      userIds.push(userId);
      await db.insert(users).values({ id: userId, email: `simulate-${userId}@test.ledgerlink.local` });
      const itemId = `sim-item-${randomUUID()}`;
      const token = `access-sim-${randomUUID()}`;
      const secret = encryptSecret(token, accessTokenAad("plaid", itemId));
      const [row] = await db
        .insert(bankConnections)
        .values({
          userId,
          provider: "plaid",
          providerItemId: itemId,
          institutionId: "ins_sim",
          institutionName: "Simulated Bank",
          accessTokenCiphertext: secret.ciphertext,
          accessTokenKeyVersion: secret.keyVersion,
        })
        .returning({ id: bankConnections.id });
      // Linked: the first sync (the whole history), untimed.
      await syncConnection(db, row!.id);
      ids.push(row!.id);
    }
    return ids;
  }

  async function measuredRun(n: number) {
    const ids = await addConnections(n);
    const stale = new Date(Date.now() - (staleMinutes + 60) * 60_000);
    await db
      .update(bankConnections)
      .set({ lastSyncedAt: stale, lastSyncAttemptAt: stale })
      .where(inArray(bankConnections.id, ids));
    latencyOn = true;
    providerMs = 0;
    const started = performance.now();
    const report = await syncDueConnections(db, { userIds, batchSize: n });
    const seconds = (performance.now() - started) / 1000;
    latencyOn = false;
    // Every claimed connection is this run's: the earlier ones were synced just now.
    const perSync = (seconds * Math.min(CONCURRENCY, n)) / Math.max(1, report.synced);
    const providerPerSync = providerMs / 1000 / Math.max(1, report.synced);
    return {
      n,
      report,
      seconds,
      perSync,
      providerPerSync,
      dbPerSync: Math.max(0, perSync - providerPerSync),
    };
  }

  const n1 = Number(args.connections ?? batch);
  console.log(
    `Measured on ${handle.kind} (${args["database-url"] ? "PostgreSQL" : "in-memory PGlite"}), fake provider at Plaid-like latency, CONCURRENCY ${CONCURRENCY}:`,
  );
  const runs = [];
  for (const n of [n1, 3 * n1]) {
    const run = await measuredRun(n);
    runs.push(run);
    console.log(
      `  one cron run of ${n}: ${run.seconds.toFixed(1)} s (due ${run.report.due}, synced ${run.report.synced}, failed ${run.report.failed}, skipped ${run.report.skipped}); ` +
        `one sync ${run.perSync.toFixed(2)} s (provider ${run.providerPerSync.toFixed(2)} s, database and the rest ${run.dbPerSync.toFixed(2)} s); ` +
        `${(run.report.synced / run.seconds).toFixed(2)} syncs/s`,
    );
  }
  setProviderForTesting("plaid", undefined);
  await handle.close();

  // Step 2: the model. A sync's duration: the provider's latency drawn afresh plus the measured
  // database time of the larger run.
  const dbSeconds = runs[runs.length - 1]!.dbPerSync;
  const syncSeconds = () => {
    let s = between(0.2, 0.5);
    const pages = 1 + Math.floor(random() * 4);
    for (let p = 0; p < pages; p++) s += between(0.3, 0.8);
    s += between(0.3, 0.9);
    if (random() < 0.3) s += between(0.4, 1.0);
    s += between(0.3, 0.9) + between(0.4, 1.2);
    return s + dbSeconds;
  };

  function model(connections: number, everyMinutes: number, batchSize: number) {
    const staleS = staleMinutes * 60;
    const day = 86_400;
    // Linked at spread-out times over the last stale window, as a real population is.
    const last = Array.from({ length: connections }, (_, i) => -staleS * (i / connections));
    let worstAge = 0;
    const everStale = new Set<number>();
    let synced = 0;
    const runSeconds: number[] = [];
    for (let t = 0; t < 1.5 * day; t += everyMinutes * 60) {
      // Due at t: data older than the staleness, oldest first, at most the batch.
      const due: number[] = [];
      for (let i = 0; i < connections; i++) if (t - last[i]! > staleS) due.push(i);
      due.sort((a, b) => last[a]! - last[b]!);
      const claimed = due.slice(0, batchSize);
      // CONCURRENCY workers; a sync still running at maxDuration is killed (due again next run).
      const workers = new Array(CONCURRENCY).fill(0) as number[];
      let end = 0;
      for (const i of claimed) {
        const w = workers.indexOf(Math.min(...workers));
        const finish = workers[w]! + syncSeconds();
        if (workers[w]! >= MAX_DURATION_S) break;
        workers[w] = Math.min(finish, MAX_DURATION_S);
        if (finish <= MAX_DURATION_S) {
          last[i] = t + finish;
          if (t >= day / 2) synced++;
        }
        end = Math.max(end, Math.min(finish, MAX_DURATION_S));
      }
      if (t >= day / 2) runSeconds.push(end);
      if (t >= day / 2) {
        for (let i = 0; i < connections; i++) {
          const age = t - last[i]!;
          worstAge = Math.max(worstAge, age);
          if (age > staleS + everyMinutes * 60) everStale.add(i);
        }
      }
    }
    return {
      syncsPerHour: (synced / day) * 3600,
      neededPerHour: (connections / staleMinutes) * 60,
      worstAgeHours: worstAge / 3600,
      fresh: 1 - everStale.size / connections,
      longestRun: Math.max(...runSeconds),
    };
  }

  const atDefaults = batch * (staleMinutes / CRON_MINUTES);
  console.log(
    `\nModelled (the last 24 h of 36; stale after ${staleMinutes} min; a run cut at ${MAX_DURATION_S} s; "fresh" = data never older than the staleness plus one cron interval):`,
  );
  console.log(
    "  connections | cron every | batch | syncs/h needed | syncs/h done | longest run | oldest data | kept fresh",
  );
  const scenarios: Array<[number, number, number]> = [
    [atDefaults, CRON_MINUTES, batch],
    [atDefaults * 1.5, CRON_MINUTES, batch],
    [atDefaults * 10, CRON_MINUTES, batch],
    [atDefaults * 10, CRON_MINUTES, Math.ceil((atDefaults * 10 * CRON_MINUTES) / staleMinutes)],
    [atDefaults * 10, 15, Math.ceil((atDefaults * 10 * 15) / staleMinutes)],
    [atDefaults * 10, 15, 100],
    [atDefaults * 100, 15, 100],
    [atDefaults * 100, 5, Math.ceil((atDefaults * 100 * 5) / staleMinutes)],
    [atDefaults * 100, 1, Math.ceil((atDefaults * 100 * 1) / staleMinutes) + 10],
  ];
  for (const [connections, every, size] of scenarios) {
    const r = model(connections, every, size);
    console.log(
      `  ${String(connections).padStart(11)} | ${`${every} min`.padStart(10)} | ${String(size).padStart(5)} | ${r.neededPerHour.toFixed(0).padStart(14)} | ${r.syncsPerHour.toFixed(0).padStart(12)} | ${`${r.longestRun.toFixed(0)} s`.padStart(11)} | ${`${r.worstAgeHours.toFixed(1)} h`.padStart(11)} | ${`${(r.fresh * 100).toFixed(0)} %`.padStart(10)}`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
