import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // PGlite ships a WASM build and opens its data folder from disk: keep it out of the bundle.
  serverExternalPackages: ["@electric-sql/pglite", "pg", "@neondatabase/serverless", "ws"],
  poweredByHeader: false,
  // `npm run bench` builds with BENCH_BUILD=1, which adds its reference route (app/api/bench-echo).
  ...(process.env.BENCH_BUILD === "1" ? { pageExtensions: ["tsx", "ts", "bench.ts"] } : {}),
  // Every page's title in the head with its content, never streamed after it: the titles are
  // static, so waiting costs nothing, and a page re-rendered after an action (a key's accounts
  // changed) showed for a moment with no title at all (axe `document-title`, and nothing for a
  // screen reader to announce). The default streams metadata to every browser.
  htmlLimitedBots: /.*/,
  // Lets tests build into their own folder without touching the developer's .next.
  distDir: process.env.NEXT_DIST_DIR ?? ".next",
  // Every page and answer: never framed by another site (clickjacking: the dashboard's buttons
  // rotate and revoke keys and remove banks; the consent screen grants access, RFC 6749 §10.13),
  // no MIME sniffing, and no full URL (with its query) sent to other sites.
  async headers() {
    return [
      {
        source: "/:path*",
        headers: [
          { key: "X-Frame-Options", value: "DENY" },
          {
            key: "Content-Security-Policy",
            value: "frame-ancestors 'none'; base-uri 'self'; object-src 'none'",
          },
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
        ],
      },
    ];
  },
};

export default nextConfig;
