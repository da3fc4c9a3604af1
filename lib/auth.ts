/**
 * Sign-in: Auth.js (next-auth v5) with database sessions in our own tables (users, auth_accounts,
 * sessions, verification_tokens), passed to the Drizzle adapter explicitly.
 *
 * Providers:
 * - Email magic link (https://authjs.dev/getting-started/authentication/email): delivered by SMTP
 *   when SMTP_URL is set, or written to the server log when EMAIL_TRANSPORT resolves to `log`
 *   (default under `next dev` only: a link in a log is a secret).
 * - GitHub when AUTH_GITHUB_ID and AUTH_GITHUB_SECRET are set.
 *
 * Every page and server action checks the session itself (`requirePageUser`, lib/action.ts); a
 * redirect in a layout or proxy is convenience, never security.
 */
import { DrizzleAdapter } from "@auth/drizzle-adapter";
import { sql } from "drizzle-orm";
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import NextAuth, { type DefaultSession, type NextAuthConfig } from "next-auth";
import type { Provider } from "next-auth/providers";
import type { EmailConfig } from "next-auth/providers/email";
import GitHub from "next-auth/providers/github";
import { getDb } from "@/db";
import { authAccounts, sessions, users, verificationTokens } from "@/db/schema";
import { authDatabaseFailedWithin, authLogger } from "@/lib/auth-logger";
import { type Env, getEnv } from "@/lib/env";
import { AppError, failureFields } from "@/lib/errors";
import { log } from "@/lib/log";
import { SESSION_COOKIE_NAMES } from "@/lib/oauth/session";

declare module "next-auth" {
  interface Session {
    user: { id: string } & DefaultSession["user"];
  }
}

export type EmailTransport = "smtp" | "log" | "off";

/** Where sign-in links go; see EMAIL_TRANSPORT in lib/env.ts. */
export function resolveEmailTransport(env: Env): EmailTransport {
  if (env.EMAIL_TRANSPORT === "log") return "log";
  if (env.EMAIL_TRANSPORT === "smtp" || env.SMTP_URL) return env.SMTP_URL ? "smtp" : "off";
  return env.NODE_ENV === "development" ? "log" : "off";
}

/** Which sign-in methods this deployment offers (the sign-in page shows exactly these). */
export function signInMethods(env: Env = getEnv()): { email: boolean; github: boolean } {
  return {
    email: resolveEmailTransport(env) !== "off",
    github: Boolean(env.AUTH_GITHUB_ID && env.AUTH_GITHUB_SECRET),
  };
}

const LINK_LIFETIME_SECONDS = 15 * 60;

function emailProvider(env: Env, transport: "smtp" | "log"): EmailConfig {
  return {
    id: "email",
    type: "email",
    name: "Email",
    from: env.EMAIL_FROM,
    maxAge: LINK_LIFETIME_SECONDS,
    async sendVerificationRequest({ identifier, url }) {
      if (transport === "log") {
        // Development (or an explicit EMAIL_TRANSPORT=log): the log is the mailbox. The one line
        // that carries a secret and an email, by design; its fields say so.
        log.info("auth.sign_in_link", { transport: "log", email: identifier, sign_in_link: url });
        return;
      }
      const { createTransport } = await import("nodemailer");
      const result = await createTransport(env.SMTP_URL).sendMail({
        to: identifier,
        from: env.EMAIL_FROM,
        subject: "Your Ledgerlink sign-in link",
        text: `Sign in to Ledgerlink:\n${url}\n\nThe link works once and expires in 15 minutes. If you did not ask for it, ignore this email.\n`,
        html: `<p>Sign in to Ledgerlink:</p><p><a href="${url}">Sign in</a></p><p>The link works once and expires in 15 minutes. If you did not ask for it, ignore this email.</p>`,
      });
      if (result.rejected.length > 0) throw new Error("The sign-in email was rejected by the mail server.");
    },
  };
}

// A fixed secret is acceptable only outside production: sessions live in the database, and the
// secret only hashes verification tokens and CSRF tokens. Production must set AUTH_SECRET
// (instrumentation.ts stops start-up without it).
const DEVELOPMENT_SECRET = "ledgerlink-development-secret-not-for-production";

async function buildConfig(): Promise<NextAuthConfig> {
  const env = getEnv();
  // Links in emails are built from APP_URL, never from request headers.
  process.env.AUTH_URL ??= `${env.APP_URL}/api/auth`;
  const providers: Provider[] = [];
  const transport = resolveEmailTransport(env);
  if (transport !== "off") providers.push(emailProvider(env, transport));
  if (env.AUTH_GITHUB_ID && env.AUTH_GITHUB_SECRET) {
    providers.push(GitHub({ clientId: env.AUTH_GITHUB_ID, clientSecret: env.AUTH_GITHUB_SECRET }));
  }
  const db = await getDb();
  return {
    adapter: DrizzleAdapter(db, {
      usersTable: users,
      accountsTable: authAccounts,
      sessionsTable: sessions,
      verificationTokensTable: verificationTokens,
    }),
    session: { strategy: "database", maxAge: 30 * 24 * 3600, updateAge: 24 * 3600 },
    secret: env.AUTH_SECRET ?? (env.NODE_ENV === "production" ? undefined : DEVELOPMENT_SECRET),
    trustHost: true,
    providers,
    pages: { signIn: "/sign-in", verifyRequest: "/sign-in/check-email", error: "/sign-in" },
    logger: authLogger,
    callbacks: {
      session({ session, user }) {
        session.user.id = user.id;
        return session;
      },
    },
  };
}

export const { handlers, auth, signIn, signOut } = NextAuth(buildConfig);

export interface SessionUser {
  id: string;
  email: string | null;
  name: string | null;
}

/**
 * The signed-in user, or null. Auth.js answers "no session" when the database fails too; a
 * request that carries a session cookie then checks the database itself, so an outage is an
 * error page (AppError `unavailable`) and the person stays signed in, never a trip to /sign-in.
 */
export async function getSessionUser(): Promise<SessionUser | null> {
  const session = await auth();
  const id = session?.user?.id;
  if (!id) {
    const jar = await cookies();
    if (SESSION_COOKIE_NAMES.some((name) => jar.has(name))) await assertDatabaseReachable();
    return null;
  }
  return { id, email: session.user.email ?? null, name: session.user.name ?? null };
}

/** For pages: the signed-in user, or a redirect to the sign-in page. */
export async function requirePageUser(): Promise<SessionUser> {
  const user = await getSessionUser();
  if (!user) redirect("/sign-in");
  return user;
}

async function assertDatabaseReachable(): Promise<void> {
  // Auth.js's own look-up just met the database unreachable (a frozen one takes the statement
  // bound to say so): answer at once instead of waiting that bound again (7.2 s → 3.7 s).
  if (authDatabaseFailedWithin(1_000))
    throw new AppError("unavailable", "Ledgerlink is briefly unavailable. Please try again in a moment.");
  try {
    await (await getDb()).execute(sql`select 1`);
  } catch (error) {
    log.error("auth.session_check_unavailable", failureFields(error));
    throw new AppError("unavailable", "Ledgerlink is briefly unavailable. Please try again in a moment.");
  }
}
