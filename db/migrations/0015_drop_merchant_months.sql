-- The merchant months are now the month grain of transaction_merchant_spans (0014), kept by the
-- triggers on transactions: the triggers on transaction_months (0010) and the rebuild no longer
-- keep a table of their own.
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
DELETE FROM transaction_text_months;
INSERT INTO transaction_text_months (user_id, month, category, search_text, currency, pending, is_transfer, inflow_minor, outflow_minor, count, inflow_count, outflow_count)
SELECT user_id, date_trunc('month', date::timestamp)::date, category, search_text,
  currency, pending, is_transfer,
  coalesce(sum(amount_minor) FILTER (WHERE amount_minor > 0), 0),
  coalesce(sum(amount_minor) FILTER (WHERE amount_minor < 0), 0),
  count(*), count(*) FILTER (WHERE amount_minor > 0), count(*) FILTER (WHERE amount_minor < 0)
FROM transactions GROUP BY 1, 2, 3, 4, 5, 6, 7;
$$;--> statement-breakpoint
DROP TABLE "transaction_merchant_months" CASCADE;