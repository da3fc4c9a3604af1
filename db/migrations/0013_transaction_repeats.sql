CREATE TABLE "transaction_repeats" (
	"transaction_id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"date" date NOT NULL
);
--> statement-breakpoint
ALTER TABLE "transaction_repeats" ADD CONSTRAINT "transaction_repeats_transaction_id_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "public"."transactions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transaction_repeats" ADD CONSTRAINT "transaction_repeats_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "transaction_repeats_user_id_date_index" ON "transaction_repeats" USING btree ("user_id","date");--> statement-breakpoint
-- Whether each of the given charges repeats an earlier one (see db/schema.ts `transactionRepeats`):
-- their rows here are dropped, then written again for those that do. A user already removed (a
-- cascade) gets nothing back.
CREATE OR REPLACE FUNCTION ledgerlink_mark_repeats(p_ids text[]) RETURNS void LANGUAGE sql AS $$
DELETE FROM transaction_repeats r USING unnest(p_ids) AS i(id) WHERE r.transaction_id = i.id;
INSERT INTO transaction_repeats (transaction_id, user_id, date)
SELECT t.id, t.user_id, t.date
FROM unnest(p_ids) AS i(id)
JOIN transactions t ON t.id = i.id
-- LIMIT keeps the look-up per charge (the account's rows of its day and the one before, by index)
-- instead of a join over every transaction.
CROSS JOIN LATERAL (
  SELECT 1 FROM transactions o
  WHERE o.account_id = t.account_id AND o.date BETWEEN t.date - 1 AND t.date
    AND o.user_id = t.user_id AND o.id <> t.id
    AND o.amount_minor = t.amount_minor
    AND coalesce(o.merchant_name, o.name) = coalesce(t.merchant_name, t.name)
    AND (o.date < t.date OR o.id < t.id)
    AND NOT o.is_transfer
    AND o.provider_transaction_id IS DISTINCT FROM t.pending_transaction_id
    AND o.pending_transaction_id IS DISTINCT FROM t.provider_transaction_id
  LIMIT 1
) AS earlier
WHERE t.amount_minor < 0 AND NOT t.is_transfer
  AND EXISTS (SELECT 1 FROM users u WHERE u.id = t.user_id);
$$;--> statement-breakpoint
-- The charges a write can change: for every charge written or removed (either version of an
-- update), the charges of its account, amount and merchant on its day and the next (itself too),
-- looked up per charge by index (OFFSET keeps the planner from joining over every transaction);
-- and `p_also` (an update's rows, which may no longer be charges).
CREATE OR REPLACE FUNCTION ledgerlink_follow_repeats_of(p_changed transactions[], p_also text[]) RETURNS void LANGUAGE sql AS $$
SELECT ledgerlink_mark_repeats(ARRAY(
  SELECT t.id FROM unnest(p_changed) AS x
  CROSS JOIN LATERAL (
    SELECT c.id FROM transactions c
    WHERE c.account_id = x.account_id AND c.date BETWEEN x.date AND x.date + 1
      AND c.amount_minor = x.amount_minor
      AND coalesce(c.merchant_name, c.name) = coalesce(x.merchant_name, x.name)
    OFFSET 0
  ) AS t
  WHERE x.amount_minor < 0 AND NOT x.is_transfer
  UNION
  SELECT unnest(p_also)
));
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION ledgerlink_follow_repeats() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM ledgerlink_follow_repeats_of(ARRAY(SELECT n::transactions FROM new_rows AS n), '{}');
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM ledgerlink_follow_repeats_of(
      ARRAY(SELECT o::transactions FROM old_rows AS o UNION ALL SELECT n::transactions FROM new_rows AS n),
      ARRAY(SELECT n.id FROM new_rows AS n)
    );
  ELSE
    PERFORM ledgerlink_follow_repeats_of(ARRAY(SELECT o::transactions FROM old_rows AS o), '{}');
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER transactions_repeats_insert AFTER INSERT ON transactions
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ledgerlink_follow_repeats();--> statement-breakpoint
CREATE TRIGGER transactions_repeats_update AFTER UPDATE ON transactions
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ledgerlink_follow_repeats();--> statement-breakpoint
CREATE TRIGGER transactions_repeats_delete AFTER DELETE ON transactions
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ledgerlink_follow_repeats();--> statement-breakpoint
-- From the rows (`npm run db:rebuild-rollups`; and once here, for existing data).
CREATE OR REPLACE FUNCTION ledgerlink_rebuild_repeats() RETURNS void LANGUAGE sql AS $$
DELETE FROM transaction_repeats;
SELECT ledgerlink_mark_repeats(ARRAY(SELECT id FROM transactions WHERE amount_minor < 0 AND NOT is_transfer));
$$;--> statement-breakpoint
SELECT ledgerlink_rebuild_repeats();
