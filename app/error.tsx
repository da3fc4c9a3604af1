"use client";

import { LoadError } from "@/components/load-error";

// Anything above the dashboard's own boundary failed (its layout, which checks the session).
export default function RootError({ reset }: { error: Error; reset: () => void }) {
  return (
    <main className="mx-auto max-w-2xl p-6">
      <LoadError reset={reset} />
    </main>
  );
}
