import Link from "next/link";
import type { AccessState } from "@/lib/access";
import { buttonClass } from "./ui/button";

/**
 * After set-up, the one thing to do next, from the access state (THE gate) and whether any key or
 * OAuth app can still call the tools.
 */
export function NextStep({ access, hasCredential }: { access: AccessState; hasCredential: boolean }) {
  const step = (() => {
    if (access.subscription !== "active") {
      return {
        text:
          access.subscription === "past_due"
            ? "Your last payment failed. Fix billing so your tools answer again."
            : "Subscribe so your tools can answer with your data.",
        href: "/dashboard/billing",
        action: access.subscription === "past_due" ? "Fix billing" : "Subscribe",
      };
    }
    if (!access.hasConnections) {
      return {
        text: "Link a bank so the tools have data to read.",
        href: "/dashboard/banks",
        action: "Link a bank",
      };
    }
    const first = access.needsReauth[0];
    if (first) {
      return {
        text: `${first.institutionName} needs you to sign in again; its data is frozen at the last sync.`,
        href: `/dashboard/banks?reconnect=${encodeURIComponent(first.id)}`,
        action: "Reconnect",
      };
    }
    if (!hasCredential) {
      return {
        text: "No key or connected app can reach your data any more. Create a key, or connect an app with OAuth.",
        href: "/dashboard/keys",
        action: "Create a key",
      };
    }
    return {
      text: "All set. Ask your assistant about your money, or run its tools here to see what it sees.",
      href: "/dashboard/tools",
      action: "Try the tools",
    };
  })();
  return (
    <div className="flex flex-wrap items-center justify-between gap-3" data-testid="next-step">
      <p className="text-sm text-slate-800">{step.text}</p>
      <Link href={step.href} className={buttonClass("primary")}>
        {step.action}
      </Link>
    </div>
  );
}
