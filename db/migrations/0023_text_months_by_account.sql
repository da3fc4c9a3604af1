-- transaction_text_months by account too: a credential scoped to some accounts, or a person who
-- hides some, sums a text search's whole months from its accounts' rows here, as everyone else
-- does from all of them (it read every matching row of the range instead). The table is emptied,
-- keyed with the account, and filled again from the rows; the trigger on transactions (0012) and
-- the rebuild (0015, its text months now ledgerlink_rebuild_text_months) keep it by account.
ALTER TABLE "transaction_text_months" DROP CONSTRAINT "transaction_text_months_user_id_month_category_search_text_currency_pending_is_transfer_pk";--> statement-breakpoint
DELETE FROM "transaction_text_months";--> statement-breakpoint
ALTER TABLE "transaction_text_months" ADD COLUMN "account_id" text NOT NULL;--> statement-breakpoint
ALTER TABLE "transaction_text_months" ADD CONSTRAINT "transaction_text_months_user_id_month_category_search_text_currency_pending_is_transfer_account_id_pk" PRIMARY KEY("user_id","month","category","search_text","currency","pending","is_transfer","account_id");--> statement-breakpoint
ALTER TABLE "transaction_text_months" ADD CONSTRAINT "transaction_text_months_account_id_bank_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."bank_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
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
    UPDATE transaction_text_months AS x SET
      inflow_minor = x.inflow_minor - d.inflow_minor,
      outflow_minor = x.outflow_minor - d.outflow_minor,
      count = x.count - d.count,
      inflow_count = x.inflow_count - d.inflow_count,
      outflow_count = x.outflow_count - d.outflow_count
    FROM (
      SELECT user_id, date_trunc('month', date::timestamp)::date AS month, category, search_text,
        currency, pending, is_transfer, account_id,
        coalesce(sum(amount_minor) FILTER (WHERE amount_minor > 0), 0) AS inflow_minor,
        coalesce(sum(amount_minor) FILTER (WHERE amount_minor < 0), 0) AS outflow_minor,
        count(*) AS count,
        count(*) FILTER (WHERE amount_minor > 0) AS inflow_count,
        count(*) FILTER (WHERE amount_minor < 0) AS outflow_count
      FROM old_rows GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
    ) AS d
    WHERE x.user_id = d.user_id AND x.month = d.month AND x.category = d.category
      AND x.search_text = d.search_text AND x.currency = d.currency AND x.pending = d.pending
      AND x.is_transfer = d.is_transfer AND x.account_id = d.account_id;
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
    INSERT INTO transaction_text_months AS x (user_id, month, category, search_text, currency, pending, is_transfer, account_id, inflow_minor, outflow_minor, count, inflow_count, outflow_count)
    SELECT user_id, date_trunc('month', date::timestamp)::date, category, search_text,
      currency, pending, is_transfer, account_id,
      coalesce(sum(amount_minor) FILTER (WHERE amount_minor > 0), 0),
      coalesce(sum(amount_minor) FILTER (WHERE amount_minor < 0), 0),
      count(*), count(*) FILTER (WHERE amount_minor > 0), count(*) FILTER (WHERE amount_minor < 0)
    FROM new_rows GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
    ON CONFLICT (user_id, month, category, search_text, currency, pending, is_transfer, account_id) DO UPDATE SET
      inflow_minor = x.inflow_minor + excluded.inflow_minor,
      outflow_minor = x.outflow_minor + excluded.outflow_minor,
      count = x.count + excluded.count,
      inflow_count = x.inflow_count + excluded.inflow_count,
      outflow_count = x.outflow_count + excluded.outflow_count;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint

-- The text months from the rows (by account): the rebuild's part, and this migration's refill.
CREATE OR REPLACE FUNCTION ledgerlink_rebuild_text_months() RETURNS void LANGUAGE sql AS $$
DELETE FROM transaction_text_months;
INSERT INTO transaction_text_months (user_id, month, category, search_text, currency, pending, is_transfer, account_id, inflow_minor, outflow_minor, count, inflow_count, outflow_count)
SELECT user_id, date_trunc('month', date::timestamp)::date, category, search_text,
  currency, pending, is_transfer, account_id,
  coalesce(sum(amount_minor) FILTER (WHERE amount_minor > 0), 0),
  coalesce(sum(amount_minor) FILTER (WHERE amount_minor < 0), 0),
  count(*), count(*) FILTER (WHERE amount_minor > 0), count(*) FILTER (WHERE amount_minor < 0)
FROM transactions GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
$$;--> statement-breakpoint
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
SELECT ledgerlink_rebuild_text_months();
$$;--> statement-breakpoint
SELECT ledgerlink_rebuild_text_months();
