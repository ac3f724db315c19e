import { paymentLedger } from '@agents/payments'
import { sql } from 'drizzle-orm'
import {
  bigint,
  bigserial,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core'

// Money columns are USDC atomic units (6 decimals) as bigint; MTok are whole numbers.
const atomic = (name: string) => bigint(name, { mode: 'bigint' })
const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

export const offers = pgTable(
  'swap_offers',
  {
    id: uuid('id').primaryKey(),
    /** Arrival order: the time priority among offers of one price. */
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    endpoint: text('endpoint').notNull(),
    payTo: text('pay_to').notNull(),
    model: text('model').notNull(),
    mtok: integer('mtok').notNull(),
    remainingMtok: integer('remaining_mtok').notNull(),
    /** USD per MTok, as USDC atomic units. */
    priceAtomic: atomic('price_atomic').notNull(),
    /** The split's fee is fixed when the offer is made: the split address depends on it. */
    feeBps: integer('fee_bps').notNull(),
    splitAddress: text('split_address').notNull(),
    /**
     * The hub's fee recipient in the split, kept so that a read need not
     * rebuild the split (CREATE2) to tell whether it is still the hub's. Null
     * on offers from before the column until their first read fills it (see
     * offers/fee-recipient.ts), with the zero address when it is not known.
     */
    feeRecipient: text('fee_recipient'),
    /** Who posted it (a hash of the client's address group): the book bound per client. */
    clientKey: text('client_key'),
    status: text('status', { enum: ['open', 'filled', 'cancelled', 'expired'] }).notNull(),
    createdAt: at('created_at').notNull().defaultNow(),
    expiresAt: at('expires_at').notNull(),
    closedAt: at('closed_at'),
  },
  (table) => [
    check('remaining_within_capacity', sql`${table.remainingMtok} BETWEEN 0 AND ${table.mtok}`),
    // The matcher's access path: cheapest open offer of a model, then the oldest.
    index('swap_offers_book')
      .on(table.model, table.priceAtomic, table.seq)
      .where(sql`status = 'open'`),
    index('swap_offers_expiry').on(table.expiresAt).where(sql`status = 'open'`),
    // The book bounds: open offers per payTo and per client are counted on every post.
    index('swap_offers_open_by_seller').on(table.payTo).where(sql`status = 'open'`),
    index('swap_offers_open_by_client').on(table.clientKey).where(sql`status = 'open'`),
  ],
)

export const intents = pgTable(
  'swap_intents',
  {
    id: uuid('id').primaryKey(),
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    model: text('model').notNull(),
    mtok: integer('mtok').notNull(),
    maxPriceAtomic: atomic('max_price_atomic').notNull(),
    buyer: text('buyer'),
    /** Who filed it (a hash of the client's address group): the book bound per client. */
    clientKey: text('client_key'),
    status: text('status', { enum: ['open', 'matched', 'expired'] }).notNull(),
    createdAt: at('created_at').notNull().defaultNow(),
    expiresAt: at('expires_at').notNull(),
  },
  (table) => [
    index('swap_intents_waiting').on(table.model, table.seq).where(sql`status = 'open'`),
    index('swap_intents_expiry').on(table.expiresAt).where(sql`status = 'open'`),
    index('swap_intents_open_by_client').on(table.clientKey).where(sql`status = 'open'`),
  ],
)

export const matches = pgTable(
  'swap_matches',
  {
    id: uuid('id').primaryKey(),
    intentId: uuid('intent_id')
      .notNull()
      .references(() => intents.id),
    offerId: uuid('offer_id')
      .notNull()
      .references(() => offers.id),
    mtok: integer('mtok').notNull(),
    unitPriceAtomic: atomic('unit_price_atomic').notNull(),
    grossAtomic: atomic('gross_atomic').notNull(),
    feeBps: integer('fee_bps').notNull(),
    splitAddress: text('split_address').notNull(),
    status: text('status', { enum: ['awaiting_payment', 'paid', 'expired'] }).notNull(),
    createdAt: at('created_at').notNull().defaultNow(),
    payBy: at('pay_by').notNull(),
    /** A payment being verified holds this lease so a second payment is not settled too. */
    /** The payment being settled for this match (a payment_ledger reference): the match is held for it. */
    settlingReference: text('settling_reference'),
    /** Its intent's client: an unpaid match counts against that client's intents. */
    clientKey: text('client_key'),
    paidAt: at('paid_at'),
    payment: jsonb('payment'),
  },
  (table) => [
    // An intent is matched at most once, whatever the concurrency.
    uniqueIndex('swap_matches_intent').on(table.intentId),
    index('swap_matches_offer').on(table.offerId),
    index('swap_matches_unpaid').on(table.payBy).where(sql`status = 'awaiting_payment'`),
    index('swap_matches_unpaid_by_client')
      .on(table.clientKey)
      .where(sql`status = 'awaiting_payment'`),
  ],
)

// drizzle-kit generates the tables this file exports: the ledger table comes from @agents/payments.
export { paymentLedger }
export const schema = { offers, intents, matches, paymentLedger }
export type Schema = typeof schema
export type OfferRow = typeof offers.$inferSelect
export type IntentRow = typeof intents.$inferSelect
export type MatchRow = typeof matches.$inferSelect
