CREATE TABLE "transaction_category_months" (
	"user_id" text NOT NULL,
	"month" date NOT NULL,
	"category" text NOT NULL,
	"currency" text NOT NULL,
	"pending" boolean NOT NULL,
	"is_transfer" boolean NOT NULL,
	"inflow_minor" bigint NOT NULL,
	"outflow_minor" bigint NOT NULL,
	"count" integer NOT NULL,
	"inflow_count" integer NOT NULL,
	"outflow_count" integer NOT NULL,
	CONSTRAINT "transaction_category_months_user_id_month_category_currency_pending_is_transfer_pk" PRIMARY KEY("user_id","month","category","currency","pending","is_transfer")
);
--> statement-breakpoint
CREATE TABLE "transaction_days" (
	"user_id" text NOT NULL,
	"date" date NOT NULL,
	"category" text NOT NULL,
	"currency" text NOT NULL,
	"pending" boolean NOT NULL,
	"is_transfer" boolean NOT NULL,
	"inflow_minor" bigint NOT NULL,
	"outflow_minor" bigint NOT NULL,
	"count" integer NOT NULL,
	"inflow_count" integer NOT NULL,
	"outflow_count" integer NOT NULL,
	CONSTRAINT "transaction_days_user_id_date_category_currency_pending_is_transfer_pk" PRIMARY KEY("user_id","date","category","currency","pending","is_transfer")
);
--> statement-breakpoint
DROP INDEX "transactions_user_id_category_date_index";--> statement-breakpoint
ALTER TABLE "transaction_category_months" ADD CONSTRAINT "transaction_category_months_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transaction_days" ADD CONSTRAINT "transaction_days_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "transaction_months_user_id_category_month_index" ON "transaction_months" USING btree ("user_id","category","month");--> statement-breakpoint
CREATE INDEX "transactions_user_id_category_date_amount_minor_index" ON "transactions" USING btree ("user_id","category","date","amount_minor");--> statement-breakpoint
-- The triggers on transactions (0005) keep transaction_days as they keep transaction_months, in
-- the same statement: what a statement removed is subtracted from existing rows only (a cascade
-- that removes a user may already have removed them), what it added is added.
CREATE OR REPLACE FUNCTION ledgerlink_roll_transactions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE transaction_months AS m SET
      inflow_minor = m.inflow_minor - d.inflow_minor,
      outflow_minor = m.outflow_minor - d.outflow_minor,
      count = m.count - d.count,
      inflow_count = m.inflow_count - d.inflow_count,
      outflow_count = m.outflow_count - d.outflow_count
    FROM (
      SELECT account_id, date_trunc('month', date::timestamp)::date AS month, category,
        coalesce(merchant_name, name) AS merchant, currency, pending, is_transfer,
        coalesce(sum(amount_minor) FILTER (WHERE amount_minor > 0), 0) AS inflow_minor,
        coalesce(sum(amount_minor) FILTER (WHERE amount_minor < 0), 0) AS outflow_minor,
        count(*) AS count,
        count(*) FILTER (WHERE amount_minor > 0) AS inflow_count,
        count(*) FILTER (WHERE amount_minor < 0) AS outflow_count
      FROM old_rows GROUP BY 1, 2, 3, 4, 5, 6, 7
    ) AS d
    WHERE m.account_id = d.account_id AND m.month = d.month AND m.category = d.category
      AND m.merchant = d.merchant AND m.currency = d.currency AND m.pending = d.pending
      AND m.is_transfer = d.is_transfer;
    UPDATE transaction_days AS t SET
      inflow_minor = t.inflow_minor - d.inflow_minor,
      outflow_minor = t.outflow_minor - d.outflow_minor,
      count = t.count - d.count,
      inflow_count = t.inflow_count - d.inflow_count,
      outflow_count = t.outflow_count - d.outflow_count
    FROM (
      SELECT user_id, date, category, currency, pending, is_transfer,
        coalesce(sum(amount_minor) FILTER (WHERE amount_minor > 0), 0) AS inflow_minor,
        coalesce(sum(amount_minor) FILTER (WHERE amount_minor < 0), 0) AS outflow_minor,
        count(*) AS count,
        count(*) FILTER (WHERE amount_minor > 0) AS inflow_count,
        count(*) FILTER (WHERE amount_minor < 0) AS outflow_count
      FROM old_rows GROUP BY 1, 2, 3, 4, 5, 6
    ) AS d
    WHERE t.user_id = d.user_id AND t.date = d.date AND t.category = d.category
      AND t.currency = d.currency AND t.pending = d.pending AND t.is_transfer = d.is_transfer;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO transaction_months AS m (user_id, account_id, month, category, merchant, currency, pending, is_transfer, inflow_minor, outflow_minor, count, inflow_count, outflow_count)
    SELECT user_id, account_id, date_trunc('month', date::timestamp)::date, category, coalesce(merchant_name, name),
      currency, pending, is_transfer,
      coalesce(sum(amount_minor) FILTER (WHERE amount_minor > 0), 0),
      coalesce(sum(amount_minor) FILTER (WHERE amount_minor < 0), 0),
      count(*), count(*) FILTER (WHERE amount_minor > 0), count(*) FILTER (WHERE amount_minor < 0)
    FROM new_rows GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
    ON CONFLICT (account_id, month, category, merchant, currency, pending, is_transfer) DO UPDATE SET
      inflow_minor = m.inflow_minor + excluded.inflow_minor,
      outflow_minor = m.outflow_minor + excluded.outflow_minor,
      count = m.count + excluded.count,
      inflow_count = m.inflow_count + excluded.inflow_count,
      outflow_count = m.outflow_count + excluded.outflow_count;
    INSERT INTO transaction_days AS t (user_id, date, category, currency, pending, is_transfer, inflow_minor, outflow_minor, count, inflow_count, outflow_count)
    SELECT user_id, date, category, currency, pending, is_transfer,
      coalesce(sum(amount_minor) FILTER (WHERE amount_minor > 0), 0),
      coalesce(sum(amount_minor) FILTER (WHERE amount_minor < 0), 0),
      count(*), count(*) FILTER (WHERE amount_minor > 0), count(*) FILTER (WHERE amount_minor < 0)
    FROM new_rows GROUP BY 1, 2, 3, 4, 5, 6
    ON CONFLICT (user_id, date, category, currency, pending, is_transfer) DO UPDATE SET
      inflow_minor = t.inflow_minor + excluded.inflow_minor,
      outflow_minor = t.outflow_minor + excluded.outflow_minor,
      count = t.count + excluded.count,
      inflow_count = t.inflow_count + excluded.inflow_count,
      outflow_count = t.outflow_count + excluded.outflow_count;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
-- The triggers on transaction_months (0010) keep transaction_category_months as they keep the
-- totals.
CREATE OR REPLACE FUNCTION ledgerlink_roll_month_totals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE transaction_month_totals AS t SET
      inflow_minor = t.inflow_minor - d.inflow_minor,
      outflow_minor = t.outflow_minor - d.outflow_minor,
      count = t.count - d.count,
      inflow_count = t.inflow_count - d.inflow_count,
      outflow_count = t.outflow_count - d.outflow_count
    FROM (
      SELECT user_id, month, currency, pending, is_transfer, sum(inflow_minor) AS inflow_minor,
        sum(outflow_minor) AS outflow_minor, sum(count) AS count, sum(inflow_count) AS inflow_count,
        sum(outflow_count) AS outflow_count
      FROM old_rows GROUP BY 1, 2, 3, 4, 5
    ) AS d
    WHERE t.user_id = d.user_id AND t.month = d.month AND t.currency = d.currency
      AND t.pending = d.pending AND t.is_transfer = d.is_transfer;
    UPDATE transaction_category_months AS t SET
      inflow_minor = t.inflow_minor - d.inflow_minor,
      outflow_minor = t.outflow_minor - d.outflow_minor,
      count = t.count - d.count,
      inflow_count = t.inflow_count - d.inflow_count,
      outflow_count = t.outflow_count - d.outflow_count
    FROM (
      SELECT user_id, month, category, currency, pending, is_transfer, sum(inflow_minor) AS inflow_minor,
        sum(outflow_minor) AS outflow_minor, sum(count) AS count, sum(inflow_count) AS inflow_count,
        sum(outflow_count) AS outflow_count
      FROM old_rows GROUP BY 1, 2, 3, 4, 5, 6
    ) AS d
    WHERE t.user_id = d.user_id AND t.month = d.month AND t.category = d.category
      AND t.currency = d.currency AND t.pending = d.pending AND t.is_transfer = d.is_transfer;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO transaction_month_totals AS t (user_id, month, currency, pending, is_transfer, inflow_minor, outflow_minor, count, inflow_count, outflow_count)
    SELECT user_id, month, currency, pending, is_transfer, sum(inflow_minor), sum(outflow_minor),
      sum(count), sum(inflow_count), sum(outflow_count)
    FROM new_rows GROUP BY 1, 2, 3, 4, 5
    ON CONFLICT (user_id, month, currency, pending, is_transfer) DO UPDATE SET
      inflow_minor = t.inflow_minor + excluded.inflow_minor,
      outflow_minor = t.outflow_minor + excluded.outflow_minor,
      count = t.count + excluded.count,
      inflow_count = t.inflow_count + excluded.inflow_count,
      outflow_count = t.outflow_count + excluded.outflow_count;
    INSERT INTO transaction_category_months AS t (user_id, month, category, currency, pending, is_transfer, inflow_minor, outflow_minor, count, inflow_count, outflow_count)
    SELECT user_id, month, category, currency, pending, is_transfer, sum(inflow_minor), sum(outflow_minor),
      sum(count), sum(inflow_count), sum(outflow_count)
    FROM new_rows GROUP BY 1, 2, 3, 4, 5, 6
    ON CONFLICT (user_id, month, category, currency, pending, is_transfer) DO UPDATE SET
      inflow_minor = t.inflow_minor + excluded.inflow_minor,
      outflow_minor = t.outflow_minor + excluded.outflow_minor,
      count = t.count + excluded.count,
      inflow_count = t.inflow_count + excluded.inflow_count,
      outflow_count = t.outflow_count + excluded.outflow_count;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
-- The rebuild (npm run db:rebuild-rollups) rebuilds every rollup: the months and the days from the
-- rows, the totals and the category months from the months.
CREATE OR REPLACE FUNCTION ledgerlink_rebuild_transaction_months() RETURNS void LANGUAGE sql AS $$
DELETE FROM transaction_months;
INSERT INTO transaction_months (user_id, account_id, month, category, merchant, currency, pending, is_transfer, inflow_minor, outflow_minor, count, inflow_count, outflow_count)
SELECT user_id, account_id, date_trunc('month', date::timestamp)::date, category, coalesce(merchant_name, name),
  currency, pending, is_transfer,
  coalesce(sum(amount_minor) FILTER (WHERE amount_minor > 0), 0),
  coalesce(sum(amount_minor) FILTER (WHERE amount_minor < 0), 0),
  count(*), count(*) FILTER (WHERE amount_minor > 0), count(*) FILTER (WHERE amount_minor < 0)
FROM transactions GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
DELETE FROM transaction_days;
INSERT INTO transaction_days (user_id, date, category, currency, pending, is_transfer, inflow_minor, outflow_minor, count, inflow_count, outflow_count)
SELECT user_id, date, category, currency, pending, is_transfer,
  coalesce(sum(amount_minor) FILTER (WHERE amount_minor > 0), 0),
  coalesce(sum(amount_minor) FILTER (WHERE amount_minor < 0), 0),
  count(*), count(*) FILTER (WHERE amount_minor > 0), count(*) FILTER (WHERE amount_minor < 0)
FROM transactions GROUP BY 1, 2, 3, 4, 5, 6;
DELETE FROM transaction_month_totals;
INSERT INTO transaction_month_totals (user_id, month, currency, pending, is_transfer, inflow_minor, outflow_minor, count, inflow_count, outflow_count)
SELECT user_id, month, currency, pending, is_transfer, sum(inflow_minor), sum(outflow_minor), sum(count),
  sum(inflow_count), sum(outflow_count)
FROM transaction_months GROUP BY 1, 2, 3, 4, 5;
DELETE FROM transaction_category_months;
INSERT INTO transaction_category_months (user_id, month, category, currency, pending, is_transfer, inflow_minor, outflow_minor, count, inflow_count, outflow_count)
SELECT user_id, month, category, currency, pending, is_transfer, sum(inflow_minor), sum(outflow_minor), sum(count),
  sum(inflow_count), sum(outflow_count)
FROM transaction_months GROUP BY 1, 2, 3, 4, 5, 6;
$$;--> statement-breakpoint
SELECT ledgerlink_rebuild_transaction_months();
