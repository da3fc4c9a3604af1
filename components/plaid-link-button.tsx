"use client";

import { useRouter } from "next/navigation";
import { useCallback, useEffect, useState } from "react";
import { type PlaidLinkOnExit, type PlaidLinkOnSuccess, usePlaidLink } from "react-plaid-link";
import { z } from "zod";
import { Button, type ButtonVariant } from "./ui/button";

type Step =
  | { kind: "idle" }
  | { kind: "preparing" }
  | { kind: "open" }
  | { kind: "syncing" }
  | { kind: "done"; message: string }
  | { kind: "error"; message: string };

const STEP_TEXT: Partial<Record<Step["kind"], string>> = {
  preparing: "Opening Plaid…",
  open: "Waiting for Plaid…",
  syncing: "Importing accounts and transactions… (this can take up to a minute)",
};

/**
 * The Link session an OAuth bank's redirect interrupts: Plaid requires re-opening Link with the
 * same link token (short-lived and made for the browser; never the public or access token)
 * after the bank sends the user back to PLAID_REDIRECT_URI (https://plaid.com/docs/link/oauth/).
 * sessionStorage: per tab, gone when the tab closes.
 */
const STORED_LINK_KEY = "ledgerlink.plaid-link";
const StoredLink = z.object({ linkToken: z.string().min(1), connectionId: z.string().nullable() });
type StoredLink = z.infer<typeof StoredLink>;

function readStoredLink(): StoredLink | null {
  try {
    const parsed = StoredLink.safeParse(JSON.parse(sessionStorage.getItem(STORED_LINK_KEY) ?? "null"));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The session ended: forget its token and drop `oauth_state_id` from the address bar. */
function endStoredLink() {
  sessionStorage.removeItem(STORED_LINK_KEY);
  const url = new URL(window.location.href);
  if (url.searchParams.has("oauth_state_id")) {
    url.searchParams.delete("oauth_state_id");
    // null state: Next.js then updates its own router URL too (a later refresh keeps it).
    window.history.replaceState(null, "", url);
  }
}

/** A Link session: its token, the connection for update mode, and the OAuth return address. */
interface LinkSession {
  token: string;
  connectionId: string | null;
  receivedRedirectUri?: string;
}

async function postJson(path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const data = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) {
    throw new Error(
      typeof data.message === "string" ? data.message : "Something went wrong. Please try again.",
    );
  }
  return data;
}

/**
 * "Link a bank" (or, with `connectionId`, "Reconnect") through Plaid Link.
 *
 * 1. Asks our server for a link token (`POST /api/plaid/link-token`; with `connection_id` Link
 *    opens in update mode for that item).
 * 2. Opens Plaid Link. On success a new bank's public token goes to `POST /api/plaid/exchange`,
 *    which exchanges it on the server (the browser never sees the access token), stores the
 *    connection and runs its first sync; in update mode the same route confirms the login was
 *    fixed, marks the connection healthy and syncs it.
 * 3. Shows each step ("Opening Plaid…", "Importing…", the result) and refreshes the page.
 *
 * OAuth banks leave the page and come back to PLAID_REDIRECT_URI with `?oauth_state_id=…`: the
 * token (and update mode's connection) is kept in sessionStorage while Link is open, and the
 * button rendered with `resumeOAuth` re-opens Link with it and `receivedRedirectUri`, then
 * completes as above.
 */
export function PlaidLinkButton({
  connectionId,
  label,
  variant = "primary",
  resumeOAuth = false,
}: {
  /** Set for Reconnect (update mode) of this connection. */
  connectionId?: string;
  label?: string;
  variant?: ButtonVariant;
  /** This button finishes a Link session an OAuth bank redirected back to (one per page). */
  resumeOAuth?: boolean;
}) {
  const router = useRouter();
  const [session, setSession] = useState<LinkSession | null>(null);
  const [step, setStep] = useState<Step>({ kind: "idle" });
  const token = session?.token ?? null;
  // A resumed session may be a Reconnect of a row: its stored connection decides the mode.
  const sessionConnectionId = session ? session.connectionId : (connectionId ?? null);
  const update = sessionConnectionId !== null;

  // Back from an OAuth bank: re-open Link with the same token and the address it returned to.
  useEffect(() => {
    if (!resumeOAuth || !new URL(window.location.href).searchParams.has("oauth_state_id")) return;
    const stored = readStoredLink();
    if (!stored) {
      endStoredLink();
      setStep({
        kind: "error",
        message:
          "Your bank sent you back, but this browser tab no longer has that Plaid session. Please start “Link a bank” again.",
      });
      return;
    }
    setSession({
      token: stored.linkToken,
      connectionId: stored.connectionId,
      receivedRedirectUri: window.location.href,
    });
    setStep({ kind: "preparing" });
  }, [resumeOAuth]);

  const onSuccess = useCallback<PlaidLinkOnSuccess>(
    async (publicToken) => {
      setSession(null);
      endStoredLink();
      try {
        // One call: the server stores the item and runs its first sync; the steps show progress.
        setStep({ kind: "syncing" });
        const result = update
          ? await postJson("/api/plaid/exchange", { mode: "update", connection_id: sessionConnectionId })
          : await postJson("/api/plaid/exchange", { public_token: publicToken });
        const accounts = typeof result.accounts === "number" ? result.accounts : 0;
        const failure = result.error as { message?: unknown } | undefined;
        if (failure && typeof failure.message === "string") {
          setStep({ kind: "error", message: `Linked, but the first sync failed: ${failure.message}` });
        } else {
          setStep({
            kind: "done",
            message: update
              ? "Reconnected. Your data is up to date."
              : `Bank linked: ${accounts} account${accounts === 1 ? "" : "s"} imported.`,
          });
        }
        router.refresh();
      } catch (error) {
        setStep({ kind: "error", message: error instanceof Error ? error.message : String(error) });
        router.refresh();
      }
    },
    [sessionConnectionId, update, router],
  );

  const onExit = useCallback<PlaidLinkOnExit>((error) => {
    setSession(null);
    endStoredLink();
    setStep(
      error
        ? {
            kind: "error",
            message: error.display_message || "Plaid could not connect the bank. Please try again.",
          }
        : { kind: "idle" },
    );
  }, []);

  const { open, ready } = usePlaidLink({
    token,
    receivedRedirectUri: session?.receivedRedirectUri,
    onSuccess,
    onExit,
  });

  // Open Link as soon as the token is loaded and Link is ready; keep the session in case an
  // OAuth bank takes the user away.
  useEffect(() => {
    if (token && ready && step.kind === "preparing") {
      const stored: StoredLink = { linkToken: token, connectionId: sessionConnectionId };
      sessionStorage.setItem(STORED_LINK_KEY, JSON.stringify(stored));
      setStep({ kind: "open" });
      open();
    }
  }, [token, ready, open, step.kind, sessionConnectionId]);

  async function start() {
    setStep({ kind: "preparing" });
    try {
      const data = await postJson(
        "/api/plaid/link-token",
        connectionId ? { connection_id: connectionId } : {},
      );
      if (typeof data.link_token !== "string") throw new Error("Plaid did not return a link token.");
      setSession({ token: data.link_token, connectionId: connectionId ?? null });
    } catch (error) {
      setStep({ kind: "error", message: error instanceof Error ? error.message : String(error) });
    }
  }

  const busy = step.kind === "preparing" || step.kind === "open" || step.kind === "syncing";
  const text = STEP_TEXT[step.kind];
  return (
    <span className="inline-flex flex-col gap-1">
      <Button
        variant={variant}
        onClick={start}
        disabled={busy}
        aria-busy={busy}
        data-testid="plaid-link-button"
      >
        {label ?? (connectionId ? "Reconnect" : "Link a bank")}
      </Button>
      <span
        role="status"
        aria-live="polite"
        className="text-sm text-slate-600"
        data-testid="plaid-link-status"
      >
        {text ?? (step.kind === "done" ? step.message : "")}
      </span>
      {step.kind === "error" ? (
        <span role="alert" className="text-sm text-red-700">
          {step.message}
        </span>
      ) : null}
    </span>
  );
}
