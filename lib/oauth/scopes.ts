/**
 * The scopes Ledgerlink's authorization server grants. Every MCP tool is read-only, so one scope
 * covers them all; the consent screen shows `description` so the user knows what the app may read.
 * Listed in both metadata documents (RFC 8414 `scopes_supported`, RFC 9728 `scopes_supported`).
 */
export const OAUTH_SCOPES = {
  "finance:read": {
    title: "Read your financial data",
    description:
      "Accounts and balances, transactions, spending and cash flow, recurring charges and bills, investments, debts, net worth, and the health of your bank connections. Read-only: it cannot move money or change anything.",
  },
} as const;

export type OAuthScope = keyof typeof OAUTH_SCOPES;

/** All supported scopes, in a stable order. */
export const SUPPORTED_SCOPES = Object.keys(OAUTH_SCOPES) as OAuthScope[];

/** The scope granted when a request names none. */
export const DEFAULT_SCOPE = SUPPORTED_SCOPES.join(" ");

/** Splits a space-delimited scope string (RFC 6749 §3.3) into unique tokens. */
export function parseScope(scope: string | null | undefined): string[] {
  if (!scope) return [];
  return [...new Set(scope.split(" ").filter((s) => s.length > 0))];
}

export function isSupportedScope(scope: string): scope is OAuthScope {
  return Object.hasOwn(OAUTH_SCOPES, scope);
}
