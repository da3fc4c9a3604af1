"use client";

import { useActionState } from "react";
import { saveTimezoneAction } from "@/app/dashboard/settings/actions";
import { IDLE } from "@/lib/action-state";
import { FormMessage } from "./ui/form-message";
import { SubmitButton } from "./ui/submit-button";

/** Settings: the IANA timezone periods and times follow. */
export function TimezoneForm({ current, zones }: { current: string; zones: string[] }) {
  const [state, action] = useActionState(saveTimezoneAction, IDLE);
  return (
    <div>
      <form action={action} className="flex flex-col gap-2 sm:flex-row sm:items-end">
        <div className="flex-1">
          <label htmlFor="timezone" className="block text-sm font-medium text-slate-800">
            Timezone
          </label>
          <select
            id="timezone"
            name="timezone"
            defaultValue={current}
            aria-describedby="timezone-help"
            className="mt-1 block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm shadow-sm focus:border-slate-500 focus:outline-none focus:ring-2 focus:ring-slate-300"
          >
            {zones.map((zone) => (
              <option key={zone} value={zone}>
                {zone.replaceAll("_", " ")}
              </option>
            ))}
          </select>
          <p id="timezone-help" className="mt-1 text-xs text-slate-500">
            “This month” and “last 30 days” begin and end at midnight here, and the dashboard shows times in
            it.
          </p>
        </div>
        <SubmitButton pendingLabel="Saving…" className="sm:mb-5">
          Save
        </SubmitButton>
      </form>
      <FormMessage state={state} />
    </div>
  );
}
