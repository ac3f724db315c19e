import type { AnyTransaction } from '@agents/service-kit/db'
import { and, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import type { PaymentReceipt } from '../types.ts'
import { type LedgerRow, type LedgerState, paymentLedger } from './ledger-table.ts'

// biome-ignore lint/suspicious/noExplicitAny: any service's schema
export type LedgerDatabase = PgDatabase<PgQueryResultHKT, any>
export type LedgerTx = AnyTransaction

/** A payment about to be claimed: everything the ledger keeps before money moves. */
export type LedgerEntry = {
  reference: string
  kind: string
  requestKey: string
  rail: 'x402' | 'mpp'
  network: string
  amount: bigint
  payTo: string
  payer: string
  proof: Record<string, unknown>
  order: unknown
}

export type ClaimResult =
  | { kind: 'new' }
  | { kind: 'refused'; response: Response }
  | { kind: 'existing'; row: LedgerRow }

const PENDING: LedgerState[] = ['claimed', 'settling', 'unknown']
// Milliseconds, as a JS Date holds them: a row read back compares equal in `unchanged`.
const touched = sql`date_trunc('milliseconds', now())`
const lease = (seconds: number) => sql`now() + make_interval(secs => ${seconds})`

/** Still pending, and (when given) still in the state and version the caller read. */
const unchanged = (expected: LedgerRow | undefined) =>
  expected
    ? and(eq(paymentLedger.state, expected.state), eq(paymentLedger.updatedAt, expected.updatedAt))
    : inArray(paymentLedger.state, PENDING)

class Refused extends Error {
  constructor(readonly response: Response) {
    super('refused')
  }
}

/**
 * The payment ledger's transitions. Every transition is one conditional
 * UPDATE (or a transaction holding the row), so racing requests on any
 * number of replicas agree on who does what.
 */
export const createPaymentLedger = (db: LedgerDatabase) => {
  return {
    db,
    get: async (reference: string) =>
      (await db.select().from(paymentLedger).where(eq(paymentLedger.reference, reference)))[0],

    /**
     * Writes the row (`claimed`, leased) and, in the same transaction, lets
     * the product reserve what is sold (`hold`). A reference that failed
     * before (nothing moved) is claimed afresh; any other existing row is
     * handed back for the caller to decide.
     */
    claim: async (
      entry: LedgerEntry,
      {
        leaseSeconds,
        hold,
      }: {
        leaseSeconds: number
        hold?: ((tx: LedgerTx) => Promise<Response | undefined>) | undefined
      },
    ): Promise<ClaimResult> => {
      try {
        return await db.transaction(async (tx) => {
          const fresh = {
            ...entry,
            state: 'claimed' as const,
            leaseUntil: lease(leaseSeconds),
            detail: null,
            updatedAt: touched,
          }
          const [inserted] = await tx
            .insert(paymentLedger)
            .values(fresh)
            .onConflictDoUpdate({
              target: paymentLedger.reference,
              set: fresh,
              // A failed reference moved nothing: the payer may present it again.
              setWhere: eq(paymentLedger.state, 'failed'),
            })
            .returning({ reference: paymentLedger.reference })
          if (!inserted) {
            const [row] = await tx
              .select()
              .from(paymentLedger)
              .where(eq(paymentLedger.reference, entry.reference))
            return { kind: 'existing' as const, row: row! }
          }
          const refusal = hold ? await hold(tx) : undefined
          if (refusal) throw new Refused(refusal)
          return { kind: 'new' as const }
        })
      } catch (error) {
        if (error instanceof Refused) return { kind: 'refused', response: error.response }
        throw error
      }
    },

    /** Takes over a row whose holder is gone or whose outcome was lost, if no one else did first. */
    takeOver: async (row: LedgerRow, leaseSeconds: number) => {
      const taken = await db
        .update(paymentLedger)
        .set({ state: 'claimed', leaseUntil: lease(leaseSeconds), updatedAt: touched })
        .where(
          and(
            eq(paymentLedger.reference, row.reference),
            eq(paymentLedger.state, row.state),
            eq(paymentLedger.updatedAt, row.updatedAt),
          ),
        )
        .returning({ reference: paymentLedger.reference })
      return taken.length === 1
    },

    /** Written before the settle call goes out: from here on the chain may have moved money. */
    markSettling: async (reference: string, leaseSeconds: number) => {
      const rows = await db
        .update(paymentLedger)
        .set({
          state: 'settling',
          settleAttempts: sql`${paymentLedger.settleAttempts} + 1`,
          leaseUntil: lease(leaseSeconds),
          updatedAt: touched,
        })
        .where(and(eq(paymentLedger.reference, reference), eq(paymentLedger.state, 'claimed')))
        .returning({ reference: paymentLedger.reference })
      return rows.length === 1
    },

    /** The money moved. Never undone; delivery follows. */
    markSettled: (reference: string, receipt: PaymentReceipt) =>
      db
        .update(paymentLedger)
        .set({
          state: 'settled',
          receipt,
          payer: receipt.payer,
          leaseUntil: null,
          settledAt: sql`now()`,
          updatedAt: touched,
        })
        .where(and(eq(paymentLedger.reference, reference), inArray(paymentLedger.state, PENDING))),

    /** `expected`: only if the row is still as the caller (the reconciler) last read it. */
    markUnknown: (reference: string, detail: string, expected?: LedgerRow) =>
      db
        .update(paymentLedger)
        .set({ state: 'unknown', detail, leaseUntil: null, updatedAt: touched })
        .where(and(eq(paymentLedger.reference, reference), unchanged(expected))),

    /**
     * Nothing moved: the row is `failed` (the reference may be presented
     * again) and, in the same transaction, the product gives back what it
     * held.
     */
    fail: (
      reference: string,
      detail: string,
      release?: ((tx: LedgerTx) => Promise<void>) | undefined,
      expected?: LedgerRow,
    ) =>
      db.transaction(async (tx) => {
        const [failed] = await tx
          .update(paymentLedger)
          .set({ state: 'failed', detail, leaseUntil: null, updatedAt: touched })
          .where(and(eq(paymentLedger.reference, reference), unchanged(expected)))
          .returning({ reference: paymentLedger.reference })
        if (failed && release) await release(tx)
      }),

    /**
     * Delivers a settled payment's goods once: the row is locked, and the
     * fulfilment is written in the same transaction as the goods. A second
     * caller waits on the lock and reads the first one's fulfilment.
     */
    deliver: async <fulfilment>(
      reference: string,
      fulfil: (tx: LedgerTx, row: LedgerRow) => Promise<fulfilment>,
    ): Promise<{ fulfilment: fulfilment; row: LedgerRow }> =>
      db.transaction(async (tx) => {
        const [row] = await tx
          .select()
          .from(paymentLedger)
          .where(eq(paymentLedger.reference, reference))
          .for('update')
        if (row?.state !== 'settled')
          throw new Error(`payment ${reference} is not settled (${row?.state ?? 'no row'})`)
        if (row.fulfilledAt) return { fulfilment: row.fulfilment as fulfilment, row }
        const fulfilment = await fulfil(tx, row)
        const [delivered] = await tx
          .update(paymentLedger)
          .set({
            fulfilment: fulfilment as unknown,
            fulfilledAt: sql`now()`,
            // Delivered: the order's copy of the request (private text) is no longer needed.
            order: null,
            updatedAt: touched,
          })
          .where(eq(paymentLedger.reference, reference))
          .returning()
        return { fulfilment, row: delivered! }
      }),

    /** Rows the reconciler must look at: pending past their lease, unknown, or settled and undelivered. */
    unresolved: (limit: number) =>
      db
        .select()
        .from(paymentLedger)
        .where(
          or(
            and(
              inArray(paymentLedger.state, ['claimed', 'settling']),
              or(isNull(paymentLedger.leaseUntil), lt(paymentLedger.leaseUntil, sql`now()`)),
            ),
            eq(paymentLedger.state, 'unknown'),
            and(eq(paymentLedger.state, 'settled'), isNull(paymentLedger.fulfilledAt)),
          ),
        )
        .orderBy(paymentLedger.updatedAt)
        .limit(limit),

    /** How many rows are not resolved yet (in flight, unknown, or settled and undelivered). */
    countUnresolved: async () => {
      const [row] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(paymentLedger)
        .where(
          or(
            inArray(paymentLedger.state, PENDING),
            and(eq(paymentLedger.state, 'settled'), isNull(paymentLedger.fulfilledAt)),
          ),
        )
      return Number(row?.n ?? 0)
    },
  }
}

export type PaymentLedger = ReturnType<typeof createPaymentLedger>
