import { describe, expect, it } from "vitest";
import { DEFAULT_AFTER_SIGN_IN, safeCallbackPath } from "@/lib/safe-redirect";

describe("safeCallbackPath", () => {
  it("keeps a same-site path with its query", () => {
    const path = "/oauth/authorize?client_id=llci_1&state=a%20b";
    expect(safeCallbackPath(path)).toBe(path);
  });

  it.each([
    undefined,
    "",
    "https://evil.example/",
    "//evil.example/path",
    "/\\evil.example",
    "/\t/evil.example",
    "javascript:alert(1)",
    `/${"a".repeat(3000)}`,
  ])("falls back to the dashboard for %j", (value) => {
    expect(safeCallbackPath(value)).toBe(DEFAULT_AFTER_SIGN_IN);
  });
});
