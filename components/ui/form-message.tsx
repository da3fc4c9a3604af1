/** The outcome of an action, announced to screen readers: errors as alerts, successes as status. */
export function FormMessage({ state }: { state: { status: string; error?: string; message?: string } }) {
  if (state.status === "error" && state.error) {
    return (
      <p role="alert" className="mt-2 text-sm text-red-700">
        {state.error}
      </p>
    );
  }
  if (state.status === "ok" && state.message) {
    return (
      <p role="status" className="mt-2 text-sm text-emerald-700">
        {state.message}
      </p>
    );
  }
  return null;
}
