/** Global setup of the `postgres` project: a clean schema on TEST_DATABASE_URL, migrated once. */
import pg from "pg";
import { openDatabase } from "@/db";

export default async function setup() {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error("TEST_DATABASE_URL is not set");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(
    "DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public; DROP SCHEMA IF EXISTS drizzle CASCADE;",
  );
  await client.end();
  const handle = await openDatabase({ url, migrate: true });
  await handle.close();
}
