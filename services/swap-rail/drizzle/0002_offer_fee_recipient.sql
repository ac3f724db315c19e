-- Offers posted before this column keep NULL until their first read, which rebuilds the split
-- (CREATE2, not computable in SQL) and stores its fee recipient (src/offers/fee-recipient.ts).
ALTER TABLE "swap_offers" ADD COLUMN "fee_recipient" text;