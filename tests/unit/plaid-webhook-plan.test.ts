import { describe, expect, it } from "vitest";
import { plaidDeliveryId, planWebhook } from "@/lib/banking/plaid/webhooks";

const item = (code: string, error?: string) =>
  planWebhook({
    webhook_type: "ITEM",
    webhook_code: code,
    item_id: "i",
    ...(error ? { error: { error_code: error } } : {}),
  });

describe("what each Plaid webhook does", () => {
  it("syncs on data webhooks only", () => {
    for (const [type, code] of [
      ["TRANSACTIONS", "SYNC_UPDATES_AVAILABLE"],
      ["TRANSACTIONS", "RECURRING_TRANSACTIONS_UPDATE"],
      ["HOLDINGS", "DEFAULT_UPDATE"],
      ["INVESTMENTS_TRANSACTIONS", "DEFAULT_UPDATE"],
      ["LIABILITIES", "DEFAULT_UPDATE"],
    ] as const) {
      expect(
        planWebhook({ webhook_type: type, webhook_code: code, item_id: "i" }),
        `${type} ${code}`,
      ).toEqual({ sync: true });
    }
    // Legacy transactions webhooks duplicate SYNC_UPDATES_AVAILABLE: no second sync.
    expect(
      planWebhook({ webhook_type: "TRANSACTIONS", webhook_code: "DEFAULT_UPDATE", item_id: "i" }),
    ).toEqual({ sync: false });
    expect(item("WEBHOOK_UPDATE_ACKNOWLEDGED")).toEqual({ sync: false });
  });

  it("maps item states: login errors and expiry → reauth, other errors → error, revoked → disconnected, repaired → healthy + sync", () => {
    for (const code of ["ITEM_LOGIN_REQUIRED", "INVALID_CREDENTIALS", "PENDING_EXPIRATION"]) {
      expect(item("ERROR", code).status?.value, code).toBe("reauth_required");
    }
    expect(item("PENDING_EXPIRATION").status?.value).toBe("reauth_required");
    expect(item("PENDING_DISCONNECT").status?.value).toBe("reauth_required");
    expect(item("ERROR", "INSTITUTION_DOWN").status).toMatchObject({
      value: "error",
      errorCode: "provider_error",
    });
    expect(item("ERROR", "USER_PERMISSION_REVOKED").status?.value).toBe("disconnected");
    expect(item("USER_PERMISSION_REVOKED").status?.value).toBe("disconnected");
    expect(item("USER_ACCOUNT_REVOKED").status?.value).toBe("disconnected");
    expect(item("LOGIN_REPAIRED")).toEqual({
      sync: true,
      status: { value: "healthy", errorCode: null, message: null },
    });
    expect(item("ERROR")).toEqual({ sync: false });
  });

  it("derives the delivery id from the signed body hash and iat", () => {
    const hash = "a".repeat(64);
    expect(plaidDeliveryId(hash, 1)).toBe(plaidDeliveryId(hash, 1));
    expect(plaidDeliveryId(hash, 1)).not.toBe(plaidDeliveryId(hash, 2));
    expect(plaidDeliveryId(hash, 1)).not.toBe(plaidDeliveryId("b".repeat(64), 1));
    expect(plaidDeliveryId(hash, 1)).toMatch(/^[0-9a-f]{64}$/);
  });
});
