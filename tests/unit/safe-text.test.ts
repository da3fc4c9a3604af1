import { describe, expect, it } from "vitest";
import { findUnsafeText } from "@/lib/safe-text";

describe("findUnsafeText", () => {
  it("names the first unsafe string or key in document order", () => {
    expect(findUnsafeText({ a: "ok", b: ["x", "y\u0000"], c: "\u0000" })).toBe("b.1");
    expect(findUnsafeText({ ok: 1, "k\u0000": "fine" })).toBe("k\u0000");
    expect(findUnsafeText({ a: { "b\uD800": 1 }, c: "\u0000" })).toBe("a.b\uD800");
    expect(findUnsafeText("\uDC00")).toBe("(value)");
    expect(findUnsafeText({ a: [1, null, true, { b: "safe" }] })).toBeNull();
  });

  it("walks a value nested 100,000 deep (a 200 KB body) without overflowing the stack", () => {
    const depth = 100_000;
    const deepArray = JSON.parse(`${"[".repeat(depth)}"\\u0000"${"]".repeat(depth)}`);
    expect(findUnsafeText(deepArray)).toBe(Array.from({ length: depth }, () => "0").join("."));
    const deepObject = JSON.parse(`${'{"a":'.repeat(depth)}"fine"${"}".repeat(depth)}`);
    expect(findUnsafeText(deepObject)).toBeNull();
  });
});
