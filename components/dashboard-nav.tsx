"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useRef } from "react";

/** The dashboard's sections, in order. A new section is one more entry: both layouts below fit any number. */
const ITEMS = [
  { href: "/dashboard", label: "Overview" },
  { href: "/dashboard/keys", label: "API keys" },
  { href: "/dashboard/banks", label: "Banks" },
  { href: "/dashboard/transactions", label: "Transactions" },
  { href: "/dashboard/categories", label: "Categories" },
  { href: "/dashboard/billing", label: "Billing" },
  { href: "/dashboard/apps", label: "Connected apps" },
  { href: "/dashboard/tools", label: "Try the tools" },
  { href: "/dashboard/activity", label: "Activity" },
  { href: "/dashboard/settings", label: "Settings" },
];

const isActive = (href: string, pathname: string) =>
  href === "/dashboard" ? pathname === href : pathname === href || pathname.startsWith(`${href}/`);

/**
 * The dashboard's navigation. On a phone it is a "Menu" disclosure (a native <details>: it opens
 * and closes without JavaScript, by mouse, touch or keyboard, and announces its state) that shows
 * every section in two columns; from 768 px, every section in rows that wrap. Neither scrolls
 * sideways, however many sections there are.
 */
export function DashboardNav() {
  const pathname = usePathname();
  const menu = useRef<HTMLDetailsElement>(null);
  const current = ITEMS.find((item) => isActive(item.href, pathname));
  // A link in the menu closes it: following the current page's own link changes no pathname.
  const close = () => {
    if (menu.current) menu.current.open = false;
  };
  const links = (className: (active: boolean) => string, onClick?: () => void) =>
    ITEMS.map((item) => {
      const active = isActive(item.href, pathname);
      return (
        <li key={item.href}>
          <Link
            href={item.href}
            aria-current={active ? "page" : undefined}
            className={className(active)}
            onClick={onClick}
          >
            {item.label}
          </Link>
        </li>
      );
    });
  return (
    <nav aria-label="Dashboard" className="border-b border-slate-200 bg-white">
      <div className="mx-auto max-w-5xl px-4 sm:px-6">
        {/* Keyed by the page: a navigation closes the menu (the layout, and so this element, stays). */}
        <details
          key={pathname}
          ref={menu}
          className="group md:hidden"
          onKeyDown={(event) => {
            if (event.key === "Escape" && menu.current?.open) {
              menu.current.open = false;
              menu.current.querySelector("summary")?.focus();
            }
          }}
        >
          <summary className="flex min-h-11 cursor-pointer list-none items-center justify-between gap-3 text-sm text-slate-900 [&::-webkit-details-marker]:hidden">
            <span className="flex items-center gap-2 font-medium">
              <svg aria-hidden="true" viewBox="0 0 20 20" className="h-5 w-5" fill="currentColor">
                <path d="M3 5h14v1.5H3zm0 4.25h14v1.5H3zm0 4.25h14V15H3z" />
              </svg>
              Menu
            </span>
            <span className="flex items-center gap-1 text-slate-600">
              {current ? (
                <>
                  <span className="sr-only">, current page: </span>
                  {current.label}
                </>
              ) : null}
              <svg
                aria-hidden="true"
                viewBox="0 0 20 20"
                className="h-4 w-4 transition-transform group-open:rotate-180"
                fill="currentColor"
              >
                <path d="M5.5 7.5 10 12l4.5-4.5 1 1L10 14 4.5 8.5z" />
              </svg>
            </span>
          </summary>
          <ul className="grid grid-cols-2 gap-1 pb-3">
            {links(
              (active) =>
                `flex min-h-11 items-center rounded-md px-3 text-sm ${
                  active ? "bg-slate-100 font-medium text-slate-900" : "text-slate-700 hover:bg-slate-50"
                }`,
              close,
            )}
          </ul>
        </details>
        <ul className="hidden flex-wrap gap-x-1 md:flex">
          {links(
            (active) =>
              `block whitespace-nowrap border-b-2 px-3 py-2.5 text-sm ${
                active
                  ? "border-slate-900 font-medium text-slate-900"
                  : "border-transparent text-slate-600 hover:text-slate-900"
              }`,
          )}
        </ul>
      </div>
    </nav>
  );
}
