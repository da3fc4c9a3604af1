import { eq } from "drizzle-orm";
import { BankConnectionRow, type BankConnectionRowData } from "@/components/bank-connection-row";
import { LinkBankPanel } from "@/components/link-bank-panel";
import { PlaidLinkButton } from "@/components/plaid-link-button";
import { Card } from "@/components/ui/card";
import { getDb } from "@/db";
import { bankAccounts } from "@/db/schema";
import { requirePageUser } from "@/lib/auth";
import { canForceSandboxReauth, listConnections, listSandboxInstitutions } from "@/lib/banking/connections";
import { isPlaidConfigured } from "@/lib/banking/plaid/client";
import { formatMoney } from "@/lib/finance/currency";
import { accountKind, syncFailure } from "@/lib/words";
import { formatDateTime, timezoneOf } from "../format";

export const dynamic = "force-dynamic";

/** A balance in the account's own currency and its decimals (¥1,234, $12.34); null when unknown. */
const balanceOf = (a: { currentBalanceMinor: number | null; currency: string }) =>
  a.currentBalanceMinor === null ? null : formatMoney(a.currentBalanceMinor, a.currency);
export const metadata = { title: "Banks · Ledgerlink" };

export default async function BanksPage({ searchParams }: { searchParams: Promise<{ reconnect?: string }> }) {
  const user = await requirePageUser();
  const db = await getDb();
  const { reconnect } = await searchParams;
  const [connections, accounts, { zone }] = await Promise.all([
    listConnections(db, user.id),
    db
      .select({
        id: bankAccounts.id,
        connectionId: bankAccounts.connectionId,
        name: bankAccounts.name,
        mask: bankAccounts.mask,
        type: bankAccounts.type,
        subtype: bankAccounts.subtype,
        currency: bankAccounts.currency,
        currentBalanceMinor: bankAccounts.currentBalanceMinor,
        isClosed: bankAccounts.isClosed,
        hidden: bankAccounts.hidden,
      })
      .from(bankAccounts)
      .where(eq(bankAccounts.userId, user.id))
      .orderBy(bankAccounts.name),
    timezoneOf(user.id),
  ]);
  const rows: BankConnectionRowData[] = connections.map((c) => ({
    id: c.id,
    provider: c.provider,
    institutionName: c.institutionName,
    status: c.status,
    lastSyncedAt: formatDateTime(c.lastSyncedAt, zone),
    lastErrorMessage: c.status === "error" ? syncFailure(c.lastErrorCode) : null,
    warnings: c.warnings ?? [],
    accounts: accounts
      .filter((a) => a.connectionId === c.id && !a.isClosed)
      .map((a) => ({
        id: a.id,
        name: a.name,
        mask: a.mask,
        type: accountKind(a.type, a.subtype),
        // Credit and loan balances are stored as positive amounts owed: say so.
        balance: a.type === "credit" || a.type === "loan" ? `${balanceOf(a) ?? "—"} owed` : balanceOf(a),
        hidden: a.hidden,
      })),
  }));
  const allowForceReauth = canForceSandboxReauth();
  const plaidConfigured = isPlaidConfigured();

  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold tracking-tight">Banks</h1>
      <Card
        title="Link a bank"
        description="Ledgerlink reads balances, transactions, investments and debts. It can never move money."
      >
        <div className="space-y-4">
          {plaidConfigured ? <PlaidLinkButton resumeOAuth /> : null}
          <div>
            {plaidConfigured ? <p className="mb-2 text-sm text-slate-600">Or try the sandbox bank:</p> : null}
            <LinkBankPanel institutions={listSandboxInstitutions()} />
          </div>
        </div>
      </Card>
      <Card
        title="Your banks"
        description="Hide an account to keep it away from every assistant: their answers leave it out and say that accounts are hidden. It keeps syncing, so showing it again is instant."
      >
        {rows.length === 0 ? (
          <p className="text-sm text-slate-600">No bank linked yet.</p>
        ) : (
          <ul className="space-y-3" aria-label="Linked banks">
            {rows.map((row) => (
              <BankConnectionRow
                key={row.id}
                connection={row}
                highlighted={row.id === reconnect}
                allowForceReauth={allowForceReauth}
              />
            ))}
          </ul>
        )}
      </Card>
    </div>
  );
}
