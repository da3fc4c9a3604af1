"use server";

import { redirect } from "next/navigation";
import { z } from "zod";
import { createAction } from "@/lib/action";
import { createCheckoutUrl, createPortalUrl } from "@/lib/billing/checkout";
import { completeLocalCheckout, LOCAL_OUTCOMES } from "@/lib/billing/local-checkout";
import { resolveBillingMode } from "@/lib/billing/mode";
import { getEnv } from "@/lib/env";

/** Stripe: customer first, then Checkout in subscription mode. Local: the labelled test checkout. */
export const subscribeAction = createAction(z.object({}), async (_input, { db, user }) => {
  if (resolveBillingMode(getEnv()) === "local") redirect("/dashboard/billing/local-checkout");
  redirect(await createCheckoutUrl(db, user));
});

/** Stripe: the customer portal. Local: the test checkout, which can change the state too. */
export const manageBillingAction = createAction(z.object({}), async (_input, { db, user }) => {
  if (resolveBillingMode(getEnv()) === "local") redirect("/dashboard/billing/local-checkout");
  redirect(await createPortalUrl(db, user.id));
});

const localCheckoutSchema = z.object({ outcome: z.enum(LOCAL_OUTCOMES) });

/** Finishes the local test checkout with the chosen outcome (refused unless billing is local). */
export const localCheckoutAction = createAction(localCheckoutSchema, async ({ outcome }, { db, user }) => {
  await completeLocalCheckout(db, user.id, outcome);
  redirect(`/dashboard/billing?checkout=${outcome === "succeed" ? "success" : outcome}`);
});
