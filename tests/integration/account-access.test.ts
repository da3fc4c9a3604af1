/**
 * The person's controls over what each assistant reads (issue 35 §1-§2), end to end: the real
 * server actions of the Banks, API keys, Connected apps and tools pages, the real consent POST,
 * and real MCP calls over HTTP through the route handler, each asking list_accounts which
 * accounts it sees. Only Next's request context (headers, session, cache revalidation) is stood
 * in for, as in dashboard-actions.test.ts.
 */
import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { apiKeys, bankAccounts, oauthCodes, oauthGrants, sessions } from "@/db/schema";
import { IDLE } from "@/lib/action-state";
import { createApiKey, rotateApiKey } from "@/lib/api-keys";
import { resetEnvCache } from "@/lib/env";
import { useTestDatabase } from "../helpers/db";
import { linkSandboxBank } from "../helpers/fixtures";
import { rpc } from "../helpers/mcp-client";
import {
  authorizationParams,
  exchangeRefreshToken,
  mcpResource,
  pkcePair,
  postConsent,
  registerClient,
  type TestUser,
  token,
} from "../helpers/oauth";
import { type ServedRoutes, serveRoutes } from "../helpers/serve";
import { addAccount, addConnection, createUser } from "./tools-helpers";

const request = vi.hoisted(() => ({
  origin: null as string | null,
  user: null as { id: string; email: string | null; name: string | null } | null,
}));

vi.mock("next/headers", () => ({
  headers: async () => new Headers(request.origin ? { origin: request.origin } : {}),
}));
vi.mock("next/cache", () => ({ revalidatePath: () => undefined }));
vi.mock("@/lib/auth", () => ({ getSessionUser: async () => request.user }));

const { createApiKeyAction, rotateApiKeyAction, setApiKeyAccountsAction } = await import(
  "@/app/dashboard/keys/actions"
);
const { setAppAccountsAction } = await import("@/app/dashboard/apps/actions");
const { setAccountHiddenAction } = await import("@/app/dashboard/banks/actions");
const { runToolAction } = await import("@/app/dashboard/tools/actions");

const getDb = useTestDatabase();
const savedAppUrl = process.env.APP_URL;
let server: ServedRoutes;

// The MCP route is served on APP_URL (serveRoutes sets it): the consent POSTs, the tokens'
// resource and the actions' Origin check all use it.
beforeAll(async () => {
  server = await serveRoutes({ "/api/mcp": () => import("@/app/api/mcp/route") });
});
afterAll(async () => {
  await server?.close();
  if (savedAppUrl === undefined) delete process.env.APP_URL;
  else process.env.APP_URL = savedAppUrl;
  resetEnvCache();
});
beforeEach(() => {
  request.origin = server.origin;
  request.user = null;
});

interface Person extends TestUser {
  /** Account ids by name: checking, savings, card at one bank, brokerage at another. */
  accounts: Record<"checking" | "savings" | "card" | "brokerage", string>;
}

/** A subscribed person with four accounts at two banks and a live session (for the consent screen). */
async function person(): Promise<Person> {
  const db = getDb();
  const userId = await createUser(db);
  const first = await addConnection(db, userId, "First Platypus Bank");
  const second = await addConnection(db, userId, "Tartan Credit Union");
  const accounts = {
    checking: await addAccount(db, userId, first, {
      name: "Checking",
      type: "depository",
      balance: 1_000_00,
    }),
    savings: await addAccount(db, userId, first, { name: "Savings", type: "depository", balance: 5_000_00 }),
    card: await addAccount(db, userId, first, { name: "Card", type: "credit", balance: 300_00 }),
    brokerage: await addAccount(db, userId, second, {
      name: "Brokerage",
      type: "investment",
      balance: 9_000_00,
    }),
  };
  const sessionToken = randomBytes(32).toString("hex");
  await db.insert(sessions).values({ sessionToken, userId, expires: new Date(Date.now() + 3600_000) });
  request.user = { id: userId, email: null, name: null };
  return { userId, email: "", sessionToken, cookie: `authjs.session-token=${sessionToken}`, accounts };
}

const form = (fields: Record<string, string | string[]>) => {
  const data = new FormData();
  for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) data.append(k, one);
  return data;
};

const sorted = (ids: Iterable<string>) => [...ids].sort();

const listedSchema = z.object({
  result: z.object({
    structuredContent: z.object({
      status: z.literal("ok"),
      data: z.object({ accounts: z.array(z.object({ id: z.string() })) }),
      warnings: z.array(z.object({ code: z.string(), count: z.number().optional() })),
    }),
  }),
});

/** One real MCP call over HTTP: list_accounts with `bearer`; the account ids it answers, sorted. */
async function listedOverHttp(bearer: string) {
  const answer = await rpc(
    server.url("/api/mcp"),
    { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_accounts", arguments: {} } },
    { apiKey: bearer },
  );
  expect(answer.status, answer.text).toBe(200);
  const { structuredContent } = listedSchema.parse(answer.body).result;
  return {
    ids: sorted(structuredContent.data.accounts.map((a) => a.id)),
    hidden: structuredContent.warnings.find((w) => w.code === "HIDDEN_ACCOUNTS")?.count ?? 0,
  };
}

async function storedKeyAccounts(keyId: string) {
  const [row] = await getDb()
    .select({ accountIds: apiKeys.accountIds })
    .from(apiKeys)
    .where(eq(apiKeys.id, keyId));
  return row?.accountIds;
}

async function grantOf(userId: string) {
  const rows = await getDb()
    .select({ id: oauthGrants.id, accountIds: oauthGrants.accountIds })
    .from(oauthGrants)
    .where(eq(oauthGrants.userId, userId));
  expect(rows).toHaveLength(1);
  return rows[0]!;
}

/** Approves `client` for `user` on the consent screen with `ticked` boxes; returns the response. */
function approve(user: Person, client: { clientId: string; redirectUri: string }, ticked: string[]) {
  return postConsent(user, authorizationParams(client, pkcePair().challenge), "approve", {
    accountIds: ticked,
  });
}

/** Consent with `ticked`, then the code exchanged: an access token of the grant. */
async function appToken(user: Person, ticked: string[]): Promise<string> {
  const client = await registerClient();
  const { verifier, challenge } = pkcePair();
  const res = await postConsent(user, authorizationParams(client, challenge), "approve", {
    accountIds: ticked,
  });
  const code = new URL(res.headers.get("location")!).searchParams.get("code");
  if (!code) throw new Error(`no code: ${res.status} ${await res.text()}`);
  const tokens = await token({
    grant_type: "authorization_code",
    code,
    code_verifier: verifier,
    redirect_uri: client.redirectUri,
    client_id: client.clientId,
    resource: mcpResource(),
  });
  if (tokens.status !== 200) throw new Error(`token: ${tokens.status} ${await tokens.text()}`);
  return String(((await tokens.json()) as { access_token: string }).access_token);
}

describe("hidden accounts (Banks page)", () => {
  it("hiding leaves the account out of the next call with HIDDEN_ACCOUNTS; showing brings it back", async () => {
    const alice = await person();
    const key = await createApiKey(getDb(), alice.userId, "all");
    const all = sorted(Object.values(alice.accounts));
    expect(await listedOverHttp(key.key)).toEqual({ ids: all, hidden: 0 });

    const hid = await setAccountHiddenAction(IDLE, form({ accountId: alice.accounts.card, hidden: "true" }));
    expect(hid).toEqual({ status: "ok", data: undefined, message: "Card is hidden from assistants." });
    expect(await listedOverHttp(key.key)).toEqual({
      ids: all.filter((id) => id !== alice.accounts.card),
      hidden: 1,
    });

    const shown = await setAccountHiddenAction(
      IDLE,
      form({ accountId: alice.accounts.card, hidden: "false" }),
    );
    expect(shown).toMatchObject({ status: "ok", message: "Card is shown to assistants again." });
    expect(await listedOverHttp(key.key)).toEqual({ ids: all, hidden: 0 });
  });

  it("another person's account cannot be hidden; a bad flag is named", async () => {
    const bob = await person();
    const bobKey = await createApiKey(getDb(), bob.userId, "bob");
    await person(); // signed in as alice now
    const foreign = await setAccountHiddenAction(
      IDLE,
      form({ accountId: bob.accounts.savings, hidden: "true" }),
    );
    expect(foreign).toMatchObject({ status: "error", error: expect.stringContaining("not one of yours") });
    expect((await listedOverHttp(bobKey.key)).ids).toContain(bob.accounts.savings);
    const bad = await setAccountHiddenAction(IDLE, form({ accountId: bob.accounts.savings, hidden: "yes" }));
    expect(bad).toEqual({
      status: "error",
      error: 'The field "hidden" must be true or false.',
      field: "hidden",
    });
  });
});

describe("API keys: accounts per key", () => {
  it("a key created for chosen accounts reads only them; editing takes effect on the next call", async () => {
    const alice = await person();
    const { checking, savings, brokerage } = alice.accounts;
    const created = await createApiKeyAction(
      IDLE,
      form({ name: "Budget app", access: "chosen", accountIds: [savings, checking, savings] }),
    );
    if (created.status !== "ok") throw new Error(JSON.stringify(created));
    expect(await storedKeyAccounts(created.data.id)).toEqual(sorted([checking, savings]));
    expect((await listedOverHttp(created.data.key)).ids).toEqual(sorted([checking, savings]));

    // Same key, no new sign-in: the very next call reads the new choice.
    const edited = await setApiKeyAccountsAction(
      IDLE,
      form({ keyId: created.data.id, access: "chosen", accountIds: brokerage }),
    );
    expect(edited).toMatchObject({ status: "ok" });
    expect((await listedOverHttp(created.data.key)).ids).toEqual([brokerage]);

    const widened = await setApiKeyAccountsAction(
      IDLE,
      form({ keyId: created.data.id, access: "all", accountIds: brokerage }),
    );
    expect(widened).toMatchObject({ status: "ok" });
    expect(await storedKeyAccounts(created.data.id)).toBeNull();
    expect((await listedOverHttp(created.data.key)).ids).toEqual(sorted(Object.values(alice.accounts)));
  });

  it("a key is for all accounts unless chosen; rotation keeps the accounts", async () => {
    const alice = await person();
    const plain = await createApiKeyAction(IDLE, form({ name: "Default" }));
    if (plain.status !== "ok") throw new Error(JSON.stringify(plain));
    expect(await storedKeyAccounts(plain.data.id)).toBeNull();

    const chosen = await createApiKeyAction(
      IDLE,
      form({ name: "Card only", access: "chosen", accountIds: alice.accounts.card }),
    );
    if (chosen.status !== "ok") throw new Error(JSON.stringify(chosen));
    const rotated = await rotateApiKeyAction(IDLE, form({ keyId: chosen.data.id }));
    if (rotated.status !== "ok") throw new Error(JSON.stringify(rotated));
    expect(await storedKeyAccounts(rotated.data.id)).toEqual([alice.accounts.card]);
    expect((await listedOverHttp(rotated.data.key)).ids).toEqual([alice.accounts.card]);
    const twice = await rotateApiKey(getDb(), alice.userId, rotated.data.id);
    expect(twice.accountIds).toEqual([alice.accounts.card]);
  });

  it("none chosen, another person's account, or no choice when editing: clear errors, nothing changes", async () => {
    const bob = await person();
    const alice = await person();
    const key = await createApiKey(getDb(), alice.userId, "k", [alice.accounts.checking]);

    const none = await createApiKeyAction(IDLE, form({ name: "Nothing", access: "chosen" }));
    expect(none).toEqual({
      status: "error",
      error: 'Choose at least one account, or "All accounts".',
      field: "accountIds",
    });
    const foreign = await createApiKeyAction(
      IDLE,
      form({ name: "Sneaky", access: "chosen", accountIds: [alice.accounts.savings, bob.accounts.savings] }),
    );
    expect(foreign).toMatchObject({ status: "error", field: "accountIds" });
    if (foreign.status === "error") expect(foreign.error).toContain("not one of yours");
    const keys = await getDb().select().from(apiKeys).where(eq(apiKeys.userId, alice.userId));
    expect(keys.map((k) => k.name)).toEqual(["k"]);

    for (const fields of <Record<string, string>[]>[
      { keyId: key.id, access: "chosen", accountIds: bob.accounts.brokerage },
      { keyId: key.id, access: "chosen" },
      { keyId: key.id, accountIds: alice.accounts.card },
      { keyId: key.id, access: "some" },
    ]) {
      const answer = await setApiKeyAccountsAction(IDLE, form(fields));
      expect(answer, JSON.stringify(fields)).toMatchObject({ status: "error" });
    }
    expect(await setApiKeyAccountsAction(IDLE, form({ keyId: key.id, access: "some" }))).toMatchObject({
      error: 'Choose "All accounts" or the accounts this may read.',
      field: "access",
    });
    expect((await listedOverHttp(key.key)).ids).toEqual([alice.accounts.checking]);

    // Bob's key cannot be edited by Alice, even to Bob's own accounts.
    const bobKey = await createApiKey(getDb(), bob.userId, "bob's");
    const theirs = await setApiKeyAccountsAction(IDLE, form({ keyId: bobKey.id, access: "all" }));
    expect(theirs).toEqual({ status: "error", error: "No such active key." });
  });
});

describe("the consent screen's choice reaches the grant", () => {
  it("a subset gives those ids, every box gives all accounts (null); approving again replaces the choice", async () => {
    const alice = await person();
    const { checking, savings, card, brokerage } = alice.accounts;
    const client = await registerClient();

    expect((await approve(alice, client, [savings, checking])).status).toBe(303);
    const first = await grantOf(alice.userId);
    expect(first.accountIds).toEqual(sorted([checking, savings]));

    expect((await approve(alice, client, [brokerage, card, savings, checking])).status).toBe(303);
    const again = await grantOf(alice.userId);
    expect(again).toEqual({ id: first.id, accountIds: null });

    expect((await approve(alice, client, [card])).status).toBe(303);
    expect(await grantOf(alice.userId)).toEqual({ id: first.id, accountIds: [card] });
  });

  it("no box ticked: back to the consent screen saying so, nothing issued", async () => {
    const alice = await person();
    const client = await registerClient();
    const res = await approve(alice, client, []);
    expect(res.status).toBe(303);
    const back = new URL(res.headers.get("location")!);
    expect(back.pathname).toBe("/oauth/authorize");
    expect(back.searchParams.get("accounts_error")).toBe("none");
    expect(back.searchParams.get("client_id")).toBe(client.clientId);
    const codes = await getDb().select().from(oauthCodes).where(eq(oauthCodes.clientId, client.clientId));
    expect(codes).toHaveLength(0);
    // Deny needs no account.
    const denied = await postConsent(alice, authorizationParams(client, pkcePair().challenge), "deny");
    expect(new URL(denied.headers.get("location")!).searchParams.get("error")).toBe("access_denied");
  });

  it("another person's account cannot be granted", async () => {
    const bob = await person();
    const alice = await person();
    const client = await registerClient();
    const res = await approve(alice, client, [alice.accounts.checking, bob.accounts.checking]);
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
    expect(await res.text()).toContain("not one of yours");
    const grants = await getDb().select().from(oauthGrants).where(eq(oauthGrants.userId, alice.userId));
    expect(grants).toHaveLength(0);
  });

  it("a person with no account yet approves for all accounts", async () => {
    const db = getDb();
    const userId = await createUser(db);
    const sessionToken = randomBytes(32).toString("hex");
    await db.insert(sessions).values({ sessionToken, userId, expires: new Date(Date.now() + 3600_000) });
    const client = await registerClient();
    const res = await postConsent(
      { sessionToken, cookie: `authjs.session-token=${sessionToken}` },
      authorizationParams(client, pkcePair().challenge),
    );
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get("location")!).searchParams.get("code")).toMatch(/^llac_/);
    expect((await grantOf(userId)).accountIds).toBeNull();
  });
});

describe("Connected apps: editing a grant's accounts", () => {
  it("takes effect on the app's next call, refresh included; another person's grant is refused", async () => {
    const alice = await person();
    const { checking, brokerage } = alice.accounts;
    const access = await appToken(alice, [checking]);
    expect((await listedOverHttp(access)).ids).toEqual([checking]);
    const grant = await grantOf(alice.userId);

    const edited = await setAppAccountsAction(
      IDLE,
      form({ grantId: grant.id, access: "chosen", accountIds: [brokerage, checking] }),
    );
    expect(edited).toMatchObject({ status: "ok" });
    expect((await listedOverHttp(access)).ids).toEqual(sorted([checking, brokerage]));

    const none = await setAppAccountsAction(IDLE, form({ grantId: grant.id, access: "chosen" }));
    expect(none).toMatchObject({ status: "error", field: "accountIds" });

    await person(); // now Bob is signed in
    const theirs = await setAppAccountsAction(IDLE, form({ grantId: grant.id, access: "all" }));
    expect(theirs).toEqual({ status: "error", error: "That app is not connected." });
    expect((await listedOverHttp(access)).ids).toEqual(sorted([checking, brokerage]));
  });
});

describe("a new account reaches only the credentials for all accounts", () => {
  it("a bank linked later: keys and apps set to all see its accounts at once; chosen ones do not", async () => {
    const alice = await person();
    const { checking } = alice.accounts;
    const allKey = await createApiKey(getDb(), alice.userId, "all");
    const chosenKey = await createApiKey(getDb(), alice.userId, "chosen", [checking]);
    const allApp = await appToken(alice, Object.values(alice.accounts));
    const chosenApp = await appToken(alice, [checking]);

    // A bank linked later, through the real connect and first sync.
    const linked = await linkSandboxBank(getDb(), alice.userId, "ins_platypus", new Date());
    const fresh = await getDb()
      .select({ id: bankAccounts.id })
      .from(bankAccounts)
      .where(eq(bankAccounts.connectionId, linked.connection.id));
    expect(fresh.length).toBeGreaterThan(0);
    const everything = sorted([...Object.values(alice.accounts), ...fresh.map((a) => a.id)]);
    expect((await listedOverHttp(allKey.key)).ids).toEqual(everything);
    expect((await listedOverHttp(allApp)).ids).toEqual(everything);
    expect((await listedOverHttp(chosenKey.key)).ids).toEqual([checking]);
    expect((await listedOverHttp(chosenApp)).ids).toEqual([checking]);
  });
});

describe("tools page: run as a key or an app", () => {
  const runAs = async (run_as: string) => {
    const answer = await runToolAction(IDLE, form({ tool: "list_accounts", run_as }));
    if (answer.status !== "ok") return answer;
    const parsed = z
      .object({ data: z.object({ accounts: z.array(z.object({ id: z.string() })) }) })
      .parse(JSON.parse(answer.data.text));
    return sorted(parsed.data.accounts.map((a) => a.id));
  };

  it("answers what that key or app reads; a key that is not live is refused by name", async () => {
    const alice = await person();
    const { savings, card } = alice.accounts;
    const key = await createApiKey(getDb(), alice.userId, "savings", [savings]);
    await appToken(alice, [card]);
    const grant = await grantOf(alice.userId);
    await setAccountHiddenAction(IDLE, form({ accountId: alice.accounts.brokerage, hidden: "true" }));

    const visible = sorted(Object.values(alice.accounts).filter((id) => id !== alice.accounts.brokerage));
    expect(await runAs("you")).toEqual(visible);
    expect(await runAs(`key:${key.id}`)).toEqual([savings]);
    expect(await runAs(`app:${grant.id}`)).toEqual([card]);

    const rotated = await rotateApiKey(getDb(), alice.userId, key.id);
    expect(await runAs(`key:${rotated.id}`)).toEqual([savings]);
    for (const stale of [`key:${key.id}`, "key:nope", `app:${key.id}`, "root"]) {
      expect(await runAs(stale), stale).toMatchObject({
        status: "error",
        error: expect.stringContaining("no longer active"),
        field: "run_as",
      });
    }
  });
});

describe("refreshing an app's token keeps its accounts", () => {
  it("the refreshed access token reads the grant's accounts", async () => {
    const alice = await person();
    const client = await registerClient();
    const { verifier, challenge } = pkcePair();
    const params = authorizationParams(client, challenge, { scope: "finance:read offline_access" });
    const res = await postConsent(alice, params, "approve", { accountIds: [alice.accounts.savings] });
    const code = new URL(res.headers.get("location")!).searchParams.get("code")!;
    const first = (await (
      await token({
        grant_type: "authorization_code",
        code,
        code_verifier: verifier,
        redirect_uri: client.redirectUri,
        client_id: client.clientId,
        resource: mcpResource(),
      })
    ).json()) as { refresh_token?: string };
    expect(first.refresh_token).toBeTruthy();
    const refreshed = (await (await exchangeRefreshToken(first.refresh_token!, client.clientId)).json()) as {
      access_token: string;
    };
    expect((await listedOverHttp(refreshed.access_token)).ids).toEqual([alice.accounts.savings]);
    const [row] = await getDb()
      .select({ accountIds: oauthGrants.accountIds })
      .from(oauthGrants)
      .where(and(eq(oauthGrants.userId, alice.userId), eq(oauthGrants.clientId, client.clientId)));
    expect(row?.accountIds).toEqual([alice.accounts.savings]);
  });
});
