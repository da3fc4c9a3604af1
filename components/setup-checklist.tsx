import Link from "next/link";
import { buttonClass } from "./ui/button";

export interface SetupStep {
  title: string;
  /** What doing it gives, shown while it is the next step. */
  text: string;
  done: boolean;
  href: string;
  action: string;
}

/**
 * Setup as a checklist: done steps collapse to one line, the first open step is the one call to
 * action, later ones wait (muted, still readable).
 */
export function SetupChecklist({ steps }: { steps: SetupStep[] }) {
  const next = steps.findIndex((s) => !s.done);
  return (
    <ol className="space-y-3" aria-label="Set-up steps" data-testid="setup-checklist">
      {steps.map((step, i) => {
        const state = step.done ? "done" : i === next ? "current" : "todo";
        return (
          <li
            key={step.title}
            aria-current={state === "current" ? "step" : undefined}
            data-state={state}
            className={`flex gap-3 ${state === "current" ? "rounded-md border border-slate-300 bg-slate-50 p-3" : ""}`}
          >
            <span
              aria-hidden="true"
              className={`flex size-6 shrink-0 items-center justify-center rounded-full text-xs font-semibold ${
                state === "done"
                  ? "bg-emerald-600 text-white"
                  : state === "current"
                    ? "bg-slate-900 text-white"
                    : "bg-slate-200 text-slate-700"
              }`}
            >
              {state === "done" ? "✓" : i + 1}
            </span>
            <div className="min-w-0 flex-1">
              <p
                className={`text-sm ${state === "current" ? "font-semibold text-slate-900" : "text-slate-700"}`}
              >
                {step.title}
                {state === "done" ? <span className="sr-only"> (done)</span> : null}
              </p>
              {state === "current" ? (
                <div className="mt-1 flex flex-wrap items-center justify-between gap-3">
                  <p className="text-sm text-slate-700">{step.text}</p>
                  <Link href={step.href} className={buttonClass("primary")}>
                    {step.action}
                  </Link>
                </div>
              ) : null}
            </div>
          </li>
        );
      })}
    </ol>
  );
}
