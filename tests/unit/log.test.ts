/**
 * lib/log.ts: every line is one JSON object, carries the current request's id, honours
 * LOG_LEVEL, and a failure is logged by its kind, SQLSTATE and frames, never its message.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { AppError, failureFields } from "@/lib/errors";
import { captureConsole, log } from "@/lib/log";
import { runInRequest } from "@/lib/request-context";

afterEach(() => {
  vi.restoreAllMocks();
  delete process.env.LOG_LEVEL;
});

/** What `fn` writes through the console, as lines by stream. */
function capture(fn: () => void): { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void out.push(args.join(" ")));
  vi.spyOn(console, "info").mockImplementation((...args: unknown[]) => void out.push(args.join(" ")));
  vi.spyOn(console, "warn").mockImplementation((...args: unknown[]) => void err.push(args.join(" ")));
  vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => void err.push(args.join(" ")));
  fn();
  return { out, err };
}

describe("log", () => {
  it("writes one JSON object per line: info to stdout, warn and error to stderr", () => {
    const { out, err } = capture(() => {
      log.info("cron.scheduled_sync", { due: 3, synced: 2, skipped: undefined });
      log.warn("cron.secret_missing");
      log.error("sync.vacuum_failed", { error: "Error" });
    });
    expect(out).toHaveLength(1);
    expect(err).toHaveLength(2);
    const info = JSON.parse(out[0] ?? "");
    expect(info).toMatchObject({ level: "info", msg: "cron.scheduled_sync", due: 3, synced: 2 });
    expect(info).not.toHaveProperty("skipped");
    expect(Date.parse(info.time)).not.toBeNaN();
    expect(err.map((line) => JSON.parse(line).level)).toEqual(["warn", "error"]);
  });

  it("puts the current request's id on every line written while serving it", () => {
    const record = { id: "req-123", statements: 0, fields: {} };
    const { out } = capture(() => {
      log.info("outside");
      runInRequest(record, () => log.info("inside"));
    });
    expect(JSON.parse(out[0] ?? "")).not.toHaveProperty("request_id");
    expect(JSON.parse(out[1] ?? "")).toMatchObject({ msg: "inside", request_id: "req-123" });
  });

  it("LOG_LEVEL=warn drops info lines, error keeps errors only", () => {
    process.env.LOG_LEVEL = "warn";
    let lines = capture(() => {
      log.info("a");
      log.warn("b");
      log.error("c");
    });
    expect(lines.out).toHaveLength(0);
    expect(lines.err).toHaveLength(2);
    process.env.LOG_LEVEL = "error";
    lines = capture(() => {
      log.warn("b");
      log.error("c");
    });
    expect(lines.err.map((line) => JSON.parse(line).msg)).toEqual(["c"]);
  });
});

describe("failureFields", () => {
  it("gives a driver error's kind, SQLSTATE, cause and frames, never its message", () => {
    const token = "llk_9f8e7d6c5b4a39281706f5e4d3c2b1a0";
    const cause = Object.assign(new Error(`duplicate key value (token)=(${token})`), { code: "23505" });
    const error = new Error(`Failed query: insert into "api_keys" values ($1)\nparams: ${token},-42.17`, {
      cause,
    });
    error.name = "DrizzleQueryError";
    const fields = failureFields(error);
    expect(fields).toMatchObject({ error: "DrizzleQueryError", sqlstate: "23505", cause: "Error" });
    expect(fields.at?.length).toBeGreaterThan(0);
    const text = JSON.stringify(fields);
    expect(text).not.toContain(token);
    expect(text).not.toContain("42.17");
  });

  it("gives our AppError's code and sentence", () => {
    expect(failureFields(new AppError("unavailable", "The bank provider is not configured."))).toEqual({
      error: "AppError",
      code: "unavailable",
      detail: "The bank provider is not configured.",
    });
    // Another bundle's AppError (Next bundles each route apart) is known by its name.
    const foreign = Object.assign(new Error("Ledgerlink is briefly unavailable."), { code: "unavailable" });
    foreign.name = "AppError";
    expect(failureFields(foreign)).toEqual({
      error: "AppError",
      code: "unavailable",
      detail: "Ledgerlink is briefly unavailable.",
    });
    expect(failureFields("a string")).toEqual({ error: "string" });
  });
});

describe("captureConsole", () => {
  it("turns what others print into one JSON line each, errors by kind, and lets log's lines through", () => {
    const token = "0f5e3c1a-session-token-9d2b";
    const { out, err } = capture(() => {
      captureConsole();
      const failure = Object.assign(new Error(`Failed query: select 1\nparams: ${token}`), {
        digest: "1742720657",
      });
      console.error(" ⨯", failure);
      console.log("✓ Running next.config.ts took 210ms\nsecond line");
      log.info("cron.scheduled_sync", { due: 1 });
    });
    expect(err).toHaveLength(1);
    expect(err[0]).not.toContain(token);
    expect(JSON.parse(err[0] ?? "")).toMatchObject({
      level: "error",
      msg: "console",
      text: "⨯",
      error: "Error",
      digest: "1742720657",
    });
    expect(out.map((line) => JSON.parse(line))).toMatchObject([
      { level: "info", msg: "console", text: "✓ Running next.config.ts took 210ms" },
      { level: "info", msg: "cron.scheduled_sync", due: 1 },
    ]);
  });
});
