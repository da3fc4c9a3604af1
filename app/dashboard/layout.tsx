import { BrowserTimezone } from "@/components/browser-timezone";
import { DashboardNav } from "@/components/dashboard-nav";
import { SiteHeader } from "@/components/site-header";
import { requirePageUser } from "@/lib/auth";
import { timezoneOf } from "./format";

export const dynamic = "force-dynamic";

// Convenience only: each page checks the session itself too (layouts do not re-run on every navigation).
export default async function DashboardLayout({ children }: { children: React.ReactNode }) {
  const user = await requirePageUser();
  const { set } = await timezoneOf(user.id);
  return (
    <div className="min-h-screen">
      {set ? null : <BrowserTimezone />}
      <SiteHeader user={user} />
      <DashboardNav />
      <main className="mx-auto max-w-5xl px-4 py-8 sm:px-6">{children}</main>
    </div>
  );
}
