-- Text search of transactions by trigram index, case- and accent-insensitive. `ledgerlink_fold`
-- is immutable (the unaccent dictionary is named, not looked up), so it can build a stored column.
-- The index takes rows as they come (fastupdate off): PGlite has no autovacuum to flush a pending
-- list, and a search right after a sync must not scan one.
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS unaccent;--> statement-breakpoint
CREATE OR REPLACE FUNCTION ledgerlink_fold(text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$ SELECT lower(public.unaccent('public.unaccent'::regdictionary, $1)) $$;--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "search_text" text GENERATED ALWAYS AS (ledgerlink_fold(coalesce(merchant_name, '') || chr(31) || name)) STORED NOT NULL;--> statement-breakpoint
CREATE INDEX "transactions_search_trgm_idx" ON "transactions" USING gin ("search_text" gin_trgm_ops) WITH (fastupdate=false);