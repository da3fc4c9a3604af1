/**
 * Auth.js logs through `authLogger`: what failed and where, never an error's message, which for
 * an adapter failure quotes the query's parameters (the session token among them).
 */

import { AdapterError, SessionTokenError } from "@auth/core/errors";
import { afterEach, describe, expect, it, vi } from "vitest";
import { authDatabaseFailedWithin, authLogger } from "@/lib/auth-logger";

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

  it("remembers that the database was unreachable (an adapter failure whose cause says so), not other failures", () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    vi.useFakeTimers();
    try {
      vi.advanceTimersByTime(10_000);
      const wrong = new Error("adapter failed", {
        cause: Object.assign(new Error("syntax"), { code: "42601" }),
      });
      authLogger.error(wrong);
      expect(authDatabaseFailedWithin(1_000)).toBe(false);
      // As Auth.js reports a session look-up that met a frozen database: its own errors wrap the
      // driver's as `cause: { err }`.
      const driver = new Error("Failed query", { cause: new Error("Query read timeout") });
      // (Auth.js's constructors take an Error at run time; their types admit only a message.)
      const wrap = <T>(Kind: new (m?: string) => T, error: Error): T =>
        new (Kind as unknown as new (e: Error) => T)(error);
      authLogger.error(wrap(SessionTokenError, wrap(AdapterError, driver)));
      expect(authDatabaseFailedWithin(1_000)).toBe(true);
      vi.advanceTimersByTime(1_500);
      expect(authDatabaseFailedWithin(1_000)).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });
});
