CREATE TABLE "payment_ledger" (
	"reference" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"request_key" text NOT NULL,
	"state" text NOT NULL,
	"rail" text NOT NULL,
	"network" text NOT NULL,
	"amount" bigint NOT NULL,
	"pay_to" text NOT NULL,
	"payer" text DEFAULT '' NOT NULL,
	"proof" jsonb NOT NULL,
	"order" jsonb,
	"receipt" jsonb,
	"fulfilment" jsonb,
	"detail" text,
	"settle_attempts" integer DEFAULT 0 NOT NULL,
	"lease_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"settled_at" timestamp with time zone,
	"fulfilled_at" timestamp with time zone
);
--> statement-breakpoint
-- The receipts table grows into the ledger: used references stay used (settled and delivered).
INSERT INTO "payment_ledger" ("reference", "kind", "request_key", "state", "rail", "network", "amount", "pay_to", "payer", "proof", "receipt", "fulfilment", "settled_at", "fulfilled_at")
SELECT "reference", 'legacy', '', 'settled', coalesce("receipt"->>'rail', 'x402'), coalesce("receipt"->>'network', ''),
  coalesce(("receipt"->>'amount')::bigint, 0), '', coalesce("receipt"->>'payer', ''), '{}'::jsonb, "receipt", '{"legacy":true}'::jsonb, "completed_at", "completed_at"
FROM "payment_receipts" WHERE "completed_at" IS NOT NULL;--> statement-breakpoint
DROP TABLE "payment_receipts" CASCADE;--> statement-breakpoint
ALTER TABLE "swap_matches" ADD COLUMN "settling_reference" text;--> statement-breakpoint
CREATE INDEX "payment_ledger_unresolved" ON "payment_ledger" USING btree ("updated_at") WHERE state IN ('claimed', 'settling', 'unknown') OR (state = 'settled' AND fulfilled_at IS NULL);--> statement-breakpoint
ALTER TABLE "swap_matches" DROP COLUMN "settling_until";