-- The person's categories (issue 35 §3), materialized: `transactions.category` / `is_transfer` and
-- `recurring_streams.category` hold the EFFECTIVE values, so every rollup and precomputed row
-- follows through the AFTER triggers of 0005..0014 and nothing at query time changes. Writers
-- keep writing the provider's values into category / is_transfer; the BEFORE triggers below move
-- them to provider_category / provider_is_transfer and put the effective values in their place.
--
-- The effective category: the transaction's own override, else the newest matching rule
-- (created_at, id), else the provider's. A rule matches when its field is `merchant` and the
-- folded merchant equals the folded pattern, or its field is `description` and the folded
-- description contains it. Folded once here, not per rule row.
CREATE OR REPLACE FUNCTION ledgerlink_effective_category(
  p_user text, p_merchant text, p_name text, p_override text, p_provider text
) RETURNS text LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_merchant text;
  v_name text;
  v_category text;
BEGIN
  IF p_override IS NOT NULL THEN
    RETURN p_override;
  END IF;
  -- Most people have no rule: a sync's rows are then not folded again.
  IF NOT EXISTS (SELECT 1 FROM category_rules AS r WHERE r.user_id = p_user) THEN
    RETURN p_provider;
  END IF;
  v_merchant := ledgerlink_fold(coalesce(p_merchant, ''));
  v_name := ledgerlink_fold(coalesce(p_name, ''));
  SELECT r.category INTO v_category
  FROM category_rules AS r
  WHERE r.user_id = p_user
    AND ((r.field = 'merchant' AND r.pattern_folded = v_merchant)
      OR (r.field = 'description' AND strpos(v_name, r.pattern_folded) > 0))
  ORDER BY r.created_at DESC, r.id DESC
  LIMIT 1;
  RETURN coalesce(v_category, p_provider);
END $$;--> statement-breakpoint
-- The effective transfer flag: a category the person counts as a transfer always is one; else
-- the provider's flag holds while the row keeps the provider's category or is put in a
-- transfer-kind one (rent paid through a payment app and re-filed as housing is spending).
CREATE OR REPLACE FUNCTION ledgerlink_effective_transfer(
  p_user text, p_category text, p_provider_category text, p_provider_is_transfer boolean
) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM transfer_categories AS c WHERE c.user_id = p_user AND c.category = p_category)
    OR (coalesce(p_provider_is_transfer, false)
      AND (p_category IS NOT DISTINCT FROM p_provider_category OR p_category IN ('transfer', 'credit_card_payment')))
$$;--> statement-breakpoint
-- On INSERT the written category / is_transfer are the provider's (unless provider_* is given).
-- On UPDATE a writer that changes category without changing provider_category writes the
-- provider's value (sync, tests); one that changes provider_category explicitly is taken at its
-- word. Either way the effective values are derived again, so `SET category = provider_category`
-- re-derives a row after a rule changes.
CREATE OR REPLACE FUNCTION ledgerlink_derive_transaction_category() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    NEW.provider_category := coalesce(NEW.provider_category, NEW.category);
    NEW.provider_is_transfer := coalesce(NEW.provider_is_transfer, NEW.is_transfer);
  ELSE
    IF NEW.provider_category IS NOT DISTINCT FROM OLD.provider_category AND NEW.category IS DISTINCT FROM OLD.category THEN
      NEW.provider_category := NEW.category;
    END IF;
    IF NEW.provider_is_transfer IS NOT DISTINCT FROM OLD.provider_is_transfer AND NEW.is_transfer IS DISTINCT FROM OLD.is_transfer THEN
      NEW.provider_is_transfer := NEW.is_transfer;
    END IF;
  END IF;
  NEW.category := ledgerlink_effective_category(NEW.user_id, NEW.merchant_name, NEW.name, NEW.category_override, NEW.provider_category);
  NEW.is_transfer := ledgerlink_effective_transfer(NEW.user_id, NEW.category, NEW.provider_category, NEW.provider_is_transfer);
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER transactions_derive_category BEFORE INSERT OR UPDATE ON transactions
  FOR EACH ROW EXECUTE FUNCTION ledgerlink_derive_transaction_category();--> statement-breakpoint
-- Streams: the rules over the provider's category (no override); `description` rules read the
-- stream's description.
CREATE OR REPLACE FUNCTION ledgerlink_derive_stream_category() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    NEW.provider_category := coalesce(NEW.provider_category, NEW.category);
  ELSIF NEW.provider_category IS NOT DISTINCT FROM OLD.provider_category AND NEW.category IS DISTINCT FROM OLD.category THEN
    NEW.provider_category := NEW.category;
  END IF;
  NEW.category := ledgerlink_effective_category(NEW.user_id, NEW.merchant_name, NEW.description, NULL, NEW.provider_category);
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER recurring_streams_derive_category BEFORE INSERT OR UPDATE ON recurring_streams
  FOR EACH ROW EXECUTE FUNCTION ledgerlink_derive_stream_category();