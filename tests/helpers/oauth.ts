/**
 * In-process OAuth test helpers: call the real route handlers with Request objects, create a
 * signed-in user the way Auth.js database sessions do (a `sessions` row + cookie), and run the
 * authorization step up to a code.
 */
import { createHash, randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { POST as authorizePost } from "@/app/api/oauth/authorize/route";
import { POST as registerPost } from "@/app/api/oauth/register/route";
import { POST as revokePost } from "@/app/api/oauth/revoke/route";
import { POST as tokenPost } from "@/app/api/oauth/token/route";
import { type Database, getDb } from "@/db";
import { sessions, users } from "@/db/schema";
import { listChoosableAccounts } from "@/lib/account-access";
import { getEnv } from "@/lib/env";
import { consentCsrfToken } from "@/lib/oauth/session";

export const appUrl = () => getEnv().APP_URL;
export const mcpResource = () => `${appUrl()}/api/mcp`;

export interface TestUser {
  userId: string;
  email: string;
  sessionToken: string;
  cookie: string;
}

/** A fresh user with a live database session. */
export async function createSignedInUser(db: Database): Promise<TestUser> {
  const email = `oauth-${randomBytes(6).toString("hex")}@example.test`;
  const [user] = await db.insert(users).values({ email }).returning({ id: users.id });
  if (!user) throw new Error("user not created");
  const sessionToken = randomBytes(32).toString("hex");
  await db
    .insert(sessions)
    .values({ sessionToken, userId: user.id, expires: new Date(Date.now() + 3600_000) });
  return { userId: user.id, email, sessionToken, cookie: `authjs.session-token=${sessionToken}` };
}

export function pkcePair() {
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  return { verifier, challenge };
}

export async function register(body: unknown, contentType = "application/json"): Promise<Response> {
  return registerPost(
    new Request(`${appUrl()}/api/oauth/register`, {
      method: "POST",
      headers: { "content-type": contentType },
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
}

export interface TestClient {
  clientId: string;
  clientSecret?: string;
  redirectUri: string;
}

/** Registers a client (public unless told otherwise) with a loopback redirect URI. */
export async function registerClient(
  overrides: Record<string, unknown> = {},
): Promise<TestClient & { body: Record<string, unknown> }> {
  const redirectUri = `http://127.0.0.1:49152/callback/${randomBytes(4).toString("hex")}`;
  const res = await register({
    client_name: "Test client",
    redirect_uris: [redirectUri],
    token_endpoint_auth_method: "none",
    grant_types: ["authorization_code", "refresh_token"],
    ...overrides,
  });
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as Record<string, unknown>;
  return {
    clientId: String(body.client_id),
    clientSecret: typeof body.client_secret === "string" ? body.client_secret : undefined,
    redirectUri: (body.redirect_uris as string[])[0]!,
    body,
  };
}

/** A valid authorization request's parameters; `overrides` with undefined removes a parameter. */
export function authorizationParams(
  client: TestClient,
  challenge: string,
  overrides: Record<string, string | undefined> = {},
): URLSearchParams {
  const base: Record<string, string | undefined> = {
    response_type: "code",
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "st-ä ~/+=&x",
    resource: mcpResource(),
    scope: "finance:read",
    ...overrides,
  };
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(base)) if (v !== undefined) params.set(k, v);
  return params;
}

/** The ids of the signed-in person's open accounts: the boxes the consent screen ticks at first. */
export async function everyAccountOf(sessionToken: string): Promise<string[]> {
  const db = await getDb();
  const [session] = await db
    .select({ userId: sessions.userId })
    .from(sessions)
    .where(eq(sessions.sessionToken, sessionToken));
  return session ? (await listChoosableAccounts(db, session.userId)).map((a) => a.id) : [];
}

/**
 * POSTs the consent form as the browser would: with every account box ticked, as the screen shows
 * them, unless `extra.accountIds` says which.
 */
export async function postConsent(
  user: Pick<TestUser, "cookie" | "sessionToken"> | null,
  params: URLSearchParams,
  decision: "approve" | "deny" = "approve",
  extra: { csrf?: string; origin?: string; accountIds?: string[] } = {},
): Promise<Response> {
  const form = new URLSearchParams(params);
  form.set("decision", decision);
  if (user) form.set("csrf_token", extra.csrf ?? consentCsrfToken(user.sessionToken));
  if (user)
    for (const id of extra.accountIds ?? (await everyAccountOf(user.sessionToken)))
      form.append("accountIds", id);
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
  if (user) headers.cookie = user.cookie;
  headers.origin = extra.origin ?? new URL(appUrl()).origin;
  return authorizePost(
    new Request(`${appUrl()}/api/oauth/authorize`, { method: "POST", headers, body: form.toString() }),
  );
}

/** Approves and returns the code from the redirect. */
export async function obtainCode(
  user: TestUser,
  client: TestClient,
  challenge: string,
  overrides: Record<string, string | undefined> = {},
): Promise<string> {
  const res = await postConsent(user, authorizationParams(client, challenge, overrides));
  const location = res.headers.get("location");
  if (res.status !== 303 || !location) throw new Error(`consent failed: ${res.status} ${await res.text()}`);
  const code = new URL(location).searchParams.get("code");
  if (!code) throw new Error(`no code in ${location}`);
  return code;
}

/** POSTs `form` url-encoded to the route handler `post` as if at `path` on APP_URL. */
function postForm(
  post: (req: Request) => Promise<Response>,
  path: string,
  form: Record<string, string>,
  headers: Record<string, string>,
): Promise<Response> {
  return post(
    new Request(`${appUrl()}${path}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams(form).toString(),
    }),
  );
}

export async function token(
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return postForm(tokenPost, "/api/oauth/token", form, headers);
}

export async function revoke(
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return postForm(revokePost, "/api/oauth/revoke", form, headers);
}

/** POSTs a refresh_token grant for a public client (`extra` adds form fields such as scope). */
export function exchangeRefreshToken(
  refreshToken: string,
  clientId: string,
  extra: Record<string, string> = {},
): Promise<Response> {
  return token({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: clientId, ...extra });
}

export interface TokenSet {
  access_token: string;
  refresh_token?: string;
  expires_in: number;
  token_type: string;
  scope: string;
}

/** Runs consent and code exchange for a public client; returns the tokens. */
export async function obtainTokens(db: Database, user?: TestUser, client?: TestClient) {
  const u = user ?? (await createSignedInUser(db));
  const c = client ?? (await registerClient());
  const { verifier, challenge } = pkcePair();
  const code = await obtainCode(u, c, challenge);
  const res = await token({
    grant_type: "authorization_code",
    code,
    code_verifier: verifier,
    redirect_uri: c.redirectUri,
    client_id: c.clientId,
    resource: mcpResource(),
  });
  if (res.status !== 200) throw new Error(`token failed: ${res.status} ${await res.text()}`);
  return { user: u, client: c, code, tokens: (await res.json()) as TokenSet };
}
