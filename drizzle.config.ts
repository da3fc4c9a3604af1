import { defineConfig } from "drizzle-kit";

// Migrations are generated from db/schema.ts and committed; they apply unchanged to PGlite,
// node-postgres and Neon (see db/index.ts).
export default defineConfig({
  dialect: "postgresql",
  schema: "./db/schema.ts",
  out: "./db/migrations",
  casing: "snake_case",
});
