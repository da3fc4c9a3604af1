import path from "node:path";
import { defineConfig } from "vitest/config";

// Unit and integration tests run on embedded PGlite always, and a second time on the real
// PostgreSQL server when TEST_DATABASE_URL is set. Browser tests (tests/e2e) run once, against
// the production build.
const alias = { "@": path.resolve(import.meta.dirname) };
// The suites make hundreds of OAuth requests a minute from one address; tests of the per-address
// limit set their own small limits.
const manyOAuthRequests = { OAUTH_REGISTER_PER_MINUTE: "100000", OAUTH_TOKEN_PER_MINUTE: "100000" };
const suites = ["tests/unit/**/*.test.ts", "tests/integration/**/*.test.ts"];

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: "pglite",
          include: suites,
          env: { LEDGERLINK_TEST_DB: "pglite", ...manyOAuthRequests },
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      ...(process.env.TEST_DATABASE_URL
        ? [
            {
              resolve: { alias },
              test: {
                name: "postgres",
                include: suites,
                env: { LEDGERLINK_TEST_DB: "postgres", ...manyOAuthRequests },
                globalSetup: ["tests/helpers/postgres-setup.ts"],
                testTimeout: 60_000,
                hookTimeout: 120_000,
              },
            },
          ]
        : []),
      {
        resolve: { alias },
        test: {
          name: "e2e",
          include: ["tests/e2e/**/*.test.ts"],
          globalSetup: ["tests/e2e/global-setup.ts"],
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 600_000,
        },
      },
    ],
  },
});
