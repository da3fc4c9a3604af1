"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { setAccountHidden } from "@/lib/account-access";
import { createAction } from "@/lib/action";
import {
  forceReauth,
  linkConnection,
  reconnectConnection,
  removeConnection,
  syncNow,
} from "@/lib/banking/connections";
import { AppError } from "@/lib/errors";

const connectionSchema = z.object({ connectionId: z.string().min(1).max(64) });
const hiddenSchema = z.object({
  accountId: z.string().min(1).max(64),
  hidden: z.enum(["true", "false"], { error: 'The field "hidden" must be true or false.' }),
});
const linkSchema = z.object({ institutionId: z.string().min(1, "Choose a bank.").max(64) });

export interface LinkedBank {
  connectionId: string;
  institutionName: string;
  accounts: number;
  transactions: number;
  seconds: number;
}

/** The sandbox connect flow's last step: link the chosen institution and run the first sync. */
export const linkSandboxBankAction = createAction(linkSchema, async ({ institutionId }, { db, user }) => {
  const started = Date.now();
  const { connection, sync } = await linkConnection(db, {
    userId: user.id,
    provider: "sandbox",
    institutionId,
  });
  revalidatePath("/dashboard/banks");
  revalidatePath("/dashboard");
  const data: LinkedBank = {
    connectionId: connection.id,
    institutionName: connection.institutionName,
    accounts: sync.accounts,
    transactions: sync.added,
    seconds: Math.round((Date.now() - started) / 100) / 10,
  };
  return { data, message: `${connection.institutionName} is linked: ${sync.accounts} accounts synced.` };
});

export const syncBankAction = createAction(connectionSchema, async ({ connectionId }, { db, user }) => {
  const summary = await syncNow(db, user.id, connectionId);
  revalidatePath("/dashboard/banks");
  if (summary.status === "reauth_required") {
    return { data: undefined, message: "The bank asks you to sign in again: use Reconnect." };
  }
  if (summary.error)
    throw new AppError("provider_error", `The bank did not answer: ${summary.error.message}`);
  if (summary.skipped === "already_running") {
    return {
      data: undefined,
      message: "A sync of this bank is already under way: the new data follows as soon as it ends.",
    };
  }
  return { data: undefined, message: "Synced just now." };
});

/** Reconnect finished: the connection is healthy again and syncs. */
export const reconnectBankAction = createAction(connectionSchema, async ({ connectionId }, { db, user }) => {
  const summary = await reconnectConnection(db, user.id, connectionId);
  revalidatePath("/dashboard/banks");
  revalidatePath("/dashboard");
  if (summary.status === "reauth_required")
    throw new AppError("reauth_required", "The bank still refuses the sign-in.");
  return { data: undefined, message: "Reconnected and synced." };
});

/** Development only (refused in production by lib/banking): put a sandbox connection into re-authorization. */
export const forceReauthAction = createAction(connectionSchema, async ({ connectionId }, { db, user }) => {
  await forceReauth(db, user.id, connectionId);
  revalidatePath("/dashboard/banks");
  revalidatePath("/dashboard");
  return { data: undefined, message: "The sandbox bank now requires re-authorization." };
});

/** Removes the connection and all of that bank's data. */
export const removeBankAction = createAction(connectionSchema, async ({ connectionId }, { db, user }) => {
  await removeConnection(db, user.id, connectionId);
  revalidatePath("/dashboard/banks");
  revalidatePath("/dashboard");
  return { data: undefined, message: "The bank and its data were removed." };
});

/**
 * Hides one of the person's accounts from every assistant, or shows it again: the next tool call
 * leaves it out (or reads it again). Sync keeps it up to date meanwhile.
 */
export const setAccountHiddenAction = createAction(
  hiddenSchema,
  async ({ accountId, hidden }, { db, user }) => {
    const hide = hidden === "true";
    const { name } = await setAccountHidden(db, user.id, accountId, hide);
    revalidatePath("/dashboard/banks");
    revalidatePath("/dashboard/keys");
    revalidatePath("/dashboard/apps");
    return {
      data: undefined,
      message: hide ? `${name} is hidden from assistants.` : `${name} is shown to assistants again.`,
    };
  },
);
