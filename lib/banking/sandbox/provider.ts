/**
 * The sandbox provider: the BankProvider interface over the synthetic bank, keeping its own
 * memory in `sandbox_items` like Plaid's sandbox does (item, institution, seed, login state).
 *
 * Tokens imitate Plaid's: `public-sandbox-…` (made by `createSandboxPublicToken`, like
 * /sandbox/public_token/create) is exchanged once for `access-sandbox-<itemId>-<random>`.
 * The cursor of /transactions/sync encodes the history start and the day of the last completed
 * sync; pages within one sync carry the range and an offset (page size 500 like Plaid's maximum).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "@/db";
import { sandboxItems } from "@/db/schema";
import {
  type BankProvider,
  type ProviderContext,
  ProviderError,
  type ProviderTransaction,
  type RemovedTransaction,
  type TransactionsSyncPage,
} from "../provider";
import { dayFromIso, dayOf } from "./calendar";
import { getSandboxProfile, historyStartDay } from "./profiles";
import {
  accountsOn,
  balanceHistory,
  buildSandboxWorld,
  diffTransactions,
  holdingsOn,
  investmentTransactionsBetween,
  liabilitiesOn,
  listSandboxInstitutions,
  recurringStreamsOn,
  securitiesOn,
} from "./world";

const publicTokenSchema = z.object({ institutionId: z.string().min(1), seed: z.string().min(1) });

/**
 * A public token for `institutionId` (what our sandbox connect screen hands to the exchange,
 * like Plaid's /sandbox/public_token/create). The seed decides the synthetic data.
 */
export function createSandboxPublicToken(institutionId: string, seed: string = randomUUID()): string {
  if (!getSandboxProfile(institutionId)) {
    throw new ProviderError("invalid_token", `Unknown sandbox institution ${institutionId}.`, {
      providerCode: "INVALID_INSTITUTION",
    });
  }
  const body = Buffer.from(JSON.stringify({ institutionId, seed })).toString("base64url");
  return `public-sandbox-${body}`;
}

const cursorSchema = z.union([
  z.object({ v: z.literal(1), start: z.number().int(), asOf: z.number().int() }),
  z.object({
    v: z.literal(1),
    start: z.number().int(),
    from: z.number().int().nullable(),
    to: z.number().int(),
    offset: z.number().int().nonnegative(),
  }),
]);
type Cursor = z.infer<typeof cursorSchema>;

const encodeCursor = (cursor: Cursor) => Buffer.from(JSON.stringify(cursor)).toString("base64url");

function decodeCursor(text: string): Cursor {
  try {
    return cursorSchema.parse(JSON.parse(Buffer.from(text, "base64url").toString("utf8")));
  } catch {
    throw new ProviderError("provider_error", "The transactions cursor is not valid.", {
      providerCode: "INVALID_CURSOR",
    });
  }
}

const ACCESS_TOKEN = /^access-sandbox-(item-sandbox-[0-9a-f-]{36})-[0-9a-f]{32}$/;

export interface SandboxProviderOptions {
  /** Transactions per /transactions/sync page (default 500, Plaid's maximum). */
  pageSize?: number;
}

/** The sandbox provider over `db`'s `sandbox_items`. */
export function createSandboxProvider(db: Database, options: SandboxProviderOptions = {}): BankProvider {
  const pageSize = options.pageSize ?? 500;
  let requestCounter = 0;
  const requestId = () => `sandbox-${Date.now().toString(36)}-${(requestCounter++).toString(36)}`;

  async function loadItem(accessToken: string, options: { allowLoginRequired?: boolean } = {}) {
    const match = ACCESS_TOKEN.exec(accessToken);
    const item = match
      ? (await db.select().from(sandboxItems).where(eq(sandboxItems.itemId, match[1]!)).limit(1))[0]
      : undefined;
    if (!item) {
      throw new ProviderError("invalid_token", "The access token is not valid for any sandbox item.", {
        requestId: requestId(),
        providerCode: "INVALID_ACCESS_TOKEN",
      });
    }
    if (item.loginRequired && !options.allowLoginRequired) {
      throw new ProviderError("reauth_required", "The bank needs you to sign in again.", {
        requestId: requestId(),
        providerCode: "ITEM_LOGIN_REQUIRED",
      });
    }
    return item;
  }

  async function worldFor(accessToken: string, ctx: ProviderContext) {
    const item = await loadItem(accessToken);
    const day = dayOf(ctx.now);
    return { item, day, world: buildSandboxWorld(item.seed, item.institutionId, day) };
  }

  const notSupported = (product: string) =>
    new ProviderError("product_not_supported", `This institution does not offer ${product}.`, {
      requestId: requestId(),
      providerCode: "PRODUCTS_NOT_SUPPORTED",
    });

  return {
    kind: "sandbox",

    async listInstitutions() {
      return listSandboxInstitutions();
    },

    async createLinkToken(request, ctx) {
      if (request.accessToken) await loadItem(request.accessToken, { allowLoginRequired: true });
      return {
        linkToken: `link-sandbox-${randomUUID()}`,
        expiration: new Date(ctx.now.getTime() + 4 * 3600_000),
      };
    },

    async exchangePublicToken(publicToken) {
      const prefix = "public-sandbox-";
      let parsed: z.infer<typeof publicTokenSchema>;
      try {
        if (!publicToken.startsWith(prefix)) throw new Error("prefix");
        parsed = publicTokenSchema.parse(
          JSON.parse(Buffer.from(publicToken.slice(prefix.length), "base64url").toString("utf8")),
        );
      } catch {
        throw new ProviderError("invalid_token", "The public token is not valid.", {
          requestId: requestId(),
          providerCode: "INVALID_PUBLIC_TOKEN",
        });
      }
      const profile = getSandboxProfile(parsed.institutionId);
      if (!profile) {
        throw new ProviderError("invalid_token", "The public token names an unknown institution.", {
          requestId: requestId(),
          providerCode: "INVALID_INSTITUTION",
        });
      }
      const itemId = `item-sandbox-${randomUUID()}`;
      await db
        .insert(sandboxItems)
        .values({ itemId, institutionId: profile.institutionId, seed: parsed.seed });
      return {
        accessToken: `access-sandbox-${itemId}-${randomBytes(16).toString("hex")}`,
        itemId,
        institution: { id: profile.institutionId, name: profile.name },
      };
    },

    async getAccounts(accessToken, ctx) {
      const { world, day } = await worldFor(accessToken, ctx);
      return accountsOn(world, day);
    },

    async syncTransactions(accessToken, cursorText, ctx): Promise<TransactionsSyncPage> {
      const { world, day, item } = await worldFor(accessToken, ctx);
      const cursor = cursorText ? decodeCursor(cursorText) : null;
      let start: number;
      let from: number | null;
      let to: number;
      let offset: number;
      if (!cursor) {
        start = historyStartDay(world.profile, day);
        from = null;
        to = day;
        offset = 0;
      } else if ("asOf" in cursor) {
        start = cursor.start;
        from = cursor.asOf;
        to = day;
        offset = 0;
      } else {
        ({ start, from, to, offset } = cursor);
      }
      // A page of an earlier snapshot reads the world as of that snapshot's day.
      const source = to === day ? world : buildSandboxWorld(item.seed, item.institutionId, to);
      const changes = diffTransactions(source, start, from, to);
      const page = changes.slice(offset, offset + pageSize);
      const added: ProviderTransaction[] = [];
      const modified: ProviderTransaction[] = [];
      const removed: RemovedTransaction[] = [];
      for (const change of page) {
        if (change.kind === "added") added.push(change.transaction!);
        else if (change.kind === "modified") modified.push(change.transaction!);
        else removed.push(change.removed!);
      }
      const hasMore = offset + pageSize < changes.length;
      return {
        added,
        modified,
        removed,
        hasMore,
        nextCursor: encodeCursor(
          hasMore ? { v: 1, start, from, to, offset: offset + pageSize } : { v: 1, start, asOf: to },
        ),
      };
    },

    async getHoldings(accessToken, ctx) {
      const { world, day } = await worldFor(accessToken, ctx);
      if (!world.accounts.some((a) => a.type === "investment")) throw notSupported("investments");
      return { holdings: holdingsOn(world, day), securities: securitiesOn(world, day) };
    },

    async getInvestmentTransactions(accessToken, range, ctx) {
      const { world, day } = await worldFor(accessToken, ctx);
      if (!world.accounts.some((a) => a.type === "investment")) throw notSupported("investments");
      const end = Math.min(dayFromIso(range.endDate), day);
      return {
        investmentTransactions: investmentTransactionsBetween(world, dayFromIso(range.startDate), end),
        securities: securitiesOn(world, day),
      };
    },

    async getLiabilities(accessToken, ctx) {
      const { world, day } = await worldFor(accessToken, ctx);
      if (world.profile.cards.length === 0 && world.profile.loans.length === 0)
        throw notSupported("liabilities");
      return liabilitiesOn(world, day);
    },

    async getRecurringStreams(accessToken, ctx) {
      const { world, day } = await worldFor(accessToken, ctx);
      return recurringStreamsOn(world, historyStartDay(world.profile, day), day);
    },

    async getBalanceHistory(accessToken, range, ctx) {
      const { world, day } = await worldFor(accessToken, ctx);
      const start = Math.max(dayFromIso(range.startDate), world.profile.epochDay);
      const end = Math.min(dayFromIso(range.endDate), day);
      if (end < start) return [];
      return balanceHistory(world, start, end);
    },

    async confirmReconnect(accessToken) {
      const item = await loadItem(accessToken, { allowLoginRequired: true });
      await db.update(sandboxItems).set({ loginRequired: false }).where(eq(sandboxItems.itemId, item.itemId));
    },

    async removeItem(accessToken) {
      const item = await loadItem(accessToken, { allowLoginRequired: true });
      await db.delete(sandboxItems).where(eq(sandboxItems.itemId, item.itemId));
    },

    async resetLogin(accessToken) {
      const item = await loadItem(accessToken, { allowLoginRequired: true });
      await db.update(sandboxItems).set({ loginRequired: true }).where(eq(sandboxItems.itemId, item.itemId));
    },
  };
}
