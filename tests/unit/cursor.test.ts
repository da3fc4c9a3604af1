/** Opaque keyset cursors of the tools (lib/mcp/cursor.ts). */
import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { decodeCursor, encodeCursor, pageOf, searchKeyShape } from "@/lib/mcp/cursor";

describe("cursor", () => {
  it("round-trips a keyset cursor and refuses one of another query, a tampered or a garbled one", () => {
    const key = [4_250, "2025-11-03", "txn-1"] as const;
    const shape = searchKeyShape("amount_desc");
    const cursor = encodeCursor(key, "fp-a");
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, "fp-a", shape)).toEqual(key);
    const payload = (k: unknown) => Buffer.from(JSON.stringify({ k, f: "fp-a" })).toString("base64url");
    for (const [bad, fp] of [
      [cursor, "fp-b"],
      ["%%%", "fp-a"],
      [Buffer.from("[1,2]").toString("base64url"), "fp-a"],
      [payload([-1, "2025-11-03", "txn-1"]), "fp-a"],
      [payload([1.5, "2025-11-03", "txn-1"]), "fp-a"],
      [payload([1, "2025-13-45", "txn-1"]), "fp-a"],
      [payload([1, "2025-11-03'; drop table", "txn-1"]), "fp-a"],
      [payload(["2025-11-03", "txn-1"]), "fp-a"],
    ] as const) {
      try {
        decodeCursor(bad, fp, shape);
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(AppError);
        expect((error as AppError).code).toBe("invalid_input");
        expect((error as AppError).message).toMatch(/"cursor"/);
      }
    }
  });
  it("makes a page with a cursor only when more rows follow", () => {
    expect(pageOf(null, "fp-a", 3)).toEqual({ has_more: false, total_count: 3 });
    const page = pageOf(["2025-11-03", "txn-1"], "fp-a", 9);
    expect(page.has_more).toBe(true);
    expect(decodeCursor(page.next_cursor ?? "", "fp-a", ["date", "string"])).toEqual(["2025-11-03", "txn-1"]);
  });
});
