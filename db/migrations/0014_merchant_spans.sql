CREATE TABLE "transaction_merchant_spans" (
	"user_id" text NOT NULL,
	"span" text NOT NULL,
	"start" date NOT NULL,
	"category" text NOT NULL,
	"merchant" text NOT NULL,
	"currency" text NOT NULL,
	"pending" boolean NOT NULL,
	"is_transfer" boolean NOT NULL,
	"inflow_minor" bigint NOT NULL,
	"outflow_minor" bigint NOT NULL,
	"count" integer NOT NULL,
	"inflow_count" integer NOT NULL,
	"outflow_count" integer NOT NULL,
	CONSTRAINT "transaction_merchant_spans_user_id_span_start_category_merchant_currency_pending_is_transfer_pk" PRIMARY KEY("user_id","span","start","category","merchant","currency","pending","is_transfer")
);
--> statement-breakpoint
ALTER TABLE "transaction_merchant_spans" ADD CONSTRAINT "transaction_merchant_spans_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- The triggers on transactions keep it as 0005 keeps the months: each changed row counts in its day,
-- its month and its quarter, summed per key and added to (new rows) or taken from (old rows) the
-- key's row.
CREATE OR REPLACE FUNCTION ledgerlink_roll_merchant_spans() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE transaction_merchant_spans AS x SET
      inflow_minor = x.inflow_minor - d.inflow_minor,
      outflow_minor = x.outflow_minor - d.outflow_minor,
      count = x.count - d.count,
      inflow_count = x.inflow_count - d.inflow_count,
      outflow_count = x.outflow_count - d.outflow_count
    FROM (
    SELECT r.user_id, s.span, s.start, r.category, coalesce(r.merchant_name, r.name) AS merchant, r.currency,
      r.pending, r.is_transfer,
      coalesce(sum(r.amount_minor) FILTER (WHERE r.amount_minor > 0), 0) AS inflow_minor,
      coalesce(sum(r.amount_minor) FILTER (WHERE r.amount_minor < 0), 0) AS outflow_minor,
      count(*) AS count,
      count(*) FILTER (WHERE r.amount_minor > 0) AS inflow_count,
      count(*) FILTER (WHERE r.amount_minor < 0) AS outflow_count
    FROM old_rows AS r
    CROSS JOIN LATERAL (VALUES ('day', r.date), ('month', date_trunc('month', r.date::timestamp)::date),
      ('quarter', date_trunc('quarter', r.date::timestamp)::date)) AS s(span, start)
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
    ) AS d
    WHERE x.user_id = d.user_id AND x.span = d.span AND x.start = d.start AND x.category = d.category
      AND x.merchant = d.merchant AND x.currency = d.currency AND x.pending = d.pending
      AND x.is_transfer = d.is_transfer;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO transaction_merchant_spans AS x (user_id, span, start, category, merchant, currency, pending, is_transfer, inflow_minor, outflow_minor, count, inflow_count, outflow_count)
    SELECT r.user_id, s.span, s.start, r.category, coalesce(r.merchant_name, r.name) AS merchant, r.currency,
      r.pending, r.is_transfer,
      coalesce(sum(r.amount_minor) FILTER (WHERE r.amount_minor > 0), 0) AS inflow_minor,
      coalesce(sum(r.amount_minor) FILTER (WHERE r.amount_minor < 0), 0) AS outflow_minor,
      count(*) AS count,
      count(*) FILTER (WHERE r.amount_minor > 0) AS inflow_count,
      count(*) FILTER (WHERE r.amount_minor < 0) AS outflow_count
    FROM new_rows AS r
    CROSS JOIN LATERAL (VALUES ('day', r.date), ('month', date_trunc('month', r.date::timestamp)::date),
      ('quarter', date_trunc('quarter', r.date::timestamp)::date)) AS s(span, start)
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
    ON CONFLICT (user_id, span, start, category, merchant, currency, pending, is_transfer) DO UPDATE SET
      inflow_minor = x.inflow_minor + excluded.inflow_minor,
      outflow_minor = x.outflow_minor + excluded.outflow_minor,
      count = x.count + excluded.count,
      inflow_count = x.inflow_count + excluded.inflow_count,
      outflow_count = x.outflow_count + excluded.outflow_count;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER transactions_merchant_spans_insert AFTER INSERT ON transactions
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ledgerlink_roll_merchant_spans();--> statement-breakpoint
CREATE TRIGGER transactions_merchant_spans_update AFTER UPDATE ON transactions
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ledgerlink_roll_merchant_spans();--> statement-breakpoint
CREATE TRIGGER transactions_merchant_spans_delete AFTER DELETE ON transactions
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ledgerlink_roll_merchant_spans();--> statement-breakpoint
-- npm run db:rebuild-rollups (db/rebuild-rollups.ts) rebuilds it from the rows, as this migration
-- does for the rows already there.
CREATE OR REPLACE FUNCTION ledgerlink_rebuild_merchant_spans() RETURNS void LANGUAGE sql AS $$
DELETE FROM transaction_merchant_spans;
INSERT INTO transaction_merchant_spans (user_id, span, start, category, merchant, currency, pending, is_transfer, inflow_minor, outflow_minor, count, inflow_count, outflow_count)
SELECT r.user_id, s.span, s.start, r.category, coalesce(r.merchant_name, r.name) AS merchant, r.currency,
      r.pending, r.is_transfer,
      coalesce(sum(r.amount_minor) FILTER (WHERE r.amount_minor > 0), 0) AS inflow_minor,
      coalesce(sum(r.amount_minor) FILTER (WHERE r.amount_minor < 0), 0) AS outflow_minor,
      count(*) AS count,
      count(*) FILTER (WHERE r.amount_minor > 0) AS inflow_count,
      count(*) FILTER (WHERE r.amount_minor < 0) AS outflow_count
    FROM transactions AS r
    CROSS JOIN LATERAL (VALUES ('day', r.date), ('month', date_trunc('month', r.date::timestamp)::date),
      ('quarter', date_trunc('quarter', r.date::timestamp)::date)) AS s(span, start)
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
$$;--> statement-breakpoint
SELECT ledgerlink_rebuild_merchant_spans();
