import type { SubscriptionState } from "@/lib/access";
import { Badge, type BadgeTone } from "./ui/badge";

const WORDS: Record<SubscriptionState, { label: string; tone: BadgeTone; text: string }> = {
  active: {
    label: "Active",
    tone: "green",
    text: "Your assistant can read the banks you link (Banks page). Without a bank, tools say there is no data yet.",
  },
  none: {
    label: "Not started",
    tone: "slate",
    text: "Your AI client can connect, but every tool answers “setup required” until you subscribe.",
  },
  canceled: {
    label: "Canceled",
    tone: "red",
    text: "Your subscription has ended. Tools answer “setup required” until you subscribe again.",
  },
  past_due: {
    label: "Past due",
    tone: "amber",
    text: "The last payment failed. Tools answer “setup required” until the payment method is fixed.",
  },
};

/** The subscription state in words (the state itself always comes from lib/access.ts). */
export function SubscriptionSummary({ state }: { state: SubscriptionState }) {
  const words = WORDS[state];
  return (
    <div data-testid="subscription-state" data-state={state}>
      <Badge tone={words.tone}>{words.label}</Badge>
      <p className="mt-2 text-sm text-slate-700">{words.text}</p>
    </div>
  );
}
