import { CopyButton } from "./copy-button";
import { ScrollRegion } from "./ui/scroll-region";

/** A snippet with a copy button. Never pass a secret here unless it is shown once on purpose. */
export function CodeBlock({ code, label, copyLabel }: { code: string; label: string; copyLabel?: string }) {
  return (
    <figure className="mt-2">
      <figcaption className="sr-only">{label}</figcaption>
      <div className="flex items-start gap-2">
        <ScrollRegion label={label} className="flex-1 rounded-md bg-slate-900">
          <pre className="p-3 text-xs leading-relaxed text-slate-100">
            <code>{code}</code>
          </pre>
        </ScrollRegion>
        <CopyButton value={code} label={copyLabel ?? `Copy ${label}`} />
      </div>
    </figure>
  );
}
