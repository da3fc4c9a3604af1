CREATE TABLE "category_typicals" (
	"user_id" text NOT NULL,
	"anchor" date NOT NULL,
	"category" text NOT NULL,
	"currency" text NOT NULL,
	"typical_minor" numeric NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "category_typicals_user_id_anchor_category_currency_pk" PRIMARY KEY("user_id","anchor","category","currency")
);
--> statement-breakpoint
CREATE TABLE "merchant_first_seen" (
	"user_id" text NOT NULL,
	"merchant_key" text NOT NULL,
	"first_date" date NOT NULL,
	CONSTRAINT "merchant_first_seen_user_id_merchant_key_pk" PRIMARY KEY("user_id","merchant_key")
);
--> statement-breakpoint
ALTER TABLE "recurring_streams" ADD COLUMN "previous_amount_minor" bigint;--> statement-breakpoint
ALTER TABLE "recurring_streams" ADD COLUMN "price_changed_on" date;--> statement-breakpoint
ALTER TABLE "recurring_streams" ADD COLUMN "price_change_transaction_id" text;--> statement-breakpoint
ALTER TABLE "category_typicals" ADD CONSTRAINT "category_typicals_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "merchant_first_seen" ADD CONSTRAINT "merchant_first_seen_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "merchant_first_seen_user_id_first_date_index" ON "merchant_first_seen" USING btree ("user_id","first_date");--> statement-breakpoint
-- A stream's latest price change, read from its posted charges (the provider ids it lists, on its
-- account), newest first: the first older charge whose amount differs from the newest one, and
-- the charge where the newer amount began. No row when the charges show no change.
CREATE OR REPLACE FUNCTION ledgerlink_price_change(p_account text, p_ids jsonb)
RETURNS TABLE (previous_minor bigint, since_date date, since_id text) LANGUAGE sql STABLE AS $$
  WITH charges AS (
    SELECT c.id, c.date, abs(c.amount_minor) AS amount, row_number() OVER (ORDER BY c.date DESC, c.id DESC) AS rn
    FROM jsonb_array_elements_text(p_ids) AS x(pid)
    CROSS JOIN LATERAL (
      SELECT t.id, t.date, t.amount_minor FROM transactions AS t
      WHERE t.account_id = p_account AND t.provider_transaction_id = x.pid AND NOT t.pending
      LIMIT 1
    ) AS c
  )
  SELECT older.amount, since.date, since.id
  FROM charges AS older JOIN charges AS since ON since.rn = older.rn - 1
  WHERE older.amount <> (SELECT newest.amount FROM charges AS newest WHERE newest.rn = 1)
  ORDER BY older.rn
  LIMIT 1
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION ledgerlink_stamp_stream() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT p.previous_minor, p.since_date, p.since_id
    INTO NEW.previous_amount_minor, NEW.price_changed_on, NEW.price_change_transaction_id
    FROM ledgerlink_price_change(NEW.account_id, NEW.transaction_ids) AS p;
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER recurring_streams_stamp BEFORE INSERT OR UPDATE OF account_id, transaction_ids ON recurring_streams
  FOR EACH ROW EXECUTE FUNCTION ledgerlink_stamp_stream();--> statement-breakpoint
-- Per category and currency, the median magnitude and the count of the user's outflows
-- (transfers excluded) dated in the 365 days before `p_anchor`.
CREATE OR REPLACE FUNCTION ledgerlink_typicals(p_user text, p_anchor date)
RETURNS TABLE (category text, currency text, typical double precision, n bigint) LANGUAGE sql STABLE AS $$
  SELECT h.category, h.currency, percentile_cont(0.5) WITHIN GROUP (ORDER BY -h.amount_minor), count(*)
  FROM transactions AS h
  WHERE h.user_id = p_user AND h.date >= p_anchor - 365 AND h.date < p_anchor
    AND h.amount_minor < 0 AND NOT h.is_transfer
  GROUP BY h.category, h.currency
$$;--> statement-breakpoint
-- The anchors of a sync on `p_today` (UTC): the start of the default 30-day range (today − 29) for
-- every "today" a timezone can have on that day or the next (UTC day − 1 … + 2). Anchors still
-- stored are exact (the trigger below drops the ones a write touches) and only missing ones are
-- computed; anchors outside that span are dropped.
CREATE OR REPLACE FUNCTION ledgerlink_store_typicals(p_user text, p_today date) RETURNS void LANGUAGE sql AS $$
  DELETE FROM category_typicals WHERE user_id = p_user AND (anchor < p_today - 30 OR anchor > p_today - 27);
  INSERT INTO category_typicals (user_id, anchor, category, currency, typical_minor, count)
  SELECT p_user, a.anchor, t.category, t.currency, t.typical, t.n
  FROM (SELECT p_today - 29 + k AS anchor FROM generate_series(-1, 2) AS k) AS a
  CROSS JOIN LATERAL ledgerlink_typicals(p_user, a.anchor) AS t
  WHERE NOT EXISTS (SELECT 1 FROM category_typicals AS c WHERE c.user_id = p_user AND c.anchor = a.anchor);
$$;--> statement-breakpoint
-- What a write to `transactions` changes in the derived rows, from the rows it removed (`gone`, the
-- old side of an update) and wrote (`came`), once per statement.
CREATE OR REPLACE FUNCTION ledgerlink_follow_transactions(gone transactions[], came transactions[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  -- Typical amounts: an anchor whose 365-day window may hold a changed row is dropped.
  DELETE FROM category_typicals AS c
  USING (
    SELECT r.user_id, min(r.date) AS first, max(r.date) AS last
    FROM (SELECT * FROM unnest(gone) UNION ALL SELECT * FROM unnest(came)) AS r GROUP BY r.user_id
  ) AS r
  WHERE c.user_id = r.user_id AND r.first < c.anchor AND r.last >= c.anchor - 365;
  -- First-seen dates: a new row may be earlier; a merchant whose first date a removed row held is
  -- read again from the rows (and dropped when none is left).
  INSERT INTO merchant_first_seen AS m (user_id, merchant_key, first_date)
  SELECT n.user_id, lower(coalesce(n.merchant_name, n.name)), min(n.date) FROM unnest(came) AS n GROUP BY 1, 2
  ON CONFLICT (user_id, merchant_key) DO UPDATE SET first_date = least(m.first_date, excluded.first_date);
  WITH held AS (
    SELECT DISTINCT m.user_id, m.merchant_key
    FROM unnest(gone) AS g
    JOIN merchant_first_seen AS m
      ON m.user_id = g.user_id AND m.merchant_key = lower(coalesce(g.merchant_name, g.name))
    WHERE g.date <= m.first_date
  ), fresh AS (
    SELECT h.user_id, h.merchant_key, (
      SELECT min(t.date) FROM transactions AS t
      WHERE t.user_id = h.user_id AND lower(coalesce(t.merchant_name, t.name)) = h.merchant_key
    ) AS first
    FROM held AS h
  ), dropped AS (
    DELETE FROM merchant_first_seen AS m USING fresh AS f
    WHERE m.user_id = f.user_id AND m.merchant_key = f.merchant_key AND f.first IS NULL
  )
  UPDATE merchant_first_seen AS m SET first_date = f.first FROM fresh AS f
  WHERE m.user_id = f.user_id AND m.merchant_key = f.merchant_key AND f.first IS NOT NULL;
  -- Streams listing a changed row: touched, so their row trigger reads their price change again.
  UPDATE recurring_streams SET transaction_ids = transaction_ids
  WHERE id IN (
    SELECT s.id
    FROM recurring_streams AS s
    CROSS JOIN LATERAL jsonb_array_elements_text(s.transaction_ids) AS x(pid)
    JOIN (SELECT * FROM unnest(gone) UNION ALL SELECT * FROM unnest(came)) AS r
      ON r.account_id = s.account_id AND r.provider_transaction_id = x.pid
    WHERE s.user_id IN (SELECT u.user_id FROM unnest(gone) AS u UNION SELECT u.user_id FROM unnest(came) AS u)
  );
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION ledgerlink_follow_transactions_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM ledgerlink_follow_transactions('{}', ARRAY(SELECT n::transactions FROM new_rows AS n));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM ledgerlink_follow_transactions(ARRAY(SELECT o::transactions FROM old_rows AS o), '{}');
  ELSE
    PERFORM ledgerlink_follow_transactions(ARRAY(SELECT o::transactions FROM old_rows AS o), ARRAY(SELECT n::transactions FROM new_rows AS n));
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER transactions_follow_insert AFTER INSERT ON transactions
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ledgerlink_follow_transactions_trigger();--> statement-breakpoint
CREATE TRIGGER transactions_follow_update AFTER UPDATE ON transactions
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ledgerlink_follow_transactions_trigger();--> statement-breakpoint
CREATE TRIGGER transactions_follow_delete AFTER DELETE ON transactions
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ledgerlink_follow_transactions_trigger();--> statement-breakpoint
-- Everything above from the rows (`npm run db:rebuild-rollups`; and once here, for existing data).
CREATE OR REPLACE FUNCTION ledgerlink_rebuild_unusual(p_today date) RETURNS void LANGUAGE sql AS $$
  DELETE FROM merchant_first_seen;
  INSERT INTO merchant_first_seen (user_id, merchant_key, first_date)
  SELECT user_id, lower(coalesce(merchant_name, name)), min(date) FROM transactions GROUP BY 1, 2;
  UPDATE recurring_streams SET transaction_ids = transaction_ids;
  DELETE FROM category_typicals;
  SELECT ledgerlink_store_typicals(u.id, p_today) FROM users AS u
  WHERE EXISTS (SELECT 1 FROM transactions AS t WHERE t.user_id = u.id);
$$;--> statement-breakpoint
SELECT ledgerlink_rebuild_unusual(current_date);
