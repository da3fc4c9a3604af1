import { ActivityTable } from "@/components/activity-table";
import { Card } from "@/components/ui/card";
import { getDb } from "@/db";
import { listRecentToolCalls } from "@/lib/activity";
import { requirePageUser } from "@/lib/auth";
import { formatDateTime, timezoneOf } from "../format";

export const dynamic = "force-dynamic";
export const metadata = { title: "Activity · Ledgerlink" };

export default async function ActivityPage() {
  const user = await requirePageUser();
  const [recent, { zone }] = await Promise.all([
    listRecentToolCalls(await getDb(), user.id, 100),
    timezoneOf(user.id),
  ]);
  const calls = recent.map((c) => ({ ...c, when: formatDateTime(c.createdAt, zone) ?? "" }));
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold tracking-tight">Activity</h1>
      <Card
        title="Recent tool calls"
        description="The last 100 calls by your keys and connected apps. Arguments are never stored."
      >
        <ActivityTable calls={calls} />
      </Card>
    </div>
  );
}
