/**
 * The environment, parsed once with zod. A missing or malformed setting stops start-up with one
 * sentence naming it and what it should look like. Import `env` (or call `getEnv()` in code that
 * must re-read it, such as tests that change process.env).
 */
import { z } from "zod";

const optionalString = z
  .string()
  .trim()
  .transform((v) => (v === "" ? undefined : v))
  .optional();

const positiveInt = (fallback: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, "a whole number")
    .transform(Number)
    .optional()
    .transform((v) => v ?? fallback);

const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  APP_URL: z
    .url({ protocol: /^https?$/, error: "an absolute http(s) URL such as https://ledgerlink.example" })
    .default("http://localhost:3000")
    .transform((v) => v.replace(/\/+$/, "")),
  DATABASE_URL: z
    .string()
    .trim()
    .regex(/^postgres(ql)?:\/\//, "a postgres:// or postgresql:// URL")
    .optional()
    .or(z.literal("").transform(() => undefined)),
  /**
   * A direct (unpooled) URL to the same database, for `npm run db:migrate`: its advisory lock is a
   * session lock, which a pooler in transaction mode does not keep (Vercel's Neon integration sets it).
   */
  DATABASE_URL_UNPOOLED: z
    .string()
    .trim()
    .regex(/^postgres(ql)?:\/\//, "a postgres:// or postgresql:// URL")
    .optional()
    .or(z.literal("").transform(() => undefined)),
  PGLITE_DIR: z.string().trim().min(1).default(".data/pglite"),
  /** Force the driver for DATABASE_URL (default `pg`, Neon hosts too: db/index.ts NEON_DEFAULT_DRIVER). */
  DATABASE_DRIVER: z
    .enum(["pg", "neon", "neon-http"])
    .optional()
    .or(z.literal("").transform(() => undefined)),
  /** Tests and the bench only: `127.0.0.1:<port>` of a local stand-in for Neon's proxy (tests/support/neon-local.ts). */
  NEON_LOCAL_PROXY: optionalString,
  PG_POOL_MAX: positiveInt(10),
  /**
   * Bounds on every database wait (milliseconds): opening a connection, waiting for a pooled one,
   * one statement (server side; our side waits half a second more), and one lock. A frozen
   * database answers 503 within the largest (3.5 s, under the 5 s every surface promises); a
   * request statement waiting on a lock (a migration's `alter table`) gives up after half a
   * second instead of holding its connection while others wait for one.
   */
  DB_CONNECT_TIMEOUT_MS: positiveInt(3_000),
  DB_ACQUIRE_TIMEOUT_MS: positiveInt(3_000),
  DB_STATEMENT_TIMEOUT_MS: positiveInt(3_000),
  DB_LOCK_TIMEOUT_MS: positiveInt(500),
  /** Syncs write a bank's whole history in one transaction: their own small pool, with a longer statement bound. */
  SYNC_STATEMENT_TIMEOUT_MS: positiveInt(60_000),
  SYNC_POOL_MAX: positiveInt(2),
  /**
   * `1` (default): request statements run as named prepared statements, parsed and planned once
   * per connection (db/index.ts). `0` for a pooler in transaction mode that does not support
   * protocol-level prepared statements (PgBouncer before 1.21, or without max_prepared_statements).
   */
  DB_PREPARED_STATEMENTS: z
    .enum(["0", "1"])
    .default("1")
    .transform((v) => v === "1"),
  /** 32 bytes as base64 or 64 hex characters; optionally several as `version:key,…` (newest last). */
  ENCRYPTION_KEY: optionalString,
  AUTH_SECRET: optionalString,
  BILLING: z
    .enum(["stripe", "local"])
    .optional()
    .or(z.literal("").transform(() => undefined)),
  STRIPE_SECRET_KEY: optionalString,
  STRIPE_WEBHOOK_SECRET: optionalString,
  STRIPE_PRICE_ID: optionalString,
  /** The price as people read it on the landing and billing pages (Stripe's price is the one charged). */
  PRICE_LABEL: z.string().trim().min(1).default("$9 per month"),
  /** For tests: talk to a local fake of Stripe's API instead of api.stripe.com. */
  STRIPE_API_BASE: optionalString,
  PLAID_CLIENT_ID: optionalString,
  PLAID_SECRET: optionalString,
  PLAID_ENV: z.enum(["sandbox", "production"]).default("sandbox"),
  PLAID_API_BASE: optionalString,
  PLAID_REDIRECT_URI: optionalString,
  PLAID_WEBHOOK_URL: optionalString,
  /** Our bound on one Plaid call (ms); real-time balances get at least the 30 s Plaid documents for them. */
  PLAID_TIMEOUT_MS: positiveInt(10_000),
  CRON_SECRET: optionalString,
  /** `1` lets the sandbox force re-authorization in a production build (browser tests only). */
  ALLOW_SANDBOX_REAUTH: z
    .enum(["0", "1"])
    .default("0")
    .transform((v) => v === "1"),
  SYNC_STALE_AFTER_MINUTES: positiveInt(360),
  SYNC_BATCH_SIZE: positiveInt(25),
  /**
   * How far ahead a running sync holds its connection's lease (renewed every third of it). A sync
   * that was killed keeps the connection from being synced again until its lease runs out, then
   * the next cron run retries it. Short in tests that kill servers.
   */
  SYNC_LEASE_SECONDS: positiveInt(60),
  SMTP_URL: optionalString,
  /**
   * How sign-in links are delivered: `smtp` (needs SMTP_URL) or `log` (written to the server log).
   * Default: smtp when SMTP_URL is set, log under `next dev`, otherwise email sign-in is off. A
   * link in the log is a secret, so production logs it only when this says `log` explicitly.
   */
  EMAIL_TRANSPORT: z
    .enum(["smtp", "log"])
    .optional()
    .or(z.literal("").transform(() => undefined)),
  EMAIL_FROM: z.string().default("Ledgerlink <no-reply@ledgerlink.local>"),
  AUTH_GITHUB_ID: optionalString,
  AUTH_GITHUB_SECRET: optionalString,
  OAUTH_ACCESS_TOKEN_TTL_SECONDS: positiveInt(3600),
  OAUTH_REFRESH_TOKEN_TTL_SECONDS: positiveInt(90 * 24 * 3600),
  RATE_LIMIT_PER_MINUTE: positiveInt(120),
  /** A request body must arrive within this long (ms) of the handler starting to read it, or 408. */
  REQUEST_BODY_TIMEOUT_MS: positiveInt(10_000),
  /** Per client IP and minute at the OAuth endpoints (429 with Retry-After beyond). */
  OAUTH_REGISTER_PER_MINUTE: positiveInt(20),
  OAUTH_TOKEN_PER_MINUTE: positiveInt(60),
  /** Log lines below this level are not written (lib/log.ts reads it straight from the environment). */
  LOG_LEVEL: z
    .enum(["info", "warn", "error"])
    .optional()
    .or(z.literal("").transform(() => undefined)),
  /**
   * OpenTelemetry traces and metrics are exported (OTLP over HTTP) only when this is set
   * (lib/telemetry-sdk.ts); the other OTEL_* settings are read by the SDK itself.
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .url({ protocol: /^https?$/, error: "an absolute http(s) URL of an OTLP collector" })
    .optional()
    .or(z.literal("").transform(() => undefined)),
  /**
   * Tests only: origins on loopback (`http://127.0.0.1:4555,http://localhost:4556`) whose client
   * metadata documents are fetched over plain http and without the public-address check. Off
   * unless set; the server says so at start-up (lib/oauth/startup.ts).
   */
  OAUTH_CIMD_TEST_ORIGINS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const origins: string[] = [];
      for (const entry of (v ?? "").split(",").map((s) => s.trim())) {
        if (!entry) continue;
        const url = URL.canParse(entry) ? new URL(entry) : null;
        if (
          !url ||
          !/^https?:$/.test(url.protocol) ||
          !["127.0.0.1", "[::1]", "localhost"].includes(url.hostname) ||
          url.origin !== entry.replace(/\/$/, "")
        ) {
          ctx.addIssue({
            code: "custom",
            message: `comma-separated loopback origins such as http://127.0.0.1:4555 (not ${JSON.stringify(entry)})`,
          });
          return z.NEVER;
        }
        origins.push(url.origin);
      }
      return origins;
    }),
});

export type Env = z.infer<typeof envSchema>;

/** Parses `source` (default `process.env`); throws one sentence per bad setting, all at once. */
export function parseEnv(source: Record<string, string | undefined> = process.env): Env {
  const result = envSchema.safeParse(source);
  if (!result.success) {
    const sentences = result.error.issues.map(
      (issue) => `Setting ${String(issue.path[0] ?? "environment")} is invalid: expected ${issue.message}.`,
    );
    throw new Error(sentences.join(" "));
  }
  return result.data;
}

let cached: Env | undefined;

/** The parsed environment, read once per process. */
export function getEnv(): Env {
  cached ??= parseEnv();
  return cached;
}

/** Forget the cached environment (tests that change process.env). */
export function resetEnvCache(): void {
  cached = undefined;
}

export const env: Env = new Proxy({} as Env, {
  get: (_target, prop) => getEnv()[prop as keyof Env],
});
