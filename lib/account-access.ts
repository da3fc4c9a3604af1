/**
 * What the person decides about their accounts and assistants (issue 35): an account hidden from
 * every assistant, and which accounts each credential (an API key or an app's OAuth grant) may
 * read. A credential's choice is `null` for all accounts, the ones linked later included, or the
 * list of chosen account ids. The query side (lib/finance/scope.ts) reads both.
 *
 * The forms of the API keys page, the Connected apps page and the consent screen send the same
 * fields (components/account-choice.tsx): `access` ("all" or "chosen", absent on the consent
 * screen, whose ticked boxes are the choice) and one `accountIds` per ticked box. Every id is
 * checked to be the person's own here, so no form can grant another person's account.
 */
import { and, asc, eq, inArray } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "@/db";
import { bankAccounts, bankConnections } from "@/db/schema";
import { AppError } from "@/lib/errors";

/** An account as the choice control lists it. */
export interface ChoosableAccount {
  id: string;
  name: string;
  mask: string | null;
  institutionName: string;
  hidden: boolean;
}

/** The person's open accounts, by bank then name: what a credential can be given. */
export async function listChoosableAccounts(db: Database, userId: string): Promise<ChoosableAccount[]> {
  return db
    .select({
      id: bankAccounts.id,
      name: bankAccounts.name,
      mask: bankAccounts.mask,
      institutionName: bankConnections.institutionName,
      hidden: bankAccounts.hidden,
    })
    .from(bankAccounts)
    .innerJoin(bankConnections, eq(bankConnections.id, bankAccounts.connectionId))
    .where(and(eq(bankAccounts.userId, userId), eq(bankAccounts.isClosed, false)))
    .orderBy(asc(bankConnections.institutionName), asc(bankAccounts.name), asc(bankAccounts.id));
}

/**
 * Hides account `accountId` of `userId` from assistants, or shows it again. Sync keeps a hidden
 * account up to date, so showing it again is instant. Throws `not_found` for another person's.
 */
export async function setAccountHidden(
  db: Database,
  userId: string,
  accountId: string,
  hidden: boolean,
): Promise<{ name: string }> {
  const [row] = await db
    .update(bankAccounts)
    .set({ hidden })
    .where(and(eq(bankAccounts.id, accountId), eq(bankAccounts.userId, userId)))
    .returning({ name: bankAccounts.name });
  if (!row) throw new AppError("not_found", "That account is not one of yours (was its bank removed?).");
  return row;
}

/** At most this many ids in one choice: far more accounts than a person links. */
const MAX_CHOSEN = 500;

/** A form's ticked boxes: absent, one value, or several. */
const tickedIds = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((value) => (value === undefined ? [] : Array.isArray(value) ? value : [value]))
  .pipe(
    z
      .array(z.string().trim().min(1).max(64, "An account id is at most 64 characters."))
      .max(MAX_CHOSEN, `Choose at most ${MAX_CHOSEN} accounts.`),
  );

/** The account-choice fields of the keys' and apps' forms. */
export const accountChoiceFields = {
  access: z.enum(["all", "chosen"], { error: 'Choose "All accounts" or the accounts this may read.' }),
  accountIds: tickedIds,
};

/** The ticked boxes of the consent screen. */
export const consentAccountsField = { accountIds: tickedIds };

export type AccountChoice = { access: "all" | "chosen"; accountIds: string[] };

const noneChosen = () =>
  new AppError("invalid_input", 'Choose at least one account, or "All accounts".', { field: "accountIds" });

/** `ids` without repeats, sorted; throws `invalid_input` unless every one is an account of `userId`. */
async function ownAccountIds(db: Database, userId: string, ids: readonly string[]): Promise<string[]> {
  const wanted = [...new Set(ids)].sort();
  if (wanted.length === 0) return wanted;
  const found = await db
    .select({ id: bankAccounts.id })
    .from(bankAccounts)
    .where(and(eq(bankAccounts.userId, userId), inArray(bankAccounts.id, wanted)));
  if (found.length !== wanted.length) {
    throw new AppError(
      "invalid_input",
      "One of the chosen accounts is not one of yours (was its bank removed?). Reload the page and choose again.",
      { field: "accountIds" },
    );
  }
  return wanted;
}

/**
 * The stored form of a key's or grant's choice: null for "all accounts", else the chosen ids of
 * `userId`'s accounts (at least one). Throws `invalid_input` naming what is wrong.
 */
export async function resolveAccountChoice(
  db: Database,
  userId: string,
  choice: AccountChoice,
): Promise<string[] | null> {
  if (choice.access === "all") return null;
  if (choice.accountIds.length === 0) throw noneChosen();
  return ownAccountIds(db, userId, choice.accountIds);
}

/**
 * The consent screen's choice: every box ticked (all of the person's open accounts) is "all
 * accounts", null, so an app approved with everything also reads accounts linked later; a subset
 * is those ids; none ticked is an error. A person with no account yet gives all accounts.
 */
export async function resolveConsentChoice(
  db: Database,
  userId: string,
  ticked: readonly string[],
): Promise<string[] | null> {
  const open = (await listChoosableAccounts(db, userId)).map((a) => a.id);
  if (open.length === 0) return null;
  if (ticked.length === 0)
    throw new AppError("invalid_input", "Tick at least one account for this app to read, or deny it.", {
      field: "accountIds",
    });
  const chosen = await ownAccountIds(db, userId, ticked);
  return open.every((id) => chosen.includes(id)) ? null : chosen;
}
