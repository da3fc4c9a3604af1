"use client";

import { useRouter } from "next/navigation";
import { useCallback, useEffect, useState } from "react";
import { type PlaidLinkOnExit, type PlaidLinkOnSuccess, usePlaidLink } from "react-plaid-link";
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
 */
export function PlaidLinkButton({
  connectionId,
  label,
  variant = "primary",
}: {
  /** Set for Reconnect (update mode) of this connection. */
  connectionId?: string;
  label?: string;
  variant?: ButtonVariant;
}) {
  const router = useRouter();
  const [token, setToken] = useState<string | null>(null);
  const [step, setStep] = useState<Step>({ kind: "idle" });
  const update = Boolean(connectionId);

  const onSuccess = useCallback<PlaidLinkOnSuccess>(
    async (publicToken) => {
      setToken(null);
      try {
        // One call: the server stores the item and runs its first sync; the steps show progress.
        setStep({ kind: "syncing" });
        const result = update
          ? await postJson("/api/plaid/exchange", { mode: "update", connection_id: connectionId })
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
    [connectionId, update, router],
  );

  const onExit = useCallback<PlaidLinkOnExit>((error) => {
    setToken(null);
    setStep(
      error
        ? {
            kind: "error",
            message: error.display_message || "Plaid could not connect the bank. Please try again.",
          }
        : { kind: "idle" },
    );
  }, []);

  const { open, ready } = usePlaidLink({ token, onSuccess, onExit });

  // Open Link as soon as the token is loaded and Link is ready.
  useEffect(() => {
    if (token && ready && step.kind === "preparing") {
      setStep({ kind: "open" });
      open();
    }
  }, [token, ready, open, step.kind]);

  async function start() {
    setStep({ kind: "preparing" });
    try {
      const data = await postJson(
        "/api/plaid/link-token",
        connectionId ? { connection_id: connectionId } : {},
      );
      if (typeof data.link_token !== "string") throw new Error("Plaid did not return a link token.");
      setToken(data.link_token);
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
        {label ?? (update ? "Reconnect" : "Link a bank")}
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
