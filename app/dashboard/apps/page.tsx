import type { Metadata } from "next";
import { AccountAccessEditor } from "@/components/account-access-editor";
import { getDb } from "@/db";
import { listChoosableAccounts } from "@/lib/account-access";
import { requirePageUser } from "@/lib/auth";
import { listConnectedApps } from "@/lib/oauth/tokens";
import { formatDateTime, timezoneOf } from "../format";
import { setAppAccountsAction } from "./actions";
import { AppButtons } from "./app-buttons";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Connected apps · Ledgerlink" };

// GET /dashboard/apps – apps the user approved through OAuth, with Revoke
export default async function ConnectedAppsPage() {
  const user = await requirePageUser();
  const db = await getDb();
  const [apps, accounts, { zone }] = await Promise.all([
    listConnectedApps(db, user.id),
    listChoosableAccounts(db, user.id),
    timezoneOf(user.id),
  ]);
  return (
    <section>
      <h1 className="text-2xl font-semibold">Connected apps</h1>
      <p className="mt-2 text-slate-600">
        Apps you approved to read your data through OAuth (for example Claude or ChatGPT connectors). Revoking
        one ends its access at once; it would have to ask you again. An app's access ends a year after you
        approve it, unless you keep it. Each app reads only the accounts you chose for it; a change takes
        effect on its next call.
      </p>
      {apps.length === 0 ? (
        <p className="mt-6 text-slate-600">No apps are connected.</p>
      ) : (
        <ul className="mt-6 divide-y divide-slate-200 rounded-md border border-slate-200 bg-white">
          {apps.map((app) => {
            const name = app.clientName ?? "Unnamed app";
            const host = app.redirectUris[0] ? new URL(app.redirectUris[0]).host : "";
            return (
              <li
                key={app.grantId}
                className="flex flex-wrap items-start justify-between gap-4 p-4"
                data-testid="connected-app"
              >
                <div className="min-w-0">
                  <p className="font-medium">{name}</p>
                  <p className="text-sm text-slate-600">
                    Redirects to {host} · scope {app.scope}
                  </p>
                  <p className="text-sm text-slate-600">
                    Approved {formatDateTime(app.approvedAt, zone)} · Last used{" "}
                    {formatDateTime(app.lastUsedAt, zone) ?? "never"}
                  </p>
                  <p className="text-sm text-slate-600">
                    Access ends {formatDateTime(app.expiresAt, zone)} unless you keep it
                  </p>
                  <AccountAccessEditor
                    accounts={accounts}
                    accountIds={app.accountIds}
                    action={setAppAccountsAction}
                    idField={{ name: "grantId", value: app.grantId }}
                    subject={name}
                  />
                </div>
                <AppButtons grantId={app.grantId} appName={name} />
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
