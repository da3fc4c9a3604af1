CREATE TABLE "category_rules" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"field" text NOT NULL,
	"pattern" text NOT NULL,
	"pattern_folded" text GENERATED ALWAYS AS (ledgerlink_fold(pattern)) STORED NOT NULL,
	"category" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "transfer_categories" (
	"user_id" text NOT NULL,
	"category" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "transfer_categories_user_id_category_pk" PRIMARY KEY("user_id","category")
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "account_ids" text[];--> statement-breakpoint
ALTER TABLE "bank_accounts" ADD COLUMN "hidden" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "oauth_grants" ADD COLUMN "account_ids" text[];--> statement-breakpoint
ALTER TABLE "recurring_streams" ADD COLUMN "provider_category" text;--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "provider_category" text;--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "category_override" text;--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "provider_is_transfer" boolean;--> statement-breakpoint
ALTER TABLE "category_rules" ADD CONSTRAINT "category_rules_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transfer_categories" ADD CONSTRAINT "transfer_categories_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "category_rules_user_id_index" ON "category_rules" USING btree ("user_id");--> statement-breakpoint
-- The provider's values as they stand: no rule exists yet, so every row's category is the
-- provider's. Rolled values do not change, so the rollup triggers are not run for these updates.
ALTER TABLE "transactions" DISABLE TRIGGER USER;--> statement-breakpoint
UPDATE "transactions" SET "provider_category" = "category", "provider_is_transfer" = "is_transfer";--> statement-breakpoint
ALTER TABLE "transactions" ENABLE TRIGGER USER;--> statement-breakpoint
ALTER TABLE "recurring_streams" DISABLE TRIGGER USER;--> statement-breakpoint
UPDATE "recurring_streams" SET "provider_category" = "category";--> statement-breakpoint
ALTER TABLE "recurring_streams" ENABLE TRIGGER USER;
