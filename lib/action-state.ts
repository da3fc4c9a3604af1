/**
 * The result of a server action as `useActionState` sees it. Client-safe (no server imports), so
 * client components can import it; lib/action.ts produces it.
 */
export type ActionState<T = undefined> =
  | { status: "idle" }
  | { status: "ok"; data: T; message?: string }
  | { status: "error"; error: string; field?: string };

export const IDLE: { status: "idle" } = { status: "idle" };
