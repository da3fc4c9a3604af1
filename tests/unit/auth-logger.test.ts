/**
 * Auth.js logs through `authLogger`: what failed and where, never an error's message, which for
 * an adapter failure quotes the query's parameters (the session token among them).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { authLogger } from "@/lib/auth-logger";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("authLogger", () => {
  it("logs an adapter failure's kind and SQLSTATE, never the session token in its messages", () => {
    const token = "0f5e3c1a-session-token-9d2b";
    const cause = Object.assign(
      new Error(`Failed query: select * from sessions where session_token = $1\nparams: ${token}`),
      { code: "57P01" },
    );
    const error = new Error(`Read more at https://errors.authjs.dev#adaptererror ${token}`, { cause });
    error.name = "AdapterError";
    const lines: string[] = [];
    vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
      lines.push(args.map(String).join(" "));
    });
    authLogger.error(error);
    expect(lines).toHaveLength(1);
    const logged = lines.join("\n");
    expect(JSON.parse(logged)).toMatchObject({
      level: "error",
      msg: "auth.error",
      error: "AdapterError",
      sqlstate: "57P01",
      cause: "Error",
    });
    expect(logged).not.toContain(token);
  });

  it("drops debug output (it carries cookies and tokens)", () => {
    const spies = (["log", "info", "debug", "error", "warn"] as const).map((m) =>
      vi.spyOn(console, m).mockImplementation(() => {}),
    );
    authLogger.debug();
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });
});
