/** A numbered list of steps with the current one marked (aria-current="step"). */
export function ProgressSteps({ steps, current }: { steps: string[]; current: number }) {
  return (
    <ol className="flex flex-wrap gap-x-4 gap-y-1 text-xs" aria-label="Progress">
      {steps.map((label, i) => {
        const state = i < current ? "done" : i === current ? "current" : "todo";
        return (
          <li
            key={label}
            aria-current={state === "current" ? "step" : undefined}
            className={`flex items-center gap-1.5 ${state === "todo" ? "text-slate-600" : "text-slate-900"}`}
          >
            <span
              aria-hidden="true"
              className={`flex size-5 items-center justify-center rounded-full text-[10px] font-semibold ${
                state === "done"
                  ? "bg-emerald-600 text-white"
                  : state === "current"
                    ? "bg-slate-900 text-white"
                    : "bg-slate-200 text-slate-500"
              }`}
            >
              {state === "done" ? "✓" : i + 1}
            </span>
            <span className={state === "current" ? "font-medium" : ""}>{label}</span>
            {state === "done" ? <span className="sr-only">(done)</span> : null}
          </li>
        );
      })}
    </ol>
  );
}
