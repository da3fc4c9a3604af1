/**
 * Client ID Metadata Documents (lib/oauth/cimd.ts, untrusted-fetch.ts) and private_key_jwt
 * (client-assertion.ts): every refusal, with the reason it names, and the cache.
 *
 * Documents are served by a real loopback web server named in OAUTH_CIMD_TEST_ORIGINS
 * (tests/helpers/client-documents.ts). The public-address check is tested through an injected
 * resolver on https URLs whose port is a loopback listener that counts connections: a refusal
 * must come before any connection is opened, and no test sends a packet anywhere but loopback.
 */
import { and, eq } from "drizzle-orm";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { oauthClientAssertions, oauthClients } from "@/db/schema";
import { parseEnv } from "@/lib/env";
import { validateAuthorizationRequest } from "@/lib/oauth/authorize";
import {
  ClientMetadataRefused,
  cacheLifetimeSeconds,
  DOCUMENT_MAX_CACHE_SECONDS,
  DOCUMENT_MIN_CACHE_SECONDS,
  getMetadataDocumentClient,
} from "@/lib/oauth/cimd";
import { CLIENT_ASSERTION_TYPE } from "@/lib/oauth/client-assertion";
import { oauthEndpoints } from "@/lib/oauth/config";
import { cimdTestOriginsNotice } from "@/lib/oauth/startup";
import { nonPublicAddressKind, type Resolver } from "@/lib/oauth/untrusted-fetch";
import { startConnectionCounter, useDocumentServer } from "../helpers/client-documents";
// Aliased: Biome reads a `use…` call at module level as a React hook.
import { useTestDatabase } from "../helpers/db";
import {
  appUrl,
  authorizationParams,
  createSignedInUser,
  mcpResource,
  obtainCode,
  pkcePair,
  postConsent,
  type TokenSet,
  token,
} from "../helpers/oauth";

const getDb = useTestDatabase();
const documents = useDocumentServer();

const REDIRECT = "https://agent.example/oauth/callback";

function documentFor(clientId: string, overrides: Record<string, unknown> = {}) {
  return {
    client_id: clientId,
    client_name: "Example Agent",
    client_uri: "https://agent.example/",
    redirect_uris: [REDIRECT],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    ...overrides,
  };
}

let published = 0;
/** Publishes a document at a fresh path; `answer` replaces the default 200 JSON answer. */
function publishClient(
  overrides: Record<string, unknown> = {},
  answer: Parameters<ReturnType<typeof documents>["publish"]>[1] = {},
) {
  const path = `/clients/${++published}/client.json`;
  const clientId = documents().url(path);
  documents().publish(path, { body: documentFor(clientId, overrides), ...answer });
  return { clientId, path };
}

async function storedRows(clientId: string) {
  return getDb().select().from(oauthClients).where(eq(oauthClients.clientId, clientId));
}

/** The authorize step refuses the request on its page (never a redirect) with `reason`. */
async function expectAuthorizeRefused(clientId: string, reason: RegExp, redirectUri = REDIRECT) {
  const params = authorizationParams({ clientId, redirectUri }, pkcePair().challenge);
  const validation = await validateAuthorizationRequest(getDb(), params);
  expect(validation.kind).toBe("page_error");
  const message = validation.kind === "page_error" ? validation.message : "";
  expect(message).toMatch(reason);
  // The consent POST re-validates: an error page, no Location.
  const user = await createSignedInUser(getDb());
  const res = await postConsent(user, params);
  expect(res.status).toBe(400);
  expect(res.headers.get("location")).toBeNull();
  return message;
}

/** The token endpoint refuses the client with 401 invalid_client naming `reason`. */
async function expectTokenRefused(form: Record<string, string>, reason: RegExp) {
  const res = await token(form);
  expect(res.status).toBe(401);
  const body = (await res.json()) as { error: string; error_description: string };
  expect(body.error).toBe("invalid_client");
  expect(body.error_description).toMatch(reason);
}

/** `getMetadataDocumentClient` rejects with a ClientMetadataRefused whose reason matches. */
async function expectRefused(promise: Promise<unknown>, reason: RegExp) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ClientMetadataRefused);
  expect((error as ClientMetadataRefused).error).toBe("invalid_client");
  expect((error as ClientMetadataRefused).reason).toMatch(reason);
}

describe("CIMD: client_id URLs refused before anything is fetched", () => {
  it.each([
    ["http://agent.example/oauth/client.json", /uses http; a client_id URL must use https/],
    ["http://127.0.0.1:9/oauth/client.json", /uses http; a client_id URL must use https/],
    ["https://agent.example", /has no path/],
    ["https://agent.example/", /has no path/],
    ["https://agent.example/oauth/client.json#me", /fragment/],
    ["https://user:pw@agent.example/oauth/client.json", /user name or password/],
    ["https://agent.example/oauth/../client.json", /\. or \.\. segment/],
  ])("%s: refused at authorize and at the token endpoint, naming why", async (clientId, reason) => {
    const message = await expectAuthorizeRefused(clientId, reason);
    expect(message).toMatch(/^invalid_client: /);
    await expectTokenRefused(
      { grant_type: "authorization_code", code: "llac_x", code_verifier: "v", client_id: clientId },
      reason,
    );
    expect(await storedRows(clientId)).toHaveLength(0);
  });
});

describe("CIMD: the fetch reaches public addresses only (resolved and checked before connecting)", () => {
  let counter: Awaited<ReturnType<typeof startConnectionCounter>>;
  beforeAll(async () => {
    counter = await startConnectionCounter();
  });
  afterAll(async () => {
    await counter.close();
  });

  it.each([
    ["127.0.0.1", /127\.0\.0\.1 is a loopback address/],
    ["[::1]", /::1 is a loopback address/],
    ["10.0.0.1", /10\.0\.0\.1 is a private address/],
    ["169.254.169.254", /169\.254\.169\.254 is a cloud metadata address/],
  ])("an address in the URL, %s, is refused without resolving or connecting", async (host, reason) => {
    const clientId = `https://${host}:${counter.port}/oauth/client.json`;
    const resolve = vi.fn<Resolver>();
    await expectRefused(getMetadataDocumentClient(getDb(), clientId, { resolve }), reason);
    expect(resolve).not.toHaveBeenCalled();
    expect(counter.connections()).toBe(0);
    expect(await storedRows(clientId)).toHaveLength(0);
  });

  it.each([
    [[{ address: "127.0.0.1", family: 4 }], /resolves to 127\.0\.0\.1, which is a loopback address/],
    [[{ address: "::1", family: 6 }], /resolves to ::1, which is a loopback address/],
    [[{ address: "10.0.0.1", family: 4 }], /resolves to 10\.0\.0\.1, which is a private address/],
    [
      [{ address: "169.254.169.254", family: 4 }],
      /resolves to 169\.254\.169\.254, which is a cloud metadata/,
    ],
    [
      [
        { address: "93.184.215.14", family: 4 },
        { address: "192.168.1.20", family: 4 },
      ],
      /resolves to 192\.168\.1\.20, which is a private address/,
    ],
    [[{ address: "fd00:ec2::254", family: 6 }], /cloud metadata address/],
    [[{ address: "fe80::1", family: 6 }], /link-local address/],
    [[{ address: "fc12::1", family: 6 }], /unique-local address/],
    [[{ address: "::ffff:127.0.0.1", family: 6 }], /IPv4 address in IPv6 form/],
  ])("a host name resolving to %j is refused before any connection", async (addresses, reason) => {
    const clientId = `https://metadata.attacker.example:${counter.port}/oauth/client.json`;
    const resolve = vi.fn<Resolver>(async () => addresses);
    await expectRefused(getMetadataDocumentClient(getDb(), clientId, { resolve }), reason);
    expect(resolve).toHaveBeenCalledWith("metadata.attacker.example");
    // Had the check come after connecting, the loopback answers would have reached the counter.
    expect(counter.connections()).toBe(0);
    expect(await storedRows(clientId)).toHaveLength(0);
  });

  it("a jwks_uri goes through the same check", async () => {
    const { clientId } = publishClient({
      token_endpoint_auth_method: "private_key_jwt",
      jwks_uri: `https://keys.attacker.example:${counter.port}/jwks.json`,
    });
    const resolve = vi.fn<Resolver>(async () => [{ address: "169.254.169.254", family: 4 }]);
    await expectRefused(
      getMetadataDocumentClient(getDb(), clientId, { resolve }),
      /jwks_uri .*keys\.attacker\.example resolves to 169\.254\.169\.254, which is a cloud metadata address/,
    );
    expect(counter.connections()).toBe(0);
    expect(await storedRows(clientId)).toHaveLength(0);
  });

  it("tells public addresses from the others", () => {
    for (const address of ["93.184.215.14", "8.8.8.8", "2606:4700:4700::1111"]) {
      expect(nonPublicAddressKind(address), address).toBeNull();
    }
    for (const [address, kind] of [
      ["0.0.0.0", "'this network'"],
      ["100.64.0.1", "shared"],
      ["100.100.100.200", "cloud metadata"],
      ["172.16.5.4", "private"],
      ["192.168.0.1", "private"],
      ["224.0.0.1", "multicast"],
      ["::", "unspecified"],
      ["64:ff9b::a00:1", "IPv4 address in IPv6 form"],
      ["ff02::1", "multicast"],
      ["not-an-ip", "not an IP address"],
    ]) {
      expect(nonPublicAddressKind(address!), address).toContain(kind);
    }
  });
});

describe("CIMD: the answer (no redirects, at most 10 KB, a time bound, JSON only)", () => {
  it("a redirect is refused and not followed", async () => {
    const target = publishClient();
    const { clientId } = publishClient({}, { status: 302, headers: { location: target.clientId } });
    const message = await expectAuthorizeRefused(
      clientId,
      /redirect \(HTTP 302 to .*\); redirects are not followed/,
    );
    expect(message).toContain(clientId);
    expect(documents().hits(target.path)).toBe(0);
    expect(await storedRows(clientId)).toHaveLength(0);
  });

  it("a document over 10 KB is refused, whether it says its length or streams", async () => {
    const padding = "x".repeat(11 * 1024);
    const declared = publishClient({ padding });
    await expectAuthorizeRefused(declared.clientId, /larger than 10 KB/);
    const streamed = publishClient({ padding }, { headers: { "transfer-encoding": "chunked" } });
    await expectAuthorizeRefused(streamed.clientId, /larger than 10 KB/);
    // Just under the bound is fine.
    const fits = publishClient({ padding: "x".repeat(9 * 1024) });
    expect((await getMetadataDocumentClient(getDb(), fits.clientId)).clientName).toBe("Example Agent");
    expect(await storedRows(declared.clientId)).toHaveLength(0);
    expect(await storedRows(streamed.clientId)).toHaveLength(0);
  });

  it("a slow document is refused at the time bound: slow to answer, or an answer that never ends", async () => {
    const slow = publishClient({}, { delayMs: 3_000 });
    await expectRefused(
      getMetadataDocumentClient(getDb(), slow.clientId, { timeoutMs: 200 }),
      /did not answer within 0\.2 s/,
    );
    const trickle = publishClient({}, { neverEnd: true });
    await expectRefused(
      getMetadataDocumentClient(getDb(), trickle.clientId, { timeoutMs: 200 }),
      /did not answer within 0\.2 s/,
    );
    expect(await storedRows(slow.clientId)).toHaveLength(0);
    expect(await storedRows(trickle.clientId)).toHaveLength(0);
  });

  it("HTML, broken JSON and a 404 are refused, each naming what it got", async () => {
    const html = publishClient({}, { headers: { "content-type": "text/html" } });
    await expectAuthorizeRefused(html.clientId, /not JSON \(Content-Type "text\/html"\)/);
    const broken = publishClient({}, { body: "{ not json" });
    await expectAuthorizeRefused(broken.clientId, /not valid JSON/);
    await expectAuthorizeRefused(documents().url("/clients/missing/client.json"), /HTTP 404, not 200/);
  });
});

describe("CIMD: the document", () => {
  it("a client_id that is not the document's URL is refused, and nothing is stored", async () => {
    const { clientId } = publishClient({ client_id: "https://chatgpt.com/oauth/client.json" });
    await expectAuthorizeRefused(
      clientId,
      /client_id \("https:\/\/chatgpt\.com\/oauth\/client\.json"\) is not the URL it was fetched from/,
    );
    await expectTokenRefused(
      { grant_type: "authorization_code", code: "llac_x", code_verifier: "v", client_id: clientId },
      /is not the URL it was fetched from/,
    );
    expect(await storedRows(clientId)).toHaveLength(0);
  });

  it.each([
    [{ client_name: undefined }, /has no client_name/],
    [{ client_name: "   " }, /has no client_name/],
    [{ redirect_uris: undefined }, /has no redirect_uris/],
    [{ redirect_uris: [] }, /has no redirect_uris/],
    [{ redirect_uris: ["javascript:alert(1)"] }, /redirect_uris\[0\]: The scheme javascript: is not allowed/],
    [{ token_endpoint_auth_method: "client_secret_basic" }, /client_secret_basic.* is not offered/],
    [{ client_secret: "s3cret" }, /carries a client_secret/],
    [{ token_endpoint_auth_method: "private_key_jwt" }, /publishes no keys/],
    [
      { token_endpoint_auth_method: "private_key_jwt", jwks: { keys: [{ kty: "oct", k: "c2VjcmV0" }] } },
      /private or symmetric key material/,
    ],
    [{ grant_types: ["refresh_token"] }, /do not include authorization_code/],
    [{ response_types: ["token"] }, /response_types do not include code/],
    [{ logo_uri: "http://agent.example/logo.png" }, /logo_uri must be an https URL/],
  ])("%j is refused, naming why", async (overrides, reason) => {
    const { clientId } = publishClient(overrides);
    await expectAuthorizeRefused(clientId, reason);
    expect(await storedRows(clientId)).toHaveLength(0);
  });

  it("a redirect_uri the document does not list is refused on the page", async () => {
    const { clientId } = publishClient();
    for (const redirectUri of [
      "https://attacker.example/cb",
      `${REDIRECT}/more`,
      "https://agent.example/oauth",
    ]) {
      await expectAuthorizeRefused(
        clientId,
        /not listed in this app's client metadata document/,
        redirectUri,
      );
    }
  });

  it("loopback redirects match on any port, a listed portless one included (RFC 8252 §7.3); nothing else may differ", async () => {
    const { clientId } = publishClient({
      redirect_uris: ["http://localhost/callback", "http://127.0.0.1/callback"],
    });
    const db = getDb();
    for (const redirectUri of [
      "http://127.0.0.1:53124/callback",
      "http://localhost:8080/callback",
      "http://localhost/callback",
    ]) {
      const params = authorizationParams({ clientId, redirectUri }, pkcePair().challenge);
      expect((await validateAuthorizationRequest(db, params)).kind, redirectUri).toBe("ok");
    }
    for (const redirectUri of [
      "http://127.0.0.1:53124/other",
      "http://[::1]:53124/callback",
      "https://127.0.0.1:53124/callback",
    ]) {
      await expectAuthorizeRefused(clientId, /not listed/, redirectUri);
    }
  });

  it("scopes we do not have in the document are dropped; unknown grant types are not used", async () => {
    const { clientId } = publishClient({
      scope: "finance:read offline_access openid",
      grant_types: ["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code"],
    });
    const client = await getMetadataDocumentClient(getDb(), clientId);
    expect(client.scope).toBe("finance:read");
    expect(client.grantTypes).toEqual(["authorization_code", "refresh_token"]);
  });
});

describe("CIMD: the cache", () => {
  it("keeps a document per its Cache-Control, clamped to 5 minutes .. 24 hours", async () => {
    const db = getDb();
    for (const [headers, seconds] of [
      [{ "cache-control": "public, max-age=60" }, DOCUMENT_MIN_CACHE_SECONDS],
      [{ "cache-control": "max-age=3600" }, 3600],
      [{ "cache-control": "max-age=999999" }, DOCUMENT_MAX_CACHE_SECONDS],
      [{ "cache-control": "no-store" }, DOCUMENT_MIN_CACHE_SECONDS],
      [{}, DOCUMENT_MIN_CACHE_SECONDS],
    ] as const) {
      const { clientId } = publishClient({}, { headers });
      const now = new Date();
      const client = await getMetadataDocumentClient(db, clientId, { now });
      expect((client.documentExpiresAt!.getTime() - now.getTime()) / 1000, JSON.stringify(headers)).toBe(
        seconds,
      );
    }
    expect(
      cacheLifetimeSeconds({
        cacheControl: null,
        expires: "Tue, 01 Dec 2026 12:00:00 GMT",
        date: "Tue, 01 Dec 2026 10:00:00 GMT",
      }),
    ).toBe(7200);
  });

  it("is not fetched again while fresh; fetched again once stale, at authorize and at the token endpoint", async () => {
    const db = getDb();
    const { clientId, path } = publishClient({}, { headers: { "cache-control": "max-age=3600" } });
    const params = () => authorizationParams({ clientId, redirectUri: REDIRECT }, pkcePair().challenge);
    expect((await validateAuthorizationRequest(db, params())).kind).toBe("ok");
    expect((await validateAuthorizationRequest(db, params())).kind).toBe("ok");
    expect(documents().hits(path)).toBe(1);

    // The client changes its document; once our copy is stale the change is seen.
    documents().publish(path, { body: documentFor(clientId, { redirect_uris: [`${REDIRECT}/v2`] }) });
    const stale = () =>
      db
        .update(oauthClients)
        .set({ documentExpiresAt: new Date(Date.now() - 1000) })
        .where(eq(oauthClients.clientId, clientId));
    await stale();
    const moved = authorizationParams({ clientId, redirectUri: `${REDIRECT}/v2` }, pkcePair().challenge);
    expect((await validateAuthorizationRequest(db, moved)).kind).toBe("ok");
    expect(documents().hits(path)).toBe(2);

    // The token endpoint fetches too when its copy is stale.
    const user = await createSignedInUser(db);
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(user, { clientId, redirectUri: `${REDIRECT}/v2` }, challenge);
    await stale();
    const res = await token({
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      redirect_uri: `${REDIRECT}/v2`,
      client_id: clientId,
      resource: mcpResource(),
    });
    expect(res.status).toBe(200);
    expect(documents().hits(path)).toBe(3);
  });

  it("a stale document whose fetch is refused is not replaced: the client is refused until it is fixed", async () => {
    const db = getDb();
    const { clientId, path } = publishClient();
    await getMetadataDocumentClient(db, clientId);
    const [before] = await storedRows(clientId);
    documents().publish(path, { body: documentFor(clientId, { client_name: "" }) });
    await db
      .update(oauthClients)
      .set({ documentExpiresAt: new Date(Date.now() - 1000) })
      .where(eq(oauthClients.clientId, clientId));
    await expectTokenRefused(
      { grant_type: "authorization_code", code: "llac_x", code_verifier: "v", client_id: clientId },
      /has no client_name/,
    );
    const [after] = await storedRows(clientId);
    expect(after?.clientName).toBe(before?.clientName);
    expect(after?.documentExpiresAt?.getTime()).toBeLessThan(Date.now());
  });
});

describe("CIMD: private_key_jwt (RFC 7523)", () => {
  let key: CryptoKey;
  let otherKey: CryptoKey;
  let publicJwk: JWK;
  const KID = "cimd-test-1";

  beforeAll(async () => {
    const pair = await generateKeyPair("RS256");
    key = pair.privateKey;
    publicJwk = { ...(await exportJWK(pair.publicKey)), kid: KID, alg: "RS256", use: "sig" };
    otherKey = (await generateKeyPair("RS256")).privateKey;
  });

  let jtiCounter = 0;
  function assertion(
    clientId: string,
    {
      signWith = key,
      kid = KID,
      aud = oauthEndpoints(appUrl()).token as string | string[],
      expiresIn = "60s",
      iss = clientId,
      // null: no jti at all.
      jti = `jti-${Date.now()}-${++jtiCounter}` as string | null,
    } = {},
  ) {
    const jwt = new SignJWT(jti === null ? {} : { jti })
      .setProtectedHeader({ alg: "RS256", kid })
      .setIssuer(iss)
      .setSubject(clientId)
      .setAudience(aud)
      .setIssuedAt()
      .setExpirationTime(expiresIn);
    return jwt.sign(signWith);
  }

  /** A private_key_jwt client whose keys are at a jwks_uri, and a code issued to it. */
  async function setup(documentOverrides: Record<string, unknown> = {}) {
    const n = ++published;
    const jwksPath = `/pkj/${n}/jwks.json`;
    documents().publish(jwksPath, { body: { keys: [publicJwk] } });
    const { clientId } = publishClient({
      token_endpoint_auth_method: "private_key_jwt",
      token_endpoint_auth_signing_alg: "RS256",
      jwks_uri: documents().url(jwksPath),
      ...documentOverrides,
    });
    const user = await createSignedInUser(getDb());
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(user, { clientId, redirectUri: REDIRECT }, challenge);
    const form = async (assertionJwt?: string): Promise<Record<string, string>> => ({
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      client_id: clientId,
      resource: mcpResource(),
      client_assertion_type: CLIENT_ASSERTION_TYPE,
      client_assertion: assertionJwt ?? (await assertion(clientId)),
    });
    return { clientId, jwksPath, form };
  }

  it("a good assertion gets tokens; its jti is kept in the database until it expires", async () => {
    const { clientId, form } = await setup();
    const jwt = await assertion(clientId, { jti: "kept-jti" });
    const res = await token(await form(jwt));
    expect(res.status).toBe(200);
    const tokens = (await res.json()) as TokenSet;
    expect(tokens.scope).toBe("finance:read");
    expect(tokens.refresh_token).toMatch(/^llrt_/);
    const [row] = await getDb()
      .select()
      .from(oauthClientAssertions)
      .where(and(eq(oauthClientAssertions.clientId, clientId), eq(oauthClientAssertions.jti, "kept-jti")));
    expect(row?.expiresAt.getTime()).toBeGreaterThan(Date.now());
  });

  it("a reused jti is refused, even for another request", async () => {
    const { clientId, form } = await setup();
    const jwt = await assertion(clientId);
    const first = await token(await form(jwt));
    expect(first.status).toBe(200);
    const { refresh_token } = (await first.json()) as TokenSet;
    await expectTokenRefused(
      {
        grant_type: "refresh_token",
        refresh_token: refresh_token!,
        client_id: clientId,
        client_assertion_type: CLIENT_ASSERTION_TYPE,
        client_assertion: jwt,
      },
      /jti was already used/,
    );
    const fresh = await token({
      grant_type: "refresh_token",
      refresh_token: refresh_token!,
      client_id: clientId,
      client_assertion_type: CLIENT_ASSERTION_TYPE,
      client_assertion: await assertion(clientId),
    });
    expect(fresh.status).toBe(200);
  });

  it("a bad signature, a wrong aud, a far exp and the other claim errors are refused, each naming why; the code survives them", async () => {
    const { clientId, form } = await setup();
    const cases: [Promise<string>, RegExp][] = [
      [
        assertion(clientId, { signWith: otherKey }),
        /signature does not verify with the client's published keys/,
      ],
      [assertion(clientId, { aud: "https://other.example/token" }), /aud must be .*\/api\/oauth\/token or /],
      [
        assertion(clientId, { aud: [oauthEndpoints(appUrl()).token, "https://other.example"] }),
        /aud must be/,
      ],
      [assertion(clientId, { expiresIn: "10m" }), /exp is more than 5 minutes ahead/],
      [assertion(clientId, { expiresIn: "-2m" }), /has expired/],
      [assertion(clientId, { iss: "https://chatgpt.com/oauth/client.json" }), /iss must be the client_id/],
      [assertion(clientId, { jti: null }), /jti claim is invalid/],
      [
        new SignJWT({ jti: "hs" })
          .setProtectedHeader({ alg: "HS256" })
          .setIssuer(clientId)
          .setSubject(clientId)
          .setAudience(oauthEndpoints(appUrl()).token)
          .setExpirationTime("60s")
          .sign(new TextEncoder().encode("a-shared-secret-of-enough-length!")),
        /algorithm is not accepted/,
      ],
      [Promise.resolve("not.a.jwt"), /not a JWT/],
    ];
    for (const [jwt, reason] of cases) {
      const res = await token(await form(await jwt));
      expect(res.status, String(reason)).toBe(401);
      expect(((await res.json()) as { error_description: string }).error_description).toMatch(reason);
    }
    await expectTokenRefused(
      { ...(await form()), client_assertion_type: "jwt" },
      /client_assertion_type must be/,
    );
    const { client_assertion: _a, client_assertion_type: _t, ...withoutAssertion } = await form();
    await expectTokenRefused(withoutAssertion, /authenticates with private_key_jwt: send client_assertion/);
    // None of those consumed the code.
    expect((await token(await form())).status).toBe(200);
  });

  it("the assertion's issuer as aud is accepted too, and the client_id may be left to the assertion", async () => {
    const { clientId, form } = await setup();
    const { client_id: _id, ...rest } = await form(await assertion(clientId, { aud: appUrl() }));
    expect((await token(rest)).status).toBe(200);
  });

  it("a key the client rotated in is fetched once more from its jwks_uri", async () => {
    const { clientId, jwksPath, form } = await setup();
    const rotated = await generateKeyPair("ES256");
    const rotatedJwk = { ...(await exportJWK(rotated.publicKey)), kid: "rotated", alg: "ES256" };
    documents().publish(jwksPath, { body: { keys: [publicJwk, rotatedJwk] } });
    const before = documents().hits(jwksPath);
    const jwt = await new SignJWT({ jti: `rot-${Date.now()}` })
      .setProtectedHeader({ alg: "ES256", kid: "rotated" })
      .setIssuer(clientId)
      .setSubject(clientId)
      .setAudience(oauthEndpoints(appUrl()).token)
      .setExpirationTime("60s")
      .sign(rotated.privateKey);
    expect((await token(await form(jwt))).status).toBe(200);
    expect(documents().hits(jwksPath)).toBe(before + 1);
  });

  it("keys inline in the document work the same way", async () => {
    const { clientId, form } = await setup({ jwks_uri: undefined, jwks: { keys: [publicJwk] } });
    expect((await token(await form(await assertion(clientId)))).status).toBe(200);
  });

  it("a public client (none) may not send an assertion, and a registered client cannot use private_key_jwt", async () => {
    const { clientId } = publishClient();
    await getMetadataDocumentClient(getDb(), clientId);
    await expectTokenRefused(
      {
        grant_type: "authorization_code",
        code: "llac_x",
        client_id: clientId,
        client_assertion_type: CLIENT_ASSERTION_TYPE,
        client_assertion: await assertion(clientId),
      },
      /declares token_endpoint_auth_method none/,
    );
    await expectTokenRefused(
      {
        grant_type: "authorization_code",
        code: "llac_x",
        client_id: "llci_registered",
        client_assertion_type: CLIENT_ASSERTION_TYPE,
        client_assertion: await assertion("llci_registered"),
      },
      /offered to clients known by a client metadata document/,
    );
  });
});

describe("OAUTH_CIMD_TEST_ORIGINS", () => {
  it("is off unless set, takes loopback origins only, and is announced at start-up", () => {
    expect(parseEnv({}).OAUTH_CIMD_TEST_ORIGINS).toEqual([]);
    expect(
      parseEnv({ OAUTH_CIMD_TEST_ORIGINS: "http://127.0.0.1:4555, http://localhost:4556" })
        .OAUTH_CIMD_TEST_ORIGINS,
    ).toEqual(["http://127.0.0.1:4555", "http://localhost:4556"]);
    for (const bad of [
      "https://chatgpt.com",
      "http://10.0.0.1:80",
      "http://127.0.0.1:4555/docs",
      "nonsense",
    ]) {
      expect(() => parseEnv({ OAUTH_CIMD_TEST_ORIGINS: bad }), bad).toThrow(/OAUTH_CIMD_TEST_ORIGINS/);
    }
    expect(cimdTestOriginsNotice([])).toBeNull();
    expect(cimdTestOriginsNotice(["http://127.0.0.1:4555"])).toMatch(
      /OAUTH_CIMD_TEST_ORIGINS is on: .*http:\/\/127\.0\.0\.1:4555.* plain http without the public-address check/,
    );
  });

  it("a test origin other than the one named is still refused for http", async () => {
    const other = documents().origin.replace(/:(\d+)$/, (_m, port) => `:${Number(port) + 1}`);
    await expectAuthorizeRefused(`${other}/clients/x/client.json`, /must use https/);
  });
});
