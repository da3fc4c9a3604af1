export default function DashboardLoading() {
  return (
    <div role="status" aria-live="polite" className="animate-pulse space-y-4">
      <span className="sr-only">Loading…</span>
      <div className="h-6 w-48 rounded bg-slate-200" />
      <div className="h-32 rounded-lg bg-slate-200" />
    </div>
  );
}
