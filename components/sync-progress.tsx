"use client";

import { useEffect, useState } from "react";

/** What the first sync is doing, with elapsed seconds, while the server works. */
export function SyncProgress({ label }: { label: string }) {
  const [seconds, setSeconds] = useState(0);
  useEffect(() => {
    const started = Date.now();
    const timer = setInterval(() => setSeconds(Math.floor((Date.now() - started) / 1000)), 250);
    return () => clearInterval(timer);
  }, []);
  const phase =
    seconds < 2
      ? "Signing in at the bank…"
      : seconds < 5
        ? "Reading accounts and balances…"
        : "Downloading transactions…";
  return (
    <div role="status" aria-live="polite" className="space-y-2" data-testid="sync-progress">
      <p className="text-sm font-medium text-slate-900">{label}</p>
      <p className="text-sm text-slate-700">
        {phase} <span className="tabular-nums text-slate-500">({seconds}s)</span>
      </p>
      <div className="h-2 overflow-hidden rounded-full bg-slate-200" aria-hidden="true">
        <div className="h-full w-1/3 animate-pulse rounded-full bg-slate-900" />
      </div>
    </div>
  );
}
