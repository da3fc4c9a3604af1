import { getDb } from "@/db";
import { fetchPlaidWebhookKey, isPlaidConfigured } from "@/lib/banking/plaid/client";
import { createPlaidWebhookVerifier } from "@/lib/banking/plaid/webhook-verify";
import { applyPlaidWebhook, plaidDeliveryId, plaidWebhookSchema } from "@/lib/banking/plaid/webhooks";
import { syncConnection } from "@/lib/banking/sync";
import { failureFields } from "@/lib/errors";
import { notAllowed, readBodyText, tooLarge, unavailable } from "@/lib/http";
import { log } from "@/lib/log";

export const dynamic = "force-dynamic";

/** Plaid's webhook bodies are small; anything bigger is not from Plaid. */
const MAX_BODY_BYTES = 256 * 1024;

// One verifier per process, so verification keys are fetched once per kid and cached.
const verifier = createPlaidWebhookVerifier({ fetchKey: fetchPlaidWebhookKey });

const json = (status: number, body: Record<string, unknown>) => Response.json(body, { status });

// POST /api/webhooks/plaid – Plaid item and transactions webhooks, verified by their signed JWT, once per delivery.
export async function POST(request: Request): Promise<Response> {
  if (!isPlaidConfigured()) return json(404, { error: "not_found", message: "Plaid is not configured." });
  const rawBody = await readBodyText(request, MAX_BODY_BYTES);
  if (rawBody === null) return tooLarge(MAX_BODY_BYTES);

  let verification: Awaited<ReturnType<typeof verifier.verify>>;
  try {
    verification = await verifier.verify(rawBody, request.headers.get("plaid-verification"));
  } catch (error) {
    // Plaid's key endpoint unreachable: we cannot tell, so ask Plaid to retry later.
    log.error("plaid_webhook.key_fetch_failed", failureFields(error));
    return json(503, { error: "unavailable" });
  }
  if (!verification.ok) {
    log.warn("plaid_webhook.rejected", { reason: verification.reason });
    return json(401, { error: "unauthorized", message: "Webhook verification failed." });
  }

  let parsedJson: unknown;
  try {
    parsedJson = JSON.parse(rawBody);
  } catch {
    return json(400, { error: "invalid_input", message: "The body is not JSON." });
  }
  const webhook = plaidWebhookSchema.safeParse(parsedJson);
  if (!webhook.success) return json(400, { error: "invalid_input", message: "Not a Plaid webhook." });

  try {
    const db = await getDb();
    const outcome = await applyPlaidWebhook(
      db,
      webhook.data,
      plaidDeliveryId(verification.bodySha256, verification.iat),
    );
    log.info("plaid_webhook", {
      type: `${webhook.data.webhook_type}.${webhook.data.webhook_code}`,
      outcome: outcome.kind,
    });
    if (outcome.kind === "applied" && outcome.sync) {
      // After the commit: a sync calls Plaid and records its own failures on the connection
      // (the scheduled sync retries), so the webhook is acknowledged either way.
      // A sync already running for this bank holds its lease: this one fetches nothing and says so.
      const summary = await syncConnection(db, outcome.connectionId);
      if (summary.skipped === "already_running") {
        log.info("plaid_webhook.sync_already_running", { connection_id: outcome.connectionId });
        return json(200, { received: true, outcome: outcome.kind, sync: "already_running" });
      }
      return json(200, { received: true, outcome: outcome.kind, status: summary.status });
    }
    return json(200, { received: true, outcome: outcome.kind });
  } catch (error) {
    log.error("plaid_webhook.failed", failureFields(error));
    // Database down: 503 with Retry-After, so Plaid delivers the webhook again.
    const down = unavailable(error);
    if (down) return down;
    return json(500, { error: "internal", message: "Something went wrong on our side. Please try again." });
  }
}

const otherMethods = notAllowed("POST");

export { otherMethods as DELETE, otherMethods as GET, otherMethods as PATCH, otherMethods as PUT };
