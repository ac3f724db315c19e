ALTER TABLE "studio_price" ALTER COLUMN "price_micro_usd" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "studio_price" ALTER COLUMN "updated_at" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "studio_price" ALTER COLUMN "observed_at" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "studio_price" ADD COLUMN "attempted_at" bigint DEFAULT 0 NOT NULL;