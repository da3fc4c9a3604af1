-- search_transactions' amount bounds compare abs(amount_minor) scaled to 1/10^4 of its row's
-- currency unit (lib/finance/transactions.ts absScaled): the factor per currency is 10^(4 − its
-- decimals), from lib/finance/currency.ts EXPONENTS (0, 3 or 4 decimals listed; every other code 2).
-- A test holds this function equal to EXPONENTS. Indexed per user, so a bound is a range scan.
CREATE OR REPLACE FUNCTION ledgerlink_abs_scaled(amount bigint, currency text) RETURNS bigint
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT abs(amount) * CASE
    WHEN currency IN ('BIF', 'CLP', 'DJF', 'GNF', 'ISK', 'JPY', 'KMF', 'KRW', 'PYG', 'RWF', 'UGX', 'UYI', 'VND', 'VUV', 'XAF', 'XOF', 'XPF') THEN 10000
    WHEN currency IN ('BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND') THEN 10
    WHEN currency IN ('CLF', 'UYW') THEN 1
    ELSE 100
  END
$$;--> statement-breakpoint
CREATE INDEX "transactions_user_abs_amount_idx" ON "transactions" USING btree ("user_id",ledgerlink_abs_scaled(amount_minor, currency));
