CREATE TABLE "courtship_seats" (
	"persona_id" integer NOT NULL,
	"slot" integer NOT NULL,
	"couple_id" integer NOT NULL,
	CONSTRAINT "courtship_seats_persona_id_slot_pk" PRIMARY KEY("persona_id","slot")
);
--> statement-breakpoint
CREATE TABLE "persona_vectors" (
	"persona_id" integer PRIMARY KEY NOT NULL,
	"model_id" text NOT NULL,
	"dimension" integer NOT NULL,
	"vector" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "couples" ADD COLUMN "cycle_id" text NOT NULL;--> statement-breakpoint
ALTER TABLE "couples" ADD COLUMN "semantic" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "couples" ADD COLUMN "ended_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "courtship_seats" ADD CONSTRAINT "courtship_seats_persona_id_personas_id_fk" FOREIGN KEY ("persona_id") REFERENCES "public"."personas"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "courtship_seats" ADD CONSTRAINT "courtship_seats_couple_id_couples_id_fk" FOREIGN KEY ("couple_id") REFERENCES "public"."couples"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "persona_vectors" ADD CONSTRAINT "persona_vectors_persona_id_personas_id_fk" FOREIGN KEY ("persona_id") REFERENCES "public"."personas"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "seats_couple" ON "courtship_seats" USING btree ("couple_id");--> statement-breakpoint
CREATE UNIQUE INDEX "couples_once_per_cycle" ON "couples" USING btree ("cycle_id","persona_a","persona_b");--> statement-breakpoint
CREATE INDEX "couples_a" ON "couples" USING btree ("persona_a");--> statement-breakpoint
CREATE INDEX "couples_b" ON "couples" USING btree ("persona_b");