/**
 * Server actions act only on the signed-in user's rows and go through lib/action.ts: a foreign
 * Origin and a missing session are refused; rotating or revoking another user's key fails and
 * leaves that key working. The real actions run; only Next's request context (headers, session,
 * cache revalidation) is stood in for.
 */

import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { IDLE } from "@/lib/action-state";
import { createApiKey, listApiKeys } from "@/lib/api-keys";
import { resetEnvCache } from "@/lib/env";
import { verifyBearerToken } from "@/lib/mcp/auth";
import { loadCaller } from "@/lib/mcp/caller";
import { getTimezone } from "@/lib/timezone";
import { useTestDatabase, whileDatabaseDown } from "@/tests/helpers/db";
import { createTestUser } from "@/tests/helpers/fixtures";

const request = vi.hoisted(() => ({
  origin: "http://localhost:3999" as string | null,
  user: null as { id: string; email: string | null; name: string | null } | null,
}));

vi.mock("next/headers", () => ({
  headers: async () => new Headers(request.origin ? { origin: request.origin } : {}),
}));
vi.mock("next/cache", () => ({ revalidatePath: () => undefined }));
vi.mock("@/lib/auth", () => ({ getSessionUser: async () => request.user }));

const { createApiKeyAction, revokeApiKeyAction, rotateApiKeyAction } = await import(
  "@/app/dashboard/keys/actions"
);
const { localCheckoutAction } = await import("@/app/dashboard/billing/actions");
const { saveTimezoneAction, adoptBrowserTimezoneAction } = await import("@/app/dashboard/settings/actions");

const getDb = useTestDatabase();
const savedAppUrl = process.env.APP_URL;

beforeAll(() => {
  process.env.APP_URL = "http://localhost:3999";
  resetEnvCache();
});
afterAll(() => {
  if (savedAppUrl === undefined) delete process.env.APP_URL;
  else process.env.APP_URL = savedAppUrl;
  resetEnvCache();
});

const createUser = () => createTestUser(getDb(), "dash");

const form = (fields: Record<string, string>) => {
  const data = new FormData();
  for (const [k, v] of Object.entries(fields)) data.set(k, v);
  return data;
};

beforeEach(() => {
  request.origin = "http://localhost:3999";
  request.user = null;
});

describe("API key actions", () => {
  it("create, rotate (old key stops, new works) and revoke the signed-in user's own key", async () => {
    const alice = await createUser();
    request.user = alice;
    const created = await createApiKeyAction(IDLE, form({ name: "Claude Code" }));
    if (created.status !== "ok") throw new Error(JSON.stringify(created));
    expect(created.data.key).toMatch(/^llk_/);
    expect((await verifyBearerToken(getDb(), created.data.key))?.userId).toBe(alice.id);

    const rotated = await rotateApiKeyAction(IDLE, form({ keyId: created.data.id }));
    if (rotated.status !== "ok") throw new Error(JSON.stringify(rotated));
    expect(rotated.data.name).toBe("Claude Code");
    expect(await verifyBearerToken(getDb(), created.data.key)).toBeNull();
    expect((await verifyBearerToken(getDb(), rotated.data.key))?.userId).toBe(alice.id);

    const revoked = await revokeApiKeyAction(IDLE, form({ keyId: rotated.data.id }));
    expect(revoked.status).toBe("ok");
    expect(await verifyBearerToken(getDb(), rotated.data.key)).toBeNull();
    expect(await listApiKeys(getDb(), alice.id)).toEqual([]);
  });

  it("rotating or revoking another user's key id fails and leaves it working", async () => {
    const alice = await createUser();
    const mallory = await createUser();
    const aliceKey = await createApiKey(getDb(), alice.id, "alice laptop");
    request.user = mallory;

    const rotate = await rotateApiKeyAction(IDLE, form({ keyId: aliceKey.id }));
    expect(rotate).toMatchObject({ status: "error", error: "No such active key." });
    const revoke = await revokeApiKeyAction(IDLE, form({ keyId: aliceKey.id }));
    expect(revoke).toMatchObject({ status: "error", error: "No such active key." });

    expect((await verifyBearerToken(getDb(), aliceKey.key))?.userId).toBe(alice.id);
    expect((await listApiKeys(getDb(), alice.id)).map((k) => k.id)).toEqual([aliceKey.id]);
    expect(await listApiKeys(getDb(), mallory.id)).toEqual([]);
  });

  it("refuses a foreign or missing Origin, and a request without a session", async () => {
    const alice = await createUser();
    const aliceKey = await createApiKey(getDb(), alice.id, "alice");
    request.user = alice;

    request.origin = "https://evil.example";
    expect(await revokeApiKeyAction(IDLE, form({ keyId: aliceKey.id }))).toMatchObject({ status: "error" });
    request.origin = null;
    expect(await revokeApiKeyAction(IDLE, form({ keyId: aliceKey.id }))).toMatchObject({ status: "error" });
    expect((await verifyBearerToken(getDb(), aliceKey.key))?.userId).toBe(alice.id);

    request.origin = "http://localhost:3999";
    request.user = null;
    const anonymous = await createApiKeyAction(IDLE, form({ name: "x" }));
    expect(anonymous).toMatchObject({ status: "error" });
    expect(await listApiKeys(getDb(), alice.id)).toHaveLength(1);
  });

  it("validates input with zod and names the field", async () => {
    request.user = await createUser();
    expect(await createApiKeyAction(IDLE, form({ name: "   " }))).toMatchObject({
      status: "error",
      field: "name",
    });
    expect(await createApiKeyAction(IDLE, form({ name: "x".repeat(65) }))).toMatchObject({
      status: "error",
      field: "name",
    });
  });

  it("names the field in a sentence, never zod's own words; NUL never reaches the database", async () => {
    const user = await createUser();
    request.user = user;
    const missing = await createApiKeyAction(IDLE, new FormData());
    expect(missing).toEqual({ status: "error", error: 'The field "name" is required.', field: "name" });
    const noKey = await revokeApiKeyAction(IDLE, new FormData());
    expect(noKey).toEqual({ status: "error", error: 'The field "keyId" is required.', field: "keyId" });
    // (A lone surrogate cannot reach an action: FormData holds well-formed text only.)
    expect(await createApiKeyAction(IDLE, form({ name: "bad\u0000name" }))).toEqual({
      status: "error",
      error: 'The field "name" holds a NUL character or an unpaired surrogate; use plain text.',
      field: "name",
    });
    expect(await listApiKeys(getDb(), user.id)).toHaveLength(0);
  });
});

describe("an outage", () => {
  it("an action says the service is briefly unavailable; nothing is half-written", async () => {
    const user = await createUser();
    request.user = user;
    await whileDatabaseDown(async () => {
      expect(await createApiKeyAction(IDLE, form({ name: "during outage" }))).toEqual({
        status: "error",
        error: "Ledgerlink is briefly unavailable. Please try again in a moment.",
      });
    });
    expect(await listApiKeys(getDb(), user.id)).toHaveLength(0);
  });
});

describe("billing actions", () => {
  it("the local checkout only changes the signed-in user's subscription (and redirects)", async () => {
    const alice = await createUser();
    const bob = await createUser();
    request.user = alice;
    // redirect() throws Next's redirect signal; the wrapper lets it through.
    await expect(localCheckoutAction(IDLE, form({ outcome: "succeed" }))).rejects.toMatchObject({
      digest: expect.stringContaining("NEXT_REDIRECT"),
    });
    const { getAccess } = await import("@/lib/access");
    expect((await getAccess(getDb(), alice.id)).subscription).toBe("active");
    expect((await getAccess(getDb(), bob.id)).subscription).toBe("none");
    expect(await localCheckoutAction(IDLE, form({ outcome: "free-forever" }))).toMatchObject({
      status: "error",
      field: "outcome",
    });
  });
});

describe("timezone", () => {
  const zoneOf = async (userId: string) => (await getTimezone(getDb(), userId)).zone;

  it("Settings saves a known zone, refuses anything else with a sentence, and the tools then use it", async () => {
    const alice = await createUser();
    request.user = alice;
    const refused = await saveTimezoneAction(IDLE, form({ timezone: "Mars/Olympus" }));
    expect(refused).toMatchObject({
      status: "error",
      error: expect.stringContaining("Pick a timezone from the list"),
    });
    expect(await zoneOf(alice.id)).toBe("UTC");

    const saved = await saveTimezoneAction(IDLE, form({ timezone: "Pacific/Auckland" }));
    expect(saved).toMatchObject({ status: "ok", message: expect.stringContaining("Pacific/Auckland") });
    expect(await zoneOf(alice.id)).toBe("Pacific/Auckland");

    const key = await createApiKey(getDb(), alice.id, "tz");
    const caller = await loadCaller(getDb(), key.key, { resource: "http://localhost:3999/api/mcp", cost: 0 });
    expect(caller?.timezone).toBe("Pacific/Auckland");
  });

  it("the browser's zone is taken at the first visit only, never over one the person chose", async () => {
    const bob = await createUser();
    request.user = bob;
    await adoptBrowserTimezoneAction(IDLE, form({ timezone: "America/Los_Angeles" }));
    expect(await zoneOf(bob.id)).toBe("America/Los_Angeles");
    await adoptBrowserTimezoneAction(IDLE, form({ timezone: "Europe/Paris" }));
    expect(await zoneOf(bob.id)).toBe("America/Los_Angeles");

    const carol = await createUser();
    request.user = carol;
    await saveTimezoneAction(IDLE, form({ timezone: "UTC" }));
    await adoptBrowserTimezoneAction(IDLE, form({ timezone: "Asia/Tokyo" }));
    expect(await zoneOf(carol.id)).toBe("UTC");
  });
});
