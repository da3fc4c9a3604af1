-- The effective transfer flag (0021), revised: a category the person counts as a transfer always
-- is one; a row in the provider's category keeps the provider's flag; a row the person re-filed
-- is a transfer exactly when its new category is of the transfer kind (rent paid through a payment
-- app and re-filed as housing is spending; a purchase re-filed as a transfer is neither, and is
-- left out wherever transfers are, like the provider's own: search's exclude_transfers, unusual
-- activity, the typical amounts). 0021 also required the provider's flag for the latter.
CREATE OR REPLACE FUNCTION ledgerlink_effective_transfer(
  p_user text, p_category text, p_provider_category text, p_provider_is_transfer boolean
) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM transfer_categories AS c WHERE c.user_id = p_user AND c.category = p_category)
    OR CASE WHEN p_category IS NOT DISTINCT FROM p_provider_category THEN coalesce(p_provider_is_transfer, false)
      ELSE p_category IN ('transfer', 'credit_card_payment') END
$$;--> statement-breakpoint
-- The rows whose flag the revision changes (re-filed into a transfer-kind category), derived
-- again by the trigger; the rollups follow through theirs.
UPDATE "transactions" SET "category" = "provider_category", "is_transfer" = "provider_is_transfer"
  WHERE "category" IS DISTINCT FROM "provider_category" AND "category" IN ('transfer', 'credit_card_payment')
    AND NOT "is_transfer";
