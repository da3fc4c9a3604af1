import Link from "next/link";
import { BillingButton } from "@/components/billing-button";
import { SubscriptionSummary } from "@/components/subscription-summary";
import { Card } from "@/components/ui/card";
import { getDb } from "@/db";
import { getAccess } from "@/lib/access";
import { requirePageUser } from "@/lib/auth";
import { resolveBillingMode } from "@/lib/billing/mode";
import { getEnv } from "@/lib/env";
import { INCLUDED, priceLabel } from "@/lib/plan";

export const dynamic = "force-dynamic";
export const metadata = { title: "Billing · Ledgerlink" };

const RETURN_MESSAGES: Record<string, { text: string; tone: "ok" | "warn" }> = {
  success: { text: "Thank you: your subscription is recorded.", tone: "ok" },
  past_due: { text: "The test payment failed: the subscription is past due.", tone: "warn" },
  cancel: { text: "The test subscription is canceled.", tone: "warn" },
  canceled: { text: "Checkout was canceled; nothing was charged.", tone: "warn" },
  error: {
    text: "We could not confirm the checkout. If you paid, it will appear here shortly.",
    tone: "warn",
  },
};

export default async function BillingPage({
  searchParams,
}: {
  searchParams: Promise<{ checkout?: string }>;
}) {
  const user = await requirePageUser();
  const access = await getAccess(await getDb(), user.id);
  const mode = resolveBillingMode(getEnv());
  const { checkout } = await searchParams;
  const notice = checkout ? RETURN_MESSAGES[checkout] : undefined;
  const subscribed = access.subscription !== "none";
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold tracking-tight">Billing</h1>
      {notice ? (
        <p
          role="status"
          className={`rounded-md p-3 text-sm ${notice.tone === "ok" ? "bg-emerald-50 text-emerald-900" : "bg-amber-50 text-amber-900"}`}
        >
          {notice.text}
        </p>
      ) : null}
      <Card title="Subscription" description={`Ledgerlink · ${priceLabel()}`}>
        <SubscriptionSummary state={access.subscription} />
        <ul className="mt-4 list-disc space-y-1 pl-5 text-sm text-slate-700" aria-label="Included">
          {INCLUDED.map((item) => (
            <li key={item}>{item}</li>
          ))}
        </ul>
        <div className="mt-4 flex flex-wrap gap-3">
          {access.subscription !== "active" ? <BillingButton kind="subscribe" /> : null}
          {subscribed ? <BillingButton kind="manage" /> : null}
        </div>
        {mode === "local" ? (
          <p className="mt-4 text-xs text-amber-800">
            Test mode: billing goes through a local test checkout, not Stripe.{" "}
            <Link className="underline" href="/dashboard/billing/local-checkout">
              Open it
            </Link>
            .
          </p>
        ) : null}
        {mode === null ? (
          <p role="alert" className="mt-4 text-sm text-red-700">
            Billing is not configured on this server.
          </p>
        ) : null}
      </Card>
    </div>
  );
}
