import Link from "next/link";
import { notFound } from "next/navigation";
import { LocalCheckoutForm } from "@/components/local-checkout-form";
import { Card } from "@/components/ui/card";
import { requirePageUser } from "@/lib/auth";
import { resolveBillingMode } from "@/lib/billing/mode";
import { getEnv } from "@/lib/env";

export const dynamic = "force-dynamic";
export const metadata = { title: "Test checkout · Ledgerlink" };

export default async function LocalCheckoutPage() {
  await requirePageUser();
  if (resolveBillingMode(getEnv()) !== "local") notFound();
  return (
    <div className="space-y-6">
      <p
        role="note"
        className="rounded-md border-2 border-dashed border-amber-400 bg-amber-50 p-3 text-sm font-medium text-amber-950"
      >
        TEST CHECKOUT: no money moves. This page exists only because this server runs with local billing (no
        Stripe keys). It drives the same subscription code Stripe would.
      </p>
      <h1 className="text-2xl font-semibold tracking-tight">Ledgerlink monthly (test)</h1>
      <Card title="Choose what the payment does">
        <LocalCheckoutForm />
      </Card>
      <Link href="/dashboard/billing" className="text-sm text-slate-700 underline">
        Back to billing
      </Link>
    </div>
  );
}
