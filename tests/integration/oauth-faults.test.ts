/**
 * The OAuth endpoints off the happy path: text PostgreSQL refuses (NUL, lone surrogates) is an
 * OAuth error naming the parameter before it reaches the database, and a database that cannot be
 * reached answers 503 `temporarily_unavailable` with Retry-After (so the client retries), never a
 * 500 `server_error`. The outage is real: a driver pointed at a port where nothing listens.
 */
import { describe, expect, it } from "vitest";
import { resetEnvCache } from "@/lib/env";
import { useTestDatabase, whileDatabaseDown } from "../helpers/db";
import { register, registerClient, revoke, token } from "../helpers/oauth";

const _getDb = useTestDatabase();

async function oauthError(res: Response) {
  return { status: res.status, ...((await res.json()) as { error: string; error_description: string }) };
}

describe("text the database refuses", () => {
  // A form body is UTF-8: a lone surrogate cannot survive its encoding (it arrives as U+FFFD), so
  // only NUL reaches the form endpoints; JSON escapes carry both.
  it("token and revoke: a NUL character is invalid_request naming the parameter", async () => {
    const bad = "abc\u0000def";
    const client = await registerClient();
    const answer = await oauthError(
      await token({ grant_type: "authorization_code", code: bad, client_id: client.clientId }),
    );
    expect(answer).toMatchObject({ status: 400, error: "invalid_request" });
    expect(answer.error_description).toContain('"code"');
    const revoked = await oauthError(await revoke({ token: bad, client_id: client.clientId }));
    expect(revoked).toMatchObject({ status: 400, error: "invalid_request" });
    expect(revoked.error_description).toContain('"token"');
  });

  for (const [label, bad] of [
    ["a NUL character", "abc\u0000def"],
    ["a lone surrogate", "abc\ud800"],
  ] as const) {
    it(`register: ${label} in client metadata is invalid_client_metadata naming the field`, async () => {
      const answer = await oauthError(
        await register({
          client_name: bad,
          redirect_uris: ["http://127.0.0.1:49152/cb"],
          token_endpoint_auth_method: "none",
        }),
      );
      expect(answer).toMatchObject({ status: 400, error: "invalid_client_metadata" });
      expect(answer.error_description).toContain('"client_name"');
    });
  }
});

describe("a database outage", () => {
  it("token, revoke and register answer 503 temporarily_unavailable with Retry-After", async () => {
    const client = await registerClient();
    await whileDatabaseDown(async () => {
      const answers = [
        await token({ grant_type: "authorization_code", code: "llac_x", client_id: client.clientId }),
        await revoke({ token: "llat_x", client_id: client.clientId }),
        await register({
          client_name: "During outage",
          redirect_uris: ["http://127.0.0.1:49152/cb"],
          token_endpoint_auth_method: "none",
        }),
      ];
      for (const answer of answers) {
        expect(answer.status).toBe(503);
        expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0);
        expect(answer.headers.get("cache-control")).toBe("no-store");
        expect(await answer.json()).toMatchObject({ error: "temporarily_unavailable" });
      }
    });
  });
});

describe("per-address rate limits", () => {
  it("register and token answer 429 with Retry-After past their limit; other addresses are unaffected", async () => {
    const saved = {
      register: process.env.OAUTH_REGISTER_PER_MINUTE,
      token: process.env.OAUTH_TOKEN_PER_MINUTE,
    };
    process.env.OAUTH_REGISTER_PER_MINUTE = "2";
    process.env.OAUTH_TOKEN_PER_MINUTE = "2";
    resetEnvCache();
    const { POST: registerPost } = await import("@/app/api/oauth/register/route");
    const { POST: tokenPost } = await import("@/app/api/oauth/token/route");
    const address = `203.0.113.${Math.floor(Math.random() * 250) + 1}, 10.0.0.1`;
    const registerFrom = (ip: string) =>
      registerPost(
        new Request("http://localhost:3000/api/oauth/register", {
          method: "POST",
          headers: { "content-type": "application/json", "x-forwarded-for": ip },
          body: JSON.stringify({
            client_name: "Limited",
            redirect_uris: ["http://127.0.0.1:49152/cb"],
            token_endpoint_auth_method: "none",
          }),
        }),
      );
    const tokenFrom = (ip: string) =>
      tokenPost(
        new Request("http://localhost:3000/api/oauth/token", {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": ip },
          body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: "x", client_id: "nobody" }),
        }),
      );
    try {
      for (const send of [registerFrom, tokenFrom]) {
        // A window boundary may fall between the requests: within three more, one is refused.
        const statuses: number[] = [];
        let refused: Response | undefined;
        for (let i = 0; i < 5 && !refused; i++) {
          const answer = await send(address);
          statuses.push(answer.status);
          if (answer.status === 429) refused = answer;
        }
        expect(refused, JSON.stringify(statuses)).toBeDefined();
        expect(Number(refused?.headers.get("retry-after"))).toBeGreaterThan(0);
        expect(await refused?.json()).toMatchObject({ error: "slow_down" });
        expect((await send("198.51.100.7")).status).not.toBe(429);
      }
    } finally {
      process.env.OAUTH_REGISTER_PER_MINUTE = saved.register;
      process.env.OAUTH_TOKEN_PER_MINUTE = saved.token;
      resetEnvCache();
    }
  });
});
