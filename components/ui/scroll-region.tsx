/**
 * Content that may be wider or taller than the screen (tables, code), in a region that scrolls on
 * its own and takes keyboard focus, so a keyboard can scroll it too (WCAG 2.1.1).
 */
export function ScrollRegion({
  label,
  className = "",
  children,
}: {
  label: string;
  className?: string;
  children: React.ReactNode;
}) {
  return (
    <section
      aria-label={label}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take focus (WCAG 2.1.1)
      tabIndex={0}
      className={`min-w-0 overflow-auto focus:outline-none focus-visible:ring-2 focus-visible:ring-slate-400 ${className}`}
    >
      {children}
    </section>
  );
}
