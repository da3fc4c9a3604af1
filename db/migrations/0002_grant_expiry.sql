ALTER TABLE "oauth_grants" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
UPDATE "oauth_grants" SET "expires_at" = "created_at" + interval '365 days';--> statement-breakpoint
ALTER TABLE "oauth_grants" ALTER COLUMN "expires_at" SET NOT NULL;
