CREATE INDEX "posts_held" ON "posts" USING btree ("id") WHERE status = 'held';--> statement-breakpoint
CREATE INDEX "turns_held" ON "turns" USING btree ("id") WHERE status = 'held';--> statement-breakpoint
CREATE INDEX "turns_blocked" ON "turns" USING btree ("id") WHERE status = 'blocked';