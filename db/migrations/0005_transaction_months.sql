-- The monthly rollup of transactions, kept by statement-level triggers in the writing transaction.
-- A deleted (or the old side of an updated) row is subtracted with UPDATE only: when its account
-- is being deleted, the cascade has removed the rollup rows already and there is nothing to do.
CREATE TABLE "transaction_months" (
	"user_id" text NOT NULL,
	"account_id" text NOT NULL,
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
	CONSTRAINT "transaction_months_account_id_month_category_currency_pending_is_transfer_pk" PRIMARY KEY("account_id","month","category","currency","pending","is_transfer")
);
--> statement-breakpoint
ALTER TABLE "transaction_months" ADD CONSTRAINT "transaction_months_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transaction_months" ADD CONSTRAINT "transaction_months_account_id_bank_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."bank_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "transaction_months_user_id_month_index" ON "transaction_months" USING btree ("user_id","month");--> statement-breakpoint
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
      SELECT account_id, date_trunc('month', date::timestamp)::date AS month, category, currency, pending, is_transfer,
        coalesce(sum(amount_minor) FILTER (WHERE amount_minor > 0), 0) AS inflow_minor,
        coalesce(sum(amount_minor) FILTER (WHERE amount_minor < 0), 0) AS outflow_minor,
        count(*) AS count,
        count(*) FILTER (WHERE amount_minor > 0) AS inflow_count,
        count(*) FILTER (WHERE amount_minor < 0) AS outflow_count
      FROM old_rows GROUP BY 1, 2, 3, 4, 5, 6
    ) AS d
    WHERE m.account_id = d.account_id AND m.month = d.month AND m.category = d.category
      AND m.currency = d.currency AND m.pending = d.pending AND m.is_transfer = d.is_transfer;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO transaction_months AS m (user_id, account_id, month, category, currency, pending, is_transfer, inflow_minor, outflow_minor, count, inflow_count, outflow_count)
    SELECT user_id, account_id, date_trunc('month', date::timestamp)::date, category, currency, pending, is_transfer,
      coalesce(sum(amount_minor) FILTER (WHERE amount_minor > 0), 0),
      coalesce(sum(amount_minor) FILTER (WHERE amount_minor < 0), 0),
      count(*), count(*) FILTER (WHERE amount_minor > 0), count(*) FILTER (WHERE amount_minor < 0)
    FROM new_rows GROUP BY 1, 2, 3, 4, 5, 6, 7
    ON CONFLICT (account_id, month, category, currency, pending, is_transfer) DO UPDATE SET
      inflow_minor = m.inflow_minor + excluded.inflow_minor,
      outflow_minor = m.outflow_minor + excluded.outflow_minor,
      count = m.count + excluded.count,
      inflow_count = m.inflow_count + excluded.inflow_count,
      outflow_count = m.outflow_count + excluded.outflow_count;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER transactions_roll_insert AFTER INSERT ON transactions
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ledgerlink_roll_transactions();--> statement-breakpoint
CREATE TRIGGER transactions_roll_update AFTER UPDATE ON transactions
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ledgerlink_roll_transactions();--> statement-breakpoint
CREATE TRIGGER transactions_roll_delete AFTER DELETE ON transactions
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ledgerlink_roll_transactions();--> statement-breakpoint
CREATE OR REPLACE FUNCTION ledgerlink_rebuild_transaction_months() RETURNS void LANGUAGE sql AS $$
DELETE FROM transaction_months;
INSERT INTO transaction_months (user_id, account_id, month, category, currency, pending, is_transfer, inflow_minor, outflow_minor, count, inflow_count, outflow_count)
SELECT user_id, account_id, date_trunc('month', date::timestamp)::date, category, currency, pending, is_transfer,
  coalesce(sum(amount_minor) FILTER (WHERE amount_minor > 0), 0),
      coalesce(sum(amount_minor) FILTER (WHERE amount_minor < 0), 0),
      count(*), count(*) FILTER (WHERE amount_minor > 0), count(*) FILTER (WHERE amount_minor < 0)
FROM transactions GROUP BY 1, 2, 3, 4, 5, 6, 7;
$$;--> statement-breakpoint
SELECT ledgerlink_rebuild_transaction_months();
