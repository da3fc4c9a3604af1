import { CopyButton } from "./copy-button";

/** A snippet with a copy button. Never pass a secret here unless it is shown once on purpose. */
export function CodeBlock({ code, label, copyLabel }: { code: string; label: string; copyLabel?: string }) {
  return (
    <figure className="mt-2">
      <figcaption className="sr-only">{label}</figcaption>
      <div className="flex items-start gap-2">
        {/* A region that takes focus, so a keyboard can scroll a line wider than the screen. */}
        <section
          aria-label={label}
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take focus (WCAG 2.1.1)
          tabIndex={0}
          className="min-w-0 flex-1 overflow-x-auto rounded-md bg-slate-900 focus:outline-none focus-visible:ring-2 focus-visible:ring-slate-400"
        >
          <pre className="p-3 text-xs leading-relaxed text-slate-100">
            <code>{code}</code>
          </pre>
        </section>
        <CopyButton value={code} label={copyLabel ?? `Copy ${label}`} />
      </div>
    </figure>
  );
}
