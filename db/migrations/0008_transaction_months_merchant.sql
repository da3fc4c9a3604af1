-- The rollup gains the merchant the spending breakdown and the cash flow's income sources group by,
-- coalesce(merchant_name, name). The rows are rebuilt from the transactions at the end.
DELETE FROM "transaction_months";--> statement-breakpoint
ALTER TABLE "transaction_months" DROP CONSTRAINT "transaction_months_account_id_month_category_currency_pending_is_transfer_pk";--> statement-breakpoint
ALTER TABLE "transaction_months" ADD COLUMN "merchant" text NOT NULL;--> statement-breakpoint
ALTER TABLE "transaction_months" ADD CONSTRAINT "transaction_months_account_id_month_category_merchant_currency_pending_is_transfer_pk" PRIMARY KEY("account_id","month","category","merchant","currency","pending","is_transfer");--> statement-breakpoint
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
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION ledgerlink_rebuild_transaction_months() RETURNS void LANGUAGE sql AS $$
DELETE FROM transaction_months;
INSERT INTO transaction_months (user_id, account_id, month, category, merchant, currency, pending, is_transfer, inflow_minor, outflow_minor, count, inflow_count, outflow_count)
SELECT user_id, account_id, date_trunc('month', date::timestamp)::date, category, coalesce(merchant_name, name),
  currency, pending, is_transfer,
  coalesce(sum(amount_minor) FILTER (WHERE amount_minor > 0), 0),
  coalesce(sum(amount_minor) FILTER (WHERE amount_minor < 0), 0),
  count(*), count(*) FILTER (WHERE amount_minor > 0), count(*) FILTER (WHERE amount_minor < 0)
FROM transactions GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
$$;--> statement-breakpoint
SELECT ledgerlink_rebuild_transaction_months();
