import { sql } from 'drizzle-orm'
import { bigint, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core'

/**
 * Where a payment stands. `claimed`: the row exists, nothing was sent to
 * settle yet. `settling`: a settle call is under way. `settled`: the money
 * moved (`fulfilled_at` says whether the goods did too). `failed`: nothing
 * moved; the reference may be presented again. `unknown`: a settle answer
 * was lost; the chain decides.
 */
export const LEDGER_STATES = ['claimed', 'settling', 'settled', 'failed', 'unknown'] as const
export type LedgerState = (typeof LEDGER_STATES)[number]

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

/**
 * The payment ledger: one row per payment reference (an EIP-3009 nonce, an
 * MPP transaction), written before any money moves. Services put it in their
 * drizzle schema; its primary key is what makes a payment single-use across
 * every replica.
 */
export const paymentLedger = pgTable(
  'payment_ledger',
  {
    reference: text('reference').primaryKey(),
    /** The product sold (a service's name for it): the reconciler finds its fulfilment by it. */
    kind: text('kind').notNull(),
    /** What this payment is for (a match, a hash of the request): a retry must present the same. */
    requestKey: text('request_key').notNull(),
    state: text('state').$type<LedgerState>().notNull(),
    rail: text('rail').$type<'x402' | 'mpp'>().notNull(),
    network: text('network').notNull(),
    amount: bigint('amount', { mode: 'bigint' }).notNull(),
    payTo: text('pay_to').notNull(),
    payer: text('payer').notNull().default(''),
    /** What the chain is asked to resolve an unknown outcome (authorization or transaction). */
    proof: jsonb('proof').notNull(),
    /** What to deliver, kept until delivered so the reconciler can deliver without the request. */
    order: jsonb('order'),
    receipt: jsonb('receipt'),
    /** What the payment bought (a match id, a heart-file id): every retry's answer is built from it. */
    fulfilment: jsonb('fulfilment'),
    detail: text('detail'),
    settleAttempts: integer('settle_attempts').notNull().default(0),
    /** While in the future, the request that holds the row is at work on it. */
    leaseUntil: at('lease_until'),
    createdAt: at('created_at').notNull().defaultNow(),
    updatedAt: at('updated_at').notNull().defaultNow(),
    settledAt: at('settled_at'),
    fulfilledAt: at('fulfilled_at'),
  },
  (table) => [
    // The reconciler's work list and /health's count: rows not yet resolved.
    index('payment_ledger_unresolved')
      .on(table.updatedAt)
      .where(
        sql`state IN ('claimed', 'settling', 'unknown') OR (state = 'settled' AND fulfilled_at IS NULL)`,
      ),
  ],
)

export type LedgerRow = typeof paymentLedger.$inferSelect
