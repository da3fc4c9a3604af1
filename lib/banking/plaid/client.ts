/**
 * The official `plaid` SDK, configured once from the environment, and the translation of its
 * errors into ours.
 *
 * - Host: `PLAID_API_BASE` when set (tests point the SDK at a local fake), else
 *   `PlaidEnvironments[PLAID_ENV]` (sandbox / production).
 * - Credentials go in the `PLAID-CLIENT-ID` / `PLAID-SECRET` headers, API version pinned to
 *   2020-09-14 (https://plaid.com/docs/api/versioning/).
 * - Errors (https://plaid.com/docs/errors/) become `ProviderError` with our code and Plaid's
 *   `request_id`. The SDK's axios error carries the request config — access token and secret —
 *   so it is never attached as `cause` and never logged; only Plaid's error fields are.
 */
import { Configuration, PlaidApi, PlaidEnvironments } from "plaid";
import { z } from "zod";
import { getEnv } from "@/lib/env";
import { log } from "@/lib/log";
import { ProviderError, type ProviderErrorCode } from "../provider";

/** True when Plaid credentials are set: new connections then go through Plaid. */
export function isPlaidConfigured(): boolean {
  const env = getEnv();
  return Boolean(env.PLAID_CLIENT_ID && env.PLAID_SECRET);
}

let cached: { key: string; api: PlaidApi } | undefined;

/** The process-wide Plaid client (rebuilt if the settings change, which only tests do). */
export function getPlaidApi(): PlaidApi {
  const env = getEnv();
  if (!env.PLAID_CLIENT_ID || !env.PLAID_SECRET) {
    throw new ProviderError(
      "provider_error",
      "Plaid is not configured: set PLAID_CLIENT_ID and PLAID_SECRET.",
    );
  }
  const basePath = env.PLAID_API_BASE ?? PlaidEnvironments[env.PLAID_ENV];
  const key = `${basePath}|${env.PLAID_CLIENT_ID}|${env.PLAID_SECRET}|${env.PLAID_TIMEOUT_MS}`;
  if (cached?.key !== key) {
    const configuration = new Configuration({
      basePath,
      baseOptions: {
        headers: {
          "PLAID-CLIENT-ID": env.PLAID_CLIENT_ID,
          "PLAID-SECRET": env.PLAID_SECRET,
          "Plaid-Version": "2020-09-14",
        },
        // A Plaid call never holds a sync (or a person at the dashboard) longer than this; the SDK
        // does not retry, so a timed-out sync is retried by the next cron run or webhook.
        timeout: env.PLAID_TIMEOUT_MS,
      },
    });
    cached = { key, api: new PlaidApi(configuration) };
  }
  return cached.api;
}

/** Plaid's error body (https://plaid.com/docs/errors/#error-schema). */
export const plaidErrorSchema = z.object({
  error_type: z.string(),
  error_code: z.string(),
  error_message: z.string().optional().nullable(),
  display_message: z.string().optional().nullable(),
  request_id: z.string().optional().nullable(),
});
export type PlaidErrorBody = z.infer<typeof plaidErrorSchema>;

/** Item states the user fixes by logging in again through Link's update mode. */
export const REAUTH_CODES: ReadonlySet<string> = new Set([
  "ITEM_LOGIN_REQUIRED",
  // Consent expiry: PENDING_EXPIRATION / PENDING_DISCONNECT warn before it; after it, Plaid
  // answers ITEM_LOGIN_REQUIRED. Both are fixed by update mode.
  "PENDING_EXPIRATION",
  "PENDING_DISCONNECT",
  "INVALID_CREDENTIALS",
  "INVALID_MFA",
  "INVALID_UPDATED_USERNAME",
  "ITEM_LOCKED",
  "USER_SETUP_REQUIRED",
  "ACCESS_NOT_GRANTED",
  "USER_PERMISSION_REVOKED",
]);

/** The item cannot serve this product: a warning, not a failure. */
export const PRODUCT_UNAVAILABLE_CODES: ReadonlySet<string> = new Set([
  "PRODUCTS_NOT_SUPPORTED",
  "PRODUCT_NOT_READY",
  "PRODUCT_NOT_ENABLED",
  "NO_INVESTMENT_ACCOUNTS",
  "NO_INVESTMENT_AUTH_ACCOUNTS",
  "NO_LIABILITY_ACCOUNTS",
  "NO_ACCOUNTS",
  "ADDITIONAL_CONSENT_REQUIRED",
]);

const INVALID_TOKEN_CODES: ReadonlySet<string> = new Set([
  "INVALID_ACCESS_TOKEN",
  "INVALID_PUBLIC_TOKEN",
  "ITEM_NOT_FOUND",
]);

/** Our code for a Plaid error body and HTTP status. */
export function providerCodeFor(
  body: Pick<PlaidErrorBody, "error_type" | "error_code">,
  status?: number,
): ProviderErrorCode {
  if (REAUTH_CODES.has(body.error_code)) return "reauth_required";
  if (PRODUCT_UNAVAILABLE_CODES.has(body.error_code)) return "product_not_supported";
  if (INVALID_TOKEN_CODES.has(body.error_code)) return "invalid_token";
  if (body.error_type === "RATE_LIMIT_EXCEEDED" || status === 429) return "rate_limited";
  if (body.error_type === "INSTITUTION_ERROR" || body.error_code === "PLANNED_MAINTENANCE")
    return "institution_down";
  return "provider_error";
}

const axiosLikeSchema = z.object({
  response: z.object({ status: z.number(), data: z.unknown() }).optional(),
  code: z.string().optional(),
});

/**
 * Any error thrown by a Plaid call → `ProviderError`. Logs one line with the endpoint, Plaid's
 * error code and request id — never the request (which holds the access token and secret).
 */
export function toProviderError(error: unknown, endpoint: string): ProviderError {
  if (error instanceof ProviderError) return error;
  const parsed = axiosLikeSchema.safeParse(error);
  const response = parsed.success ? parsed.data.response : undefined;
  const body = response ? plaidErrorSchema.safeParse(response.data) : undefined;
  if (body?.success) {
    const code = providerCodeFor(body.data, response?.status);
    const requestId = body.data.request_id ?? undefined;
    // Expected states (reauth, unsupported products, rate limits, the sync restart signal) are
    // handled by callers; the rest is logged for support with Plaid's request id.
    const expected = body.data.error_code === "TRANSACTIONS_SYNC_MUTATION_DURING_PAGINATION";
    if ((code === "provider_error" || code === "invalid_token") && !expected) {
      log.error("plaid.error", {
        endpoint,
        status: response?.status,
        error_type: body.data.error_type,
        error_code: body.data.error_code,
        plaid_request_id: requestId,
      });
    }
    const message = `Plaid ${body.data.error_code}: ${body.data.display_message ?? body.data.error_message ?? body.data.error_type}`;
    return new ProviderError(code, message.slice(0, 500), { requestId, providerCode: body.data.error_code });
  }
  // No Plaid body: a network failure or timeout. Retry later.
  const networkCode = parsed.success ? parsed.data.code : undefined;
  log.error("plaid.unreachable", { endpoint, status: response?.status, code: networkCode });
  return new ProviderError(
    "provider_error",
    `Plaid could not be reached (${networkCode ?? response?.status ?? "no response"}).`,
    {
      providerCode: networkCode,
    },
  );
}

/** Runs one Plaid call, translating its failure. */
export async function callPlaid<T>(endpoint: string, call: () => Promise<{ data: T }>): Promise<T> {
  try {
    return (await call()).data;
  } catch (error) {
    throw toProviderError(error, endpoint);
  }
}

/** Plaid's answers meaning "no such key id" (INVALID_API_KEYS and outages are thrown instead). */
const UNKNOWN_KEY_CODES: ReadonlySet<string> = new Set([
  "INVALID_WEBHOOK_VERIFICATION_KEY_ID",
  "INVALID_FIELD",
]);

/** Fetches a webhook verification JWK by key id (null when Plaid does not know it). */
export async function fetchPlaidWebhookKey(kid: string): Promise<unknown | null> {
  try {
    const data = await callPlaid("/webhook_verification_key/get", () =>
      getPlaidApi().webhookVerificationKeyGet({ key_id: kid }),
    );
    return data.key;
  } catch (error) {
    // A 400 about the key id (INVALID_WEBHOOK_VERIFICATION_KEY_ID …) means "no such key";
    // anything else (Plaid unreachable) is thrown so the route answers 5xx and Plaid retries.
    if (error instanceof ProviderError && UNKNOWN_KEY_CODES.has(error.providerCode ?? "")) return null;
    throw error;
  }
}
