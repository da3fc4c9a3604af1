"use client";

import { LoadError } from "@/components/load-error";

// A dashboard page failed: the navigation stays, the page says why.
export default function DashboardError({ reset }: { error: Error; reset: () => void }) {
  return <LoadError reset={reset} />;
}
