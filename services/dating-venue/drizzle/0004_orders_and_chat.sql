CREATE TABLE "chat_drafts" (
	"wallet" text PRIMARY KEY NOT NULL,
	"draft" jsonb NOT NULL,
	"skipped" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "chat_messages" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"speaker" text NOT NULL,
	"role" text NOT NULL,
	"text_sealed" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "chat_nonces" (
	"nonce" text PRIMARY KEY NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "chat_sessions" (
	"id_hash" text PRIMARY KEY NOT NULL,
	"wallet" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "chat_usage" (
	"wallet" text NOT NULL,
	"day" text NOT NULL,
	"used" integer NOT NULL,
	CONSTRAINT "chat_usage_wallet_day_pk" PRIMARY KEY("wallet","day")
);
--> statement-breakpoint
CREATE TABLE "chat_wallets" (
	"wallet" text PRIMARY KEY NOT NULL,
	"adult_attested_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "credit_balances" (
	"wallet" text PRIMARY KEY NOT NULL,
	"credits" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "credit_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"wallet" text NOT NULL,
	"credits" integer NOT NULL,
	"reason" text NOT NULL,
	"order_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "credit_events_order_id_unique" UNIQUE("order_id")
);
--> statement-breakpoint
CREATE TABLE "orders" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"owner_id" integer,
	"status" text NOT NULL,
	"amount_atomic" bigint NOT NULL,
	"payment_reference" text,
	"settling_reference" text,
	"transaction" text,
	"failure_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "revenue" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"order_id" text NOT NULL,
	"kind" text NOT NULL,
	"rail" text NOT NULL,
	"amount_atomic" bigint NOT NULL,
	"reserve_atomic" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "revenue_order_id_unique" UNIQUE("order_id")
);
--> statement-breakpoint
CREATE TABLE "studio_price" (
	"id" integer PRIMARY KEY NOT NULL,
	"price_micro_usd" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	"observed_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "posts" ADD COLUMN "featured_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_owner_id_owners_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."owners"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chat_messages_speaker" ON "chat_messages" USING btree ("speaker","id");--> statement-breakpoint
CREATE INDEX "chat_messages_created" ON "chat_messages" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "chat_sessions_wallet" ON "chat_sessions" USING btree ("wallet");--> statement-breakpoint
CREATE INDEX "credit_events_wallet" ON "credit_events" USING btree ("wallet");--> statement-breakpoint
CREATE UNIQUE INDEX "orders_payment_reference" ON "orders" USING btree ("payment_reference");--> statement-breakpoint
CREATE INDEX "orders_transaction" ON "orders" USING btree ("transaction");--> statement-breakpoint
CREATE INDEX "orders_status" ON "orders" USING btree ("status");--> statement-breakpoint
CREATE INDEX "posts_featured" ON "posts" USING btree ("board","featured_until") WHERE featured_until IS NOT NULL;