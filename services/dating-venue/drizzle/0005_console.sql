CREATE TABLE "day_counters" (
	"day" text NOT NULL,
	"name" text NOT NULL,
	"count" bigint NOT NULL,
	CONSTRAINT "day_counters_day_name_pk" PRIMARY KEY("day","name")
);
--> statement-breakpoint
CREATE TABLE "operator_sessions" (
	"id_hash" text PRIMARY KEY NOT NULL,
	"operator" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
