import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // PGlite ships a WASM build and opens its data folder from disk: keep it out of the bundle.
  serverExternalPackages: ["@electric-sql/pglite", "pg", "@neondatabase/serverless", "ws"],
  poweredByHeader: false,
  // Lets tests build into their own folder without touching the developer's .next.
  distDir: process.env.NEXT_DIST_DIR ?? ".next",
  // The OAuth consent screen must not be framed by another site (clickjacking, RFC 6749 §10.13).
  async headers() {
    return [
      {
        source: "/oauth/:path*",
        headers: [
          { key: "X-Frame-Options", value: "DENY" },
          { key: "Content-Security-Policy", value: "frame-ancestors 'none'" },
        ],
      },
    ];
  },
};

export default nextConfig;
