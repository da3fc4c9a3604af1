/**
 * Who is calling the MCP endpoint, as every later step (rate limit, tools, activity log) needs
 * it. Below both auth.ts (the 401 and token verification) and caller.ts (the one context
 * statement that finds the credential), so the arrows between them run one way.
 */
export type McpCredential =
  | { kind: "api_key"; userId: string; apiKeyId: string }
  | {
      kind: "oauth";
      userId: string;
      /** The public `client_id` of the OAuth client. */
      oauthClientId: string;
      grantId: string;
      scopes: string[];
      expiresAt: Date;
    }
  /** The signed-in person running a tool on /dashboard/tools (their session, no token). */
  | { kind: "dashboard"; userId: string };
