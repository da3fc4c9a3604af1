import { getDb } from "@/db";
import { getSessionUser } from "@/lib/auth";
import { completeCheckoutReturn } from "@/lib/billing/checkout";
import { getEnv } from "@/lib/env";
import { failureFields } from "@/lib/errors";
import { notAllowed } from "@/lib/http";
import { log } from "@/lib/log";

export const dynamic = "force-dynamic";

// GET /api/billing/checkout-return?session_id=… – Stripe Checkout's success URL: sync, then back to billing.
export async function GET(request: Request): Promise<Response> {
  const appUrl = getEnv().APP_URL;
  const user = await getSessionUser();
  if (!user) return Response.redirect(`${appUrl}/sign-in`, 303);
  const sessionId = new URL(request.url).searchParams.get("session_id");
  if (!sessionId || !/^cs_[A-Za-z0-9_]+$/.test(sessionId)) {
    return Response.redirect(`${appUrl}/dashboard/billing?checkout=error`, 303);
  }
  try {
    await completeCheckoutReturn(await getDb(), user.id, sessionId);
    return Response.redirect(`${appUrl}/dashboard/billing?checkout=success`, 303);
  } catch (error) {
    log.error("checkout_return.failed", failureFields(error));
    return Response.redirect(`${appUrl}/dashboard/billing?checkout=error`, 303);
  }
}

const otherMethods = notAllowed("GET");

export { otherMethods as DELETE, otherMethods as PATCH, otherMethods as POST, otherMethods as PUT };
