-- The book bounds (src/limits/book-bounds.ts): who posted each offer and intent, and the client
-- an unpaid match counts for. Rows from before keep NULL and count for no client.
ALTER TABLE "swap_intents" ADD COLUMN "client_key" text;--> statement-breakpoint
ALTER TABLE "swap_matches" ADD COLUMN "client_key" text;--> statement-breakpoint
ALTER TABLE "swap_offers" ADD COLUMN "client_key" text;--> statement-breakpoint
CREATE INDEX "swap_intents_open_by_client" ON "swap_intents" USING btree ("client_key") WHERE status = 'open';--> statement-breakpoint
CREATE INDEX "swap_matches_unpaid_by_client" ON "swap_matches" USING btree ("client_key") WHERE status = 'awaiting_payment';--> statement-breakpoint
CREATE INDEX "swap_offers_open_by_seller" ON "swap_offers" USING btree ("pay_to") WHERE status = 'open';--> statement-breakpoint
CREATE INDEX "swap_offers_open_by_client" ON "swap_offers" USING btree ("client_key") WHERE status = 'open';