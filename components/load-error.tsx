"use client";

import { Button } from "@/components/ui/button";

/** What an error boundary shows: most often the database is briefly out of reach. */
export function LoadError({ reset }: { reset: () => void }) {
  return (
    <div role="alert" className="rounded-lg border border-red-200 bg-red-50 p-5">
      <h2 className="font-semibold text-red-900">This page could not load.</h2>
      <p className="mt-1 text-sm text-red-800">
        Ledgerlink may be briefly unavailable. You are still signed in; please try again in a moment.
      </p>
      <Button className="mt-3" variant="secondary" onClick={reset}>
        Try again
      </Button>
    </div>
  );
}
