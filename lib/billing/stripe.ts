/**
 * The Stripe SDK client, built in one place. STRIPE_API_BASE (tests) points it at a local fake
 * that speaks Stripe's wire format (https://docs.stripe.com/api): host, port and protocol come
 * from that URL.
 */
import Stripe from "stripe";
import { getEnv } from "@/lib/env";
import { AppError } from "@/lib/errors";

let cached: { key: string; base: string | undefined; client: Stripe } | undefined;

/** Options for `new Stripe()` that aim it at STRIPE_API_BASE when set. */
export function stripeConnectionOptions(apiBase: string | undefined): Stripe.StripeConfig {
  // Our own bound on every call (the SDK's default is 80 s) and the SDK's retries with backoff
  // for network errors and 409/429/5xx (idempotency keys make retried POSTs safe).
  if (!apiBase) return { timeout: 10_000, maxNetworkRetries: 2 };
  const url = new URL(apiBase);
  const protocol = url.protocol === "http:" ? "http" : "https";
  return {
    host: url.hostname,
    port: url.port || (protocol === "http" ? 80 : 443),
    protocol,
    timeout: 10_000,
    maxNetworkRetries: 0,
    telemetry: false,
  };
}

/** The Stripe client; throws `unavailable` when STRIPE_SECRET_KEY is not set. */
export function getStripe(): Stripe {
  const env = getEnv();
  const key = env.STRIPE_SECRET_KEY;
  if (!key) throw new AppError("unavailable", "Stripe is not configured (STRIPE_SECRET_KEY).");
  if (!cached || cached.key !== key || cached.base !== env.STRIPE_API_BASE) {
    cached = {
      key,
      base: env.STRIPE_API_BASE,
      client: new Stripe(key, stripeConnectionOptions(env.STRIPE_API_BASE)),
    };
  }
  return cached.client;
}
