import type { Metadata } from "next";
import { DeleteAccountForm } from "@/components/delete-account-form";
import { TimezoneForm } from "@/components/timezone-form";
import { buttonClass } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { requirePageUser } from "@/lib/auth";
import { timezones } from "@/lib/timezone";
import { timezoneOf } from "../format";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Settings · Ledgerlink" };

/** The export's downloads (app/api/export): plain links, so the browser saves the file as it streams. */
const EXPORT_JSON = "/api/export?format=json";
const EXPORT_CSV = "/api/export?format=csv";

// GET /dashboard/settings – the account's email, its timezone, its export and its deletion
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
      <Card
        id="export"
        title="Export your data"
        description="Everything Ledgerlink holds about you, to keep or to take elsewhere: your profile, keys and apps (names and dates, never secrets), banks and accounts, transactions, balance history, investments, debts, recurring payments and activity."
      >
        <div className="flex flex-col gap-2 sm:flex-row">
          <a href={EXPORT_JSON} download className={buttonClass("secondary")}>
            Download everything (JSON)
          </a>
          <a href={EXPORT_CSV} download className={buttonClass("secondary")}>
            Download transactions (CSV)
          </a>
        </div>
        <p className="mt-3 text-sm text-slate-600">
          The CSV opens in any spreadsheet: one row per transaction, amounts in each account's currency.
        </p>
      </Card>
      {user.email ? (
        <Card
          title="Delete your account"
          description="Cancels your subscription, disconnects every bank at the provider, revokes every key and app, and deletes all your data here. This cannot be undone."
        >
          <p className="mb-4 text-sm text-slate-700" data-testid="export-before-delete">
            Your data can be exported first:{" "}
            <a href={EXPORT_JSON} download className="font-medium underline">
              download everything Ledgerlink holds about you (JSON)
            </a>{" "}
            or{" "}
            <a href="#export" className="underline">
              see the export
            </a>
            .
          </p>
          <DeleteAccountForm email={user.email} />
        </Card>
      ) : null}
    </div>
  );
}
