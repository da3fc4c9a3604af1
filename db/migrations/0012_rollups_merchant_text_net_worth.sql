CREATE TABLE "net_worth_days" (
	"user_id" text NOT NULL,
	"date" date NOT NULL,
	"currency" text NOT NULL,
	"assets_minor" bigint NOT NULL,
	"liabilities_minor" bigint NOT NULL,
	CONSTRAINT "net_worth_days_user_id_date_currency_pk" PRIMARY KEY("user_id","date","currency")
);
--> statement-breakpoint
CREATE TABLE "transaction_merchant_months" (
	"user_id" text NOT NULL,
	"month" date NOT NULL,
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
	CONSTRAINT "transaction_merchant_months_user_id_month_category_merchant_currency_pending_is_transfer_pk" PRIMARY KEY("user_id","month","category","merchant","currency","pending","is_transfer")
);
--> statement-breakpoint
CREATE TABLE "transaction_text_months" (
	"user_id" text NOT NULL,
	"month" date NOT NULL,
	"category" text NOT NULL,
	"search_text" text NOT NULL,
	"currency" text NOT NULL,
	"pending" boolean NOT NULL,
	"is_transfer" boolean NOT NULL,
	"inflow_minor" bigint NOT NULL,
	"outflow_minor" bigint NOT NULL,
	"count" integer NOT NULL,
	"inflow_count" integer NOT NULL,
	"outflow_count" integer NOT NULL,
	CONSTRAINT "transaction_text_months_user_id_month_category_search_text_currency_pending_is_transfer_pk" PRIMARY KEY("user_id","month","category","search_text","currency","pending","is_transfer")
);
--> statement-breakpoint
ALTER TABLE "net_worth_days" ADD CONSTRAINT "net_worth_days_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transaction_merchant_months" ADD CONSTRAINT "transaction_merchant_months_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transaction_text_months" ADD CONSTRAINT "transaction_text_months_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- The triggers on transactions (0005) keep transaction_text_months as they keep transaction_months.
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
        currency, pending, is_transfer,
        coalesce(sum(amount_minor) FILTER (WHERE amount_minor > 0), 0) AS inflow_minor,
        coalesce(sum(amount_minor) FILTER (WHERE amount_minor < 0), 0) AS outflow_minor,
        count(*) AS count,
        count(*) FILTER (WHERE amount_minor > 0) AS inflow_count,
        count(*) FILTER (WHERE amount_minor < 0) AS outflow_count
      FROM old_rows GROUP BY 1, 2, 3, 4, 5, 6, 7
    ) AS d
    WHERE x.user_id = d.user_id AND x.month = d.month AND x.category = d.category
      AND x.search_text = d.search_text AND x.currency = d.currency AND x.pending = d.pending
      AND x.is_transfer = d.is_transfer;
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
    INSERT INTO transaction_text_months AS x (user_id, month, category, search_text, currency, pending, is_transfer, inflow_minor, outflow_minor, count, inflow_count, outflow_count)
    SELECT user_id, date_trunc('month', date::timestamp)::date, category, search_text,
      currency, pending, is_transfer,
      coalesce(sum(amount_minor) FILTER (WHERE amount_minor > 0), 0),
      coalesce(sum(amount_minor) FILTER (WHERE amount_minor < 0), 0),
      count(*), count(*) FILTER (WHERE amount_minor > 0), count(*) FILTER (WHERE amount_minor < 0)
    FROM new_rows GROUP BY 1, 2, 3, 4, 5, 6, 7
    ON CONFLICT (user_id, month, category, search_text, currency, pending, is_transfer) DO UPDATE SET
      inflow_minor = x.inflow_minor + excluded.inflow_minor,
      outflow_minor = x.outflow_minor + excluded.outflow_minor,
      count = x.count + excluded.count,
      inflow_count = x.inflow_count + excluded.inflow_count,
      outflow_count = x.outflow_count + excluded.outflow_count;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint--> statement-breakpoint
-- The triggers on transaction_months (0010) keep transaction_merchant_months as they keep the totals.
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
    UPDATE transaction_merchant_months AS x SET
      inflow_minor = x.inflow_minor - d.inflow_minor,
      outflow_minor = x.outflow_minor - d.outflow_minor,
      count = x.count - d.count,
      inflow_count = x.inflow_count - d.inflow_count,
      outflow_count = x.outflow_count - d.outflow_count
    FROM (
      SELECT user_id, month, category, merchant, currency, pending, is_transfer, sum(inflow_minor) AS inflow_minor,
        sum(outflow_minor) AS outflow_minor, sum(count) AS count, sum(inflow_count) AS inflow_count,
        sum(outflow_count) AS outflow_count
      FROM old_rows GROUP BY 1, 2, 3, 4, 5, 6, 7
    ) AS d
    WHERE x.user_id = d.user_id AND x.month = d.month AND x.category = d.category
      AND x.merchant = d.merchant AND x.currency = d.currency AND x.pending = d.pending
      AND x.is_transfer = d.is_transfer;
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
    INSERT INTO transaction_merchant_months AS x (user_id, month, category, merchant, currency, pending, is_transfer, inflow_minor, outflow_minor, count, inflow_count, outflow_count)
    SELECT user_id, month, category, merchant, currency, pending, is_transfer, sum(inflow_minor), sum(outflow_minor),
      sum(count), sum(inflow_count), sum(outflow_count)
    FROM new_rows GROUP BY 1, 2, 3, 4, 5, 6, 7
    ON CONFLICT (user_id, month, category, merchant, currency, pending, is_transfer) DO UPDATE SET
      inflow_minor = x.inflow_minor + excluded.inflow_minor,
      outflow_minor = x.outflow_minor + excluded.outflow_minor,
      count = x.count + excluded.count,
      inflow_count = x.inflow_count + excluded.inflow_count,
      outflow_count = x.outflow_count + excluded.outflow_count;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint--> statement-breakpoint
-- The rebuild (npm run db:rebuild-rollups) rebuilds every rollup: the months, the days and the text
-- months from the rows, the totals, category and merchant months from the months.
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
DELETE FROM transaction_merchant_months;
INSERT INTO transaction_merchant_months (user_id, month, category, merchant, currency, pending, is_transfer, inflow_minor, outflow_minor, count, inflow_count, outflow_count)
SELECT user_id, month, category, merchant, currency, pending, is_transfer, sum(inflow_minor), sum(outflow_minor), sum(count),
  sum(inflow_count), sum(outflow_count)
FROM transaction_months GROUP BY 1, 2, 3, 4, 5, 6, 7;
DELETE FROM transaction_text_months;
INSERT INTO transaction_text_months (user_id, month, category, search_text, currency, pending, is_transfer, inflow_minor, outflow_minor, count, inflow_count, outflow_count)
SELECT user_id, date_trunc('month', date::timestamp)::date, category, search_text,
  currency, pending, is_transfer,
  coalesce(sum(amount_minor) FILTER (WHERE amount_minor > 0), 0),
  coalesce(sum(amount_minor) FILTER (WHERE amount_minor < 0), 0),
  count(*), count(*) FILTER (WHERE amount_minor > 0), count(*) FILTER (WHERE amount_minor < 0)
FROM transactions GROUP BY 1, 2, 3, 4, 5, 6, 7;
$$;--> statement-breakpoint--> statement-breakpoint
SELECT ledgerlink_rebuild_transaction_months();--> statement-breakpoint
-- Net worth by day (net_worth_days): the changes of the user's balances from `p_from` on,
-- recomputed from the snapshots (each one's balance less its account's previous one, the latest
-- before `p_from` only as the base of the first change), summed per day and currency. A user
-- already removed (a cascade) gets nothing back. One writer per user at a time (two banks of one
-- user syncing together): the lock is held to the end of the transaction, and the statements
-- after it see what the other one committed.
CREATE OR REPLACE FUNCTION ledgerlink_roll_net_worth(p_user text, p_from date) RETURNS void LANGUAGE sql AS $$
SELECT pg_advisory_xact_lock(hashtextextended('ledgerlink_net_worth_days:' || p_user, 0));
DELETE FROM net_worth_days WHERE user_id = p_user AND date >= p_from;
INSERT INTO net_worth_days (user_id, date, currency, assets_minor, liabilities_minor)
SELECT p_user, s.date, a.currency,
  coalesce(sum(s.change) FILTER (WHERE a.type NOT IN ('credit', 'loan')), 0),
  coalesce(sum(s.change) FILTER (WHERE a.type IN ('credit', 'loan')), 0)
FROM bank_accounts a
CROSS JOIN LATERAL (
  SELECT b.date, b.current_balance_minor - coalesce(lag(b.current_balance_minor) OVER (ORDER BY b.date), 0) AS change
  FROM balance_snapshots b
  WHERE b.account_id = a.id AND b.date >= coalesce(
    (SELECT max(p.date) FROM balance_snapshots p WHERE p.account_id = a.id AND p.date < p_from), p_from)
) s
WHERE a.user_id = p_user AND s.date >= p_from AND EXISTS (SELECT 1 FROM users u WHERE u.id = p_user)
GROUP BY s.date, a.currency;
$$;--> statement-breakpoint
-- Every write to balance_snapshots recomputes its users' days from the earliest date it touched,
-- in the same statement (a day's sync: today only).
CREATE OR REPLACE FUNCTION ledgerlink_roll_balances() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  IF TG_OP = 'INSERT' THEN
    FOR r IN SELECT user_id, min(date) AS first FROM new_rows GROUP BY user_id LOOP
      PERFORM ledgerlink_roll_net_worth(r.user_id, r.first);
    END LOOP;
  ELSIF TG_OP = 'UPDATE' THEN
    FOR r IN SELECT user_id, min(date) AS first FROM (
      SELECT user_id, date FROM old_rows UNION ALL SELECT user_id, date FROM new_rows
    ) AS touched GROUP BY user_id LOOP
      PERFORM ledgerlink_roll_net_worth(r.user_id, r.first);
    END LOOP;
  ELSE
    FOR r IN SELECT user_id, min(date) AS first FROM old_rows GROUP BY user_id LOOP
      PERFORM ledgerlink_roll_net_worth(r.user_id, r.first);
    END LOOP;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER balance_snapshots_roll_insert AFTER INSERT ON balance_snapshots
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ledgerlink_roll_balances();--> statement-breakpoint
CREATE TRIGGER balance_snapshots_roll_update AFTER UPDATE ON balance_snapshots
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ledgerlink_roll_balances();--> statement-breakpoint
CREATE TRIGGER balance_snapshots_roll_delete AFTER DELETE ON balance_snapshots
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ledgerlink_roll_balances();--> statement-breakpoint
-- An account that changes type (asset or liability), currency or user moves its snapshots' changes.
CREATE OR REPLACE FUNCTION ledgerlink_roll_account_balances() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_first date;
BEGIN
  SELECT min(date) INTO v_first FROM balance_snapshots WHERE account_id = NEW.id;
  IF v_first IS NOT NULL THEN
    PERFORM ledgerlink_roll_net_worth(NEW.user_id, v_first);
    IF OLD.user_id <> NEW.user_id THEN
      PERFORM ledgerlink_roll_net_worth(OLD.user_id, v_first);
    END IF;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER bank_accounts_roll_net_worth AFTER UPDATE ON bank_accounts FOR EACH ROW
  WHEN (OLD.type IS DISTINCT FROM NEW.type OR OLD.currency IS DISTINCT FROM NEW.currency OR OLD.user_id IS DISTINCT FROM NEW.user_id)
  EXECUTE FUNCTION ledgerlink_roll_account_balances();--> statement-breakpoint
-- From the snapshots (npm run db:rebuild-rollups; and once here, for existing data).
CREATE OR REPLACE FUNCTION ledgerlink_rebuild_net_worth() RETURNS void LANGUAGE sql AS $$
DELETE FROM net_worth_days;
SELECT ledgerlink_roll_net_worth(u.id, '-infinity'::date) FROM users u;
$$;--> statement-breakpoint
SELECT ledgerlink_rebuild_net_worth();
