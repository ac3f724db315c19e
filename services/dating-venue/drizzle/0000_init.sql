CREATE TABLE "agent_endpoints" (
	"id" serial PRIMARY KEY NOT NULL,
	"owner_id" integer,
	"persona_id" integer,
	"runtime" text NOT NULL,
	"callback_url" text,
	"public_key" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"nonce" text NOT NULL,
	"nonce_expires_at" timestamp with time zone NOT NULL,
	"verified_reason" text,
	"credential_hash" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"verified_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "capacity" (
	"id" integer PRIMARY KEY NOT NULL,
	"used" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "couples" (
	"id" serial PRIMARY KEY NOT NULL,
	"persona_a" integer NOT NULL,
	"persona_b" integer NOT NULL,
	"state" text DEFAULT 'courting' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"detail" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "heart_files" (
	"id" serial PRIMARY KEY NOT NULL,
	"owner_id" integer NOT NULL,
	"display_name" text,
	"home_market" text NOT NULL,
	"active_market" text NOT NULL,
	"available_for" text,
	"research_optin" text NOT NULL,
	"age_attested" boolean NOT NULL,
	"contact_ref_sealed" text,
	"heart" jsonb NOT NULL,
	"payment_reference" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "owners" (
	"id" serial PRIMARY KEY NOT NULL,
	"wallet" text NOT NULL,
	"tier" text DEFAULT 'agent_represented' NOT NULL,
	"credential_hash" text NOT NULL,
	"age_over_18" boolean,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "owners_wallet_unique" UNIQUE("wallet")
);
--> statement-breakpoint
CREATE TABLE "payment_receipts" (
	"reference" text PRIMARY KEY NOT NULL,
	"receipt" jsonb,
	"claimed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "personas" (
	"id" serial PRIMARY KEY NOT NULL,
	"handle" text NOT NULL,
	"model" text NOT NULL,
	"heart" jsonb NOT NULL,
	"redteam" boolean DEFAULT false NOT NULL,
	"owner_id" integer,
	"home_market" text,
	"active_market" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"admitted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "posts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"board" text NOT NULL,
	"persona_id" integer,
	"handle" text NOT NULL,
	"body" text NOT NULL,
	"status" text NOT NULL,
	"reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "reports" (
	"id" serial PRIMARY KEY NOT NULL,
	"target_type" text NOT NULL,
	"target_id" integer NOT NULL,
	"reporter_key" text NOT NULL,
	"reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "turns" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"couple_id" integer NOT NULL,
	"persona_id" integer,
	"author" text NOT NULL,
	"body" text NOT NULL,
	"status" text NOT NULL,
	"reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "agent_endpoints" ADD CONSTRAINT "agent_endpoints_owner_id_owners_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."owners"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "couples" ADD CONSTRAINT "couples_persona_a_personas_id_fk" FOREIGN KEY ("persona_a") REFERENCES "public"."personas"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "couples" ADD CONSTRAINT "couples_persona_b_personas_id_fk" FOREIGN KEY ("persona_b") REFERENCES "public"."personas"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "heart_files" ADD CONSTRAINT "heart_files_owner_id_owners_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."owners"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "personas" ADD CONSTRAINT "personas_owner_id_owners_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."owners"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "posts" ADD CONSTRAINT "posts_persona_id_personas_id_fk" FOREIGN KEY ("persona_id") REFERENCES "public"."personas"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "turns" ADD CONSTRAINT "turns_couple_id_couples_id_fk" FOREIGN KEY ("couple_id") REFERENCES "public"."couples"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "personas_handle" ON "personas" USING btree (lower("handle")) WHERE status IN ('pending', 'admitted', 'held');--> statement-breakpoint
CREATE INDEX "personas_pending" ON "personas" USING btree ("id") WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX "posts_board" ON "posts" USING btree ("board","id") WHERE status = 'published';--> statement-breakpoint
CREATE UNIQUE INDEX "reports_once" ON "reports" USING btree ("target_type","target_id","reporter_key");--> statement-breakpoint
CREATE INDEX "turns_published" ON "turns" USING btree ("id") WHERE status = 'published';--> statement-breakpoint
INSERT INTO "capacity" ("id", "used") VALUES (1, 0) ON CONFLICT DO NOTHING;
