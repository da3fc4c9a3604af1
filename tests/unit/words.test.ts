import { describe, expect, it } from "vitest";
import { accountKind, count, syncFailure } from "@/lib/words";

describe("words on the dashboard", () => {
  it("names account kinds as people do", () => {
    expect(accountKind("depository", "checking")).toBe("Checking");
    expect(accountKind("depository", "savings")).toBe("Savings");
    expect(accountKind("depository", null)).toBe("Cash account");
    expect(accountKind("credit", "credit card")).toBe("Credit card");
    expect(accountKind("loan", "student")).toBe("Student loan");
    expect(accountKind("loan", "mortgage")).toBe("Mortgage");
    expect(accountKind("investment", "roth")).toBe("Roth IRA");
    expect(accountKind("investment", "401k")).toBe("401(k)");
    expect(accountKind("other", "something new")).toBe("Account");
  });

  it("turns a sync failure into a sentence with what to do, never a provider code", () => {
    for (const code of [
      "rate_limited",
      "institution_down",
      "product_not_supported",
      "invalid_token",
      "provider_error",
      null,
      "??",
    ]) {
      const sentence = syncFailure(code);
      expect(sentence).toMatch(/^[A-Z].*\.$/);
      expect(sentence).not.toMatch(/[A-Z]{3,}_[A-Z]/);
    }
    expect(syncFailure("invalid_token")).toContain("link the bank again");
  });

  it("writes counts with separators", () => {
    expect(count(1308)).toBe("1,308");
    expect(count(106997)).toBe("106,997");
    expect(count(7)).toBe("7");
  });
});
