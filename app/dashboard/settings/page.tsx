import type { Metadata } from "next";
import { DeleteAccountForm } from "@/components/delete-account-form";
import { TimezoneForm } from "@/components/timezone-form";
import { Card } from "@/components/ui/card";
import { requirePageUser } from "@/lib/auth";
import { timezones } from "@/lib/timezone";
import { timezoneOf } from "../format";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Settings · Ledgerlink" };

// GET /dashboard/settings – the account's email and its timezone
export default async function SettingsPage() {
  const user = await requirePageUser();
  const { zone } = await timezoneOf(user.id);
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold tracking-tight">Settings</h1>
      <Card title="Account">
        <p className="text-sm text-slate-700">
          Signed in as <span className="font-medium">{user.email ?? "(no email)"}</span>
        </p>
      </Card>
      <Card
        title="Timezone"
        description="Your assistant's periods (“this month”, “last month”) and every time on this dashboard use it."
      >
        <TimezoneForm current={zone} zones={timezones()} />
      </Card>
      {user.email ? (
        <Card
          title="Delete your account"
          description="Cancels your subscription, disconnects every bank at the provider, revokes every key and app, and deletes all your data here. This cannot be undone."
        >
          <DeleteAccountForm email={user.email} />
        </Card>
      ) : null}
    </div>
  );
}
