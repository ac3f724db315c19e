ALTER TABLE "capacity" ADD COLUMN "unowned_used" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "personas_pending_owned" ON "personas" USING btree ("id") WHERE status = 'pending' AND owner_id IS NOT NULL;--> statement-breakpoint
-- Seats already held by personas without an owner count against their share from now on.
UPDATE "capacity" SET "unowned_used" = (SELECT count(*) FROM "personas" WHERE "status" = 'admitted' AND "owner_id" IS NULL) WHERE "id" = 1;
