"use client";

import { useEffect } from "react";
import { adoptBrowserTimezoneAction } from "@/app/dashboard/settings/actions";
import { IDLE } from "@/lib/action-state";

/**
 * On the first dashboard visit of a person who never set a timezone, takes the browser's (the
 * server keeps it only while none is set). Renders nothing.
 */
export function BrowserTimezone() {
  useEffect(() => {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (!zone) return;
    const form = new FormData();
    form.set("timezone", zone);
    void adoptBrowserTimezoneAction(IDLE, form);
  }, []);
  return null;
}
