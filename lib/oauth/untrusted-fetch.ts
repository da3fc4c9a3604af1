/**
 * A GET of a URL someone else chose (a client metadata document, a client's `jwks_uri`): a
 * request an attacker aims, so it may reach only what any stranger on the internet could.
 *
 * - https only, and no redirect is followed (a 3xx is a refusal);
 * - public addresses only: the host is resolved first and every address is checked (loopback,
 *   private, shared, link-local, unique-local, cloud-metadata, multicast and documentation ranges
 *   are refused). The check runs inside the connection's own `lookup`, so the address Node
 *   connects to is the one that was checked (no second resolution a rebinding DNS server could
 *   answer differently), and the socket's remote address is checked again once connected;
 * - 5 s for the whole exchange, at most 10 KB of body, `application/json` only.
 *
 * Every refusal is an `UntrustedFetchError` whose message names the reason. The resolver is
 * injectable so tests check addresses without sending a packet anywhere but loopback.
 * `testOrigins` (OAUTH_CIMD_TEST_ORIGINS) names loopback origins served over plain http in tests.
 */
import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import net from "node:net";

/** Resolves a host name to its addresses (dns.lookup with `all: true` by default). */
export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

export interface UntrustedFetchOptions {
  resolve?: Resolver;
  /** Bound on the whole exchange (default 5 s). */
  timeoutMs?: number;
  /** Most body bytes taken (default 10 KB). */
  maxBytes?: number;
  /** Loopback origins allowed over http without the address check (tests only). */
  testOrigins?: readonly string[];
}

export interface UntrustedJson {
  body: unknown;
  /** The caching headers, for the caller's cache lifetime. */
  cacheControl: string | null;
  expires: string | null;
  date: string | null;
}

/** A refused fetch; the message is the reason, fit to show to the client's developer. */
export class UntrustedFetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UntrustedFetchError";
  }
}

export const UNTRUSTED_FETCH_TIMEOUT_MS = 5_000;
export const UNTRUSTED_FETCH_MAX_BYTES = 10 * 1024;

const defaultResolver: Resolver = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

/** Ranges no request to an attacker-chosen URL may reach, each with the words for its kind. */
const REFUSED_RANGES: [string, number, "ipv4" | "ipv6", string][] = [
  ["169.254.169.254", 32, "ipv4", "a cloud metadata address"],
  ["100.100.100.200", 32, "ipv4", "a cloud metadata address"],
  ["fd00:ec2::254", 128, "ipv6", "a cloud metadata address"],
  ["0.0.0.0", 8, "ipv4", "a 'this network' address"],
  ["10.0.0.0", 8, "ipv4", "a private address"],
  ["100.64.0.0", 10, "ipv4", "a shared (carrier-grade NAT) address"],
  ["127.0.0.0", 8, "ipv4", "a loopback address"],
  ["169.254.0.0", 16, "ipv4", "a link-local address"],
  ["172.16.0.0", 12, "ipv4", "a private address"],
  ["192.0.0.0", 24, "ipv4", "a protocol-assignment address"],
  ["192.0.2.0", 24, "ipv4", "a documentation address"],
  ["192.168.0.0", 16, "ipv4", "a private address"],
  ["198.18.0.0", 15, "ipv4", "a benchmarking address"],
  ["198.51.100.0", 24, "ipv4", "a documentation address"],
  ["203.0.113.0", 24, "ipv4", "a documentation address"],
  ["224.0.0.0", 4, "ipv4", "a multicast address"],
  ["240.0.0.0", 4, "ipv4", "a reserved address"],
  ["::", 128, "ipv6", "the unspecified address"],
  ["::1", 128, "ipv6", "a loopback address"],
  ["::ffff:0:0", 96, "ipv6", "an IPv4 address in IPv6 form"],
  ["64:ff9b::", 96, "ipv6", "an IPv4 address in IPv6 form"],
  ["64:ff9b:1::", 48, "ipv6", "an IPv4 address in IPv6 form"],
  ["2002::", 16, "ipv6", "an IPv4 address in IPv6 form"],
  ["2001::", 32, "ipv6", "an IPv4 address in IPv6 form"],
  ["2001:db8::", 32, "ipv6", "a documentation address"],
  ["fc00::", 7, "ipv6", "a unique-local address"],
  ["fe80::", 10, "ipv6", "a link-local address"],
  ["ff00::", 8, "ipv6", "a multicast address"],
];

// One list per range, checked only against addresses of its own family: a BlockList also
// matches IPv4 addresses against IPv4-mapped IPv6 rules, which would misname them.
const refusedLists = REFUSED_RANGES.map(([network, prefix, type, kind]) => {
  const list = new net.BlockList();
  list.addSubnet(network, prefix, type);
  return { list, type, kind };
});

const globalUnicastV6 = new net.BlockList();
globalUnicastV6.addSubnet("2000::", 3, "ipv6");

/**
 * Null when `address` is a public unicast address, else what kind of address it is
 * ("a loopback address" …). Anything that is not an IP address is refused too.
 */
export function nonPublicAddressKind(address: string): string | null {
  const family = net.isIP(address);
  if (family === 0) return "not an IP address";
  const type = family === 4 ? "ipv4" : "ipv6";
  for (const range of refusedLists) {
    if (range.type === type && range.list.check(address, type)) return range.kind;
  }
  // IPv6 outside the global unicast block 2000::/3 is not routable on the internet.
  if (type === "ipv6" && !globalUnicastV6.check(address, "ipv6")) return "not a global unicast address";
  return null;
}

function assertPublic(address: string, hostname: string): void {
  const kind = nonPublicAddressKind(address);
  if (!kind) return;
  const subject = hostname === address ? address : `${hostname} resolves to ${address}, which`;
  throw new UntrustedFetchError(`${subject} is ${kind}; only public addresses are fetched.`);
}

/** The `lookup` Node's connection uses: resolve with `resolve`, refuse unless every address is public. */
function checkedLookup(resolve: Resolver): net.LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname)
      .then((addresses) => {
        if (addresses.length === 0) throw new UntrustedFetchError(`${hostname} has no address.`);
        for (const { address } of addresses) assertPublic(address, hostname);
        const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
        const usable = addresses.filter((a) => wanted === 0 || a.family === wanted);
        if (usable.length === 0) throw new UntrustedFetchError(`${hostname} has no IPv${wanted} address.`);
        if (options.all) callback(null, usable);
        else callback(null, usable[0]!.address, usable[0]!.family);
      })
      .catch((error: unknown) => {
        const failure =
          error instanceof UntrustedFetchError
            ? error
            : new UntrustedFetchError(`${hostname} could not be resolved.`);
        (callback as (err: NodeJS.ErrnoException) => void)(failure);
      });
  };
}

function isJsonType(contentType: string | undefined): boolean {
  const type = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  return type === "application/json" || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

/**
 * GETs `rawUrl` under the rules in the file comment and parses the JSON body. Throws
 * `UntrustedFetchError` naming the reason for every refusal.
 */
export async function fetchUntrustedJson(
  rawUrl: string,
  options: UntrustedFetchOptions = {},
): Promise<UntrustedJson> {
  const timeoutMs = options.timeoutMs ?? UNTRUSTED_FETCH_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? UNTRUSTED_FETCH_MAX_BYTES;
  if (!URL.canParse(rawUrl)) throw new UntrustedFetchError("It is not an absolute URL.");
  const url = new URL(rawUrl);
  const isTestOrigin = options.testOrigins?.includes(url.origin) ?? false;
  if (url.protocol !== "https:" && !isTestOrigin) {
    throw new UntrustedFetchError(`It uses ${url.protocol.slice(0, -1)}; only https URLs are fetched.`);
  }
  if (url.username || url.password) throw new UntrustedFetchError("It carries a user name or password.");
  const literal = url.hostname.replace(/^\[|\]$/g, "");
  if (!isTestOrigin && net.isIP(literal)) assertPublic(literal, literal);

  const resolve = options.resolve ?? defaultResolver;
  const client = url.protocol === "https:" ? https : http;
  return new Promise<UntrustedJson>((settle, fail) => {
    let done = false;
    const finish = (error: unknown, value?: UntrustedJson) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      request.destroy();
      if (error) {
        fail(
          error instanceof UntrustedFetchError
            ? error
            : new UntrustedFetchError(`It could not be fetched (${describeNetworkError(error)}).`),
        );
      } else settle(value as UntrustedJson);
    };
    const timer = setTimeout(
      () => finish(new UntrustedFetchError(`It did not answer within ${timeoutMs / 1000} s.`)),
      timeoutMs,
    );
    const request = client.request(url, {
      method: "GET",
      agent: false,
      headers: { accept: "application/json", "user-agent": "Ledgerlink OAuth (client metadata)" },
      ...(isTestOrigin ? {} : { lookup: checkedLookup(resolve) }),
    });
    request.on("socket", (socket) => {
      if (isTestOrigin) return;
      // Belt and braces: whatever path led here, the peer must be a public address.
      socket.once("connect", () => {
        const remote = socket.remoteAddress ?? "";
        try {
          assertPublic(remote, url.hostname);
        } catch (error) {
          finish(error);
        }
      });
    });
    request.on("error", (error) => finish(error));
    request.on("response", (response) => {
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        finish(
          new UntrustedFetchError(
            `It answered with a redirect (HTTP ${status}${response.headers.location ? ` to ${response.headers.location}` : ""}); redirects are not followed.`,
          ),
        );
        return;
      }
      if (status !== 200) {
        finish(new UntrustedFetchError(`It answered HTTP ${status}, not 200.`));
        return;
      }
      const contentType = response.headers["content-type"];
      if (!isJsonType(contentType)) {
        finish(
          new UntrustedFetchError(
            `It is not JSON (Content-Type ${contentType ? JSON.stringify(contentType) : "missing"}).`,
          ),
        );
        return;
      }
      const tooLarge = () => new UntrustedFetchError(`It is larger than ${Math.round(maxBytes / 1024)} KB.`);
      if (Number(response.headers["content-length"] ?? "0") > maxBytes) {
        finish(tooLarge());
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) finish(tooLarge());
        else chunks.push(chunk);
      });
      response.on("error", (error) => finish(error));
      response.on("end", () => {
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        } catch {
          finish(new UntrustedFetchError("Its body is not valid JSON."));
          return;
        }
        const header = (name: string) => {
          const value = response.headers[name];
          return typeof value === "string" ? value : null;
        };
        finish(null, {
          body,
          cacheControl: header("cache-control"),
          expires: header("expires"),
          date: header("date"),
        });
      });
    });
    request.end();
  });
}

function describeNetworkError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ECONNREFUSED") return "connection refused";
  if (code === "ECONNRESET") return "connection reset";
  if (code && /^ERR_TLS|CERT|SSL/.test(code)) return "TLS failed";
  return code ?? "network error";
}
