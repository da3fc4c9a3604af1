/**
 * Every route handler in app/ (found on disk, so a new route is covered the day it lands), on the
 * production build, with every method and a set of hostile bodies: empty, not JSON, JSON nested
 * 60,000 deep (arrays and objects), a form of garbage, NUL characters, and more than a megabyte.
 * None may answer 5xx, and every 405 carries `Allow` naming only methods that are not 405.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";

const skipReason = inject("e2eSkipReason");
const ROOT = path.resolve(import.meta.dirname, "../..");
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

/** The URL path of every `route.ts` under app/ (a catch-all segment gets one real path). */
function routePaths(dir = path.join(ROOT, "app"), prefix = ""): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      const segment = entry.name.startsWith("(")
        ? ""
        : entry.name === "[...nextauth]"
          ? "/session"
          : `/${entry.name}`;
      found.push(...routePaths(path.join(dir, entry.name), `${prefix}${segment}`));
    } else if (entry.name === "route.ts") found.push(prefix || "/");
  }
  return found;
}

const DEEP = 60_000;
const BODIES: Array<{ name: string; type: string; body: string }> = [
  { name: "empty", type: "application/json", body: "" },
  { name: "not JSON", type: "application/json", body: '{"redirect_uris":' },
  { name: "deep arrays", type: "application/json", body: `${"[".repeat(DEEP)}${"]".repeat(DEEP)}` },
  {
    name: "deep objects",
    type: "application/json",
    body: `{"client_name":"x","redirect_uris":["https://a.example/cb"],"x":${'{"a":'.repeat(DEEP)}1${"}".repeat(DEEP)}}`,
  },
  {
    name: "deep JSON-RPC params",
    type: "application/json",
    body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_accounts","arguments":${'{"a":'.repeat(DEEP)}1${"}".repeat(DEEP)}}}`,
  },
  { name: "form garbage", type: "application/x-www-form-urlencoded", body: "%%%&=&grant_type=%zz&token=%00" },
  { name: "NUL in JSON", type: "application/json", body: '{"client_name":"a\\u0000b","token":"\\u0000"}' },
  { name: "over a megabyte", type: "application/json", body: `{"x":"${"a".repeat(1_100_000)}"}` },
];

describe.skipIf(Boolean(skipReason))(
  "every route, every method, hostile bodies: no 5xx, every 405 says Allow",
  () => {
    const paths = routePaths().filter((p) => !p.startsWith("/api/bench-echo"));

    it("finds the routes", () => {
      expect(paths).toContain("/api/mcp");
      expect(paths).toContain("/.well-known/oauth-authorization-server");
      expect(paths.length).toBeGreaterThanOrEqual(15);
    });

    for (const route of paths) {
      it(route, async () => {
        const base = inject("e2eBaseUrl");
        const failures: string[] = [];
        const statuses = new Map<string, number>();
        const allows = new Map<string, string | null>();
        for (const method of METHODS) {
          const bodies = method === "GET" || method === "HEAD" ? [undefined] : BODIES;
          for (const sent of bodies) {
            const answer = await fetch(`${base}${route}`, {
              method,
              redirect: "manual",
              headers: {
                // A bearer key of the right shape reaches the MCP endpoint's body handling.
                authorization: "Bearer llk_0000000000000000000000000000000000000000000",
                accept: "application/json, text/event-stream",
                ...(sent ? { "content-type": sent.type } : {}),
              },
              ...(sent ? { body: sent.body } : {}),
            }).catch((error: Error) => ({ status: 0, headers: new Headers(), error }));
            if ("body" in answer && answer.body) await answer.text().catch(() => "");
            const label = `${method} ${sent?.name ?? "(no body)"}`;
            if (answer.status === 0 || answer.status >= 500) failures.push(`${label}: ${answer.status}`);
            statuses.set(method, answer.status);
            if (answer.status === 405) allows.set(method, answer.headers.get("allow"));
          }
        }
        for (const [method, allow] of allows) {
          if (!allow) {
            failures.push(`${method}: 405 without Allow`);
            continue;
          }
          const allowed = allow.split(/,\s*/);
          expect(allowed, `${route} ${method}`).not.toContain(method);
          for (const listed of allowed)
            if (statuses.get(listed) === 405)
              failures.push(`${method}: Allow lists ${listed}, which is 405 too`);
        }
        expect(failures, route).toEqual([]);
      });
    }
  },
);
