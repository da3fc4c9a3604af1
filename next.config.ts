import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // PGlite ships a WASM build and opens its data folder from disk: keep it out of the bundle.
  serverExternalPackages: ["@electric-sql/pglite", "pg", "@neondatabase/serverless", "ws"],
  poweredByHeader: false,
  // Lets tests build into their own folder without touching the developer's .next.
  distDir: process.env.NEXT_DIST_DIR ?? ".next",
};

export default nextConfig;
