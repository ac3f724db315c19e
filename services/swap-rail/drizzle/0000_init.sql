CREATE TABLE "swap_intents" (
	"id" uuid PRIMARY KEY NOT NULL,
	"seq" bigserial NOT NULL,
	"model" text NOT NULL,
	"mtok" integer NOT NULL,
	"max_price_atomic" bigint NOT NULL,
	"buyer" text,
	"status" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "swap_matches" (
	"id" uuid PRIMARY KEY NOT NULL,
	"intent_id" uuid NOT NULL,
	"offer_id" uuid NOT NULL,
	"mtok" integer NOT NULL,
	"unit_price_atomic" bigint NOT NULL,
	"gross_atomic" bigint NOT NULL,
	"fee_bps" integer NOT NULL,
	"split_address" text NOT NULL,
	"status" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"pay_by" timestamp with time zone NOT NULL,
	"settling_until" timestamp with time zone,
	"paid_at" timestamp with time zone,
	"payment" jsonb
);
--> statement-breakpoint
CREATE TABLE "swap_offers" (
	"id" uuid PRIMARY KEY NOT NULL,
	"seq" bigserial NOT NULL,
	"endpoint" text NOT NULL,
	"pay_to" text NOT NULL,
	"model" text NOT NULL,
	"mtok" integer NOT NULL,
	"remaining_mtok" integer NOT NULL,
	"price_atomic" bigint NOT NULL,
	"fee_bps" integer NOT NULL,
	"split_address" text NOT NULL,
	"status" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"closed_at" timestamp with time zone,
	CONSTRAINT "remaining_within_capacity" CHECK ("swap_offers"."remaining_mtok" BETWEEN 0 AND "swap_offers"."mtok")
);
--> statement-breakpoint
CREATE TABLE "payment_receipts" (
	"reference" text PRIMARY KEY NOT NULL,
	"receipt" jsonb,
	"claimed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "swap_matches" ADD CONSTRAINT "swap_matches_intent_id_swap_intents_id_fk" FOREIGN KEY ("intent_id") REFERENCES "public"."swap_intents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "swap_matches" ADD CONSTRAINT "swap_matches_offer_id_swap_offers_id_fk" FOREIGN KEY ("offer_id") REFERENCES "public"."swap_offers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "swap_intents_waiting" ON "swap_intents" USING btree ("model","seq") WHERE status = 'open';--> statement-breakpoint
CREATE INDEX "swap_intents_expiry" ON "swap_intents" USING btree ("expires_at") WHERE status = 'open';--> statement-breakpoint
CREATE UNIQUE INDEX "swap_matches_intent" ON "swap_matches" USING btree ("intent_id");--> statement-breakpoint
CREATE INDEX "swap_matches_offer" ON "swap_matches" USING btree ("offer_id");--> statement-breakpoint
CREATE INDEX "swap_matches_unpaid" ON "swap_matches" USING btree ("pay_by") WHERE status = 'awaiting_payment';--> statement-breakpoint
CREATE INDEX "swap_offers_book" ON "swap_offers" USING btree ("model","price_atomic","seq") WHERE status = 'open';--> statement-breakpoint
CREATE INDEX "swap_offers_expiry" ON "swap_offers" USING btree ("expires_at") WHERE status = 'open';