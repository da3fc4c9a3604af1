import { getDb } from "@/db";
import { processStripeEvent, verifyStripeEvent } from "@/lib/billing/stripe-webhook";
import { failureFields, toAppError } from "@/lib/errors";
import { notAllowed, readBodyText, tooLarge, unavailable } from "@/lib/http";
import { log } from "@/lib/log";

export const dynamic = "force-dynamic";

// POST /api/webhooks/stripe – subscription events, verified on the raw body, once per event id.
export async function POST(request: Request): Promise<Response> {
  try {
    const rawBody = await readBodyText(request);
    if (rawBody === null) return tooLarge();
    const event = verifyStripeEvent(rawBody, request.headers.get("stripe-signature"));
    const outcome = await processStripeEvent(await getDb(), event);
    return Response.json({ received: true, outcome });
  } catch (error) {
    // Database down: 503 with Retry-After, and Stripe delivers the event again later.
    const down = unavailable(error);
    if (down) {
      log.error("stripe_webhook.database_unavailable", failureFields(error));
      return down;
    }
    const appError = toAppError(error);
    if (appError.status >= 500) log.error("stripe_webhook.failed", failureFields(error));
    return appError.toResponse();
  }
}

const otherMethods = notAllowed("POST");

export { otherMethods as DELETE, otherMethods as GET, otherMethods as PATCH, otherMethods as PUT };
