import { ApiKeyList } from "@/components/api-key-list";
import { CreateKeyForm } from "@/components/create-key-form";
import { Card } from "@/components/ui/card";
import { getDb } from "@/db";
import { listChoosableAccounts } from "@/lib/account-access";
import { listApiKeys } from "@/lib/api-keys";
import { requirePageUser } from "@/lib/auth";
import { getEnv } from "@/lib/env";
import { formatDateTime, timezoneOf } from "../format";

export const dynamic = "force-dynamic";
export const metadata = { title: "API keys · Ledgerlink" };

export default async function KeysPage() {
  const user = await requirePageUser();
  const db = await getDb();
  const [keys, accounts, { zone }] = await Promise.all([
    listApiKeys(db, user.id),
    listChoosableAccounts(db, user.id),
    timezoneOf(user.id),
  ]);
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold tracking-tight">API keys</h1>
      <Card
        title="Create a key"
        description="Clients send it as Authorization: Bearer <key>. We store only a hash: the key is shown once."
      >
        <CreateKeyForm mcpUrl={`${getEnv().APP_URL}/api/mcp`} accounts={accounts} />
      </Card>
      <Card
        title="Your keys"
        description="Rotate replaces a key with the same accounts (the old one stops at once); revoke ends it. A change of accounts takes effect on the key's next call."
      >
        <ApiKeyList
          accounts={accounts}
          keys={keys.map((k) => ({
            id: k.id,
            name: k.name,
            preview: k.preview,
            createdAt: formatDateTime(k.createdAt, zone) ?? "",
            lastUsedAt: formatDateTime(k.lastUsedAt, zone),
            accountIds: k.accountIds,
          }))}
        />
      </Card>
    </div>
  );
}
