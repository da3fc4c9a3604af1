/** Dates on the dashboard: one format, UTC, so server and browser render the same text. */
export function formatDateTime(date: Date | null | undefined): string | null {
  if (!date) return null;
  return `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}
