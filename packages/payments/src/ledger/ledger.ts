import { type AnyTransaction, rowsOf } from '@agents/service-kit/db'
import { and, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import type { HoldAnswer } from '../sale-answer.ts'
import type { PaymentReceipt } from '../types.ts'
import {
  anonymizedReference,
  anonymizePayments,
  checkAnonymizationKey,
  type PaymentsToAnonymize,
} from './anonymize.ts'
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
  /**
   * `settleAttempts`: settle calls ever sent for this reference, this
   * claim's included. `afresh`: the row did not exist before (else a
   * `failed` one was claimed again).
   */
  | { kind: 'new'; settleAttempts: number; afresh: boolean }
  | { kind: 'refused'; refusal: HoldAnswer }
  | { kind: 'existing'; row: LedgerRow }

const PENDING: LedgerState[] = ['claimed', 'settling', 'unknown']
// Money proven moved is recorded whatever the row said before (even `failed`).
const SETTLEABLE: LedgerState[] = [...PENDING, 'failed']
// Milliseconds, as a JS Date holds them: a row read back compares equal in `unchanged`.
const touched = sql`date_trunc('milliseconds', now())`
const lease = (seconds: number) => sql`now() + make_interval(secs => ${seconds})`

/** Still pending, and (when given) still in the state and version the caller read. */
const unchanged = (expected: LedgerRow | undefined) =>
  expected
    ? and(eq(paymentLedger.state, expected.state), eq(paymentLedger.updatedAt, expected.updatedAt))
    : inArray(paymentLedger.state, PENDING)

/** A jsonb parameter as drizzle writes one: SQL NULL for nothing, else the JSON text. */
const jsonb = (value: unknown) => sql`${value == null ? null : JSON.stringify(value)}::jsonb`

/**
 * The claim's insert: a new row, or a failed reference (nothing moved) taken
 * again, keeping its count of settle calls (this one's added when it is
 * about to settle). Returns `settleAttempts` and `afresh` (xmax is 0 only on
 * a row version this statement inserted). With `anonymized` (the keyed hash
 * of the reference), nothing is written when an erasure left the payment on
 * record under it. Written as SQL rather than with the query builder, which
 * spent 0.5 ms of CPU building it on every paid request (bench/README.md).
 */
const claimStatement = (
  entry: LedgerEntry,
  state: 'claimed' | 'settling',
  leaseSeconds: number,
  anonymized: string | undefined,
) => {
  // Cast: in a SELECT list PostgreSQL would take an untyped parameter as text.
  const row = sql`${entry.reference}::text, ${entry.kind}::text, ${entry.requestKey}::text,
      ${entry.rail}::text, ${entry.network}::text, ${entry.amount.toString()}::bigint,
      ${entry.payTo}::text, ${entry.payer}::text, ${jsonb(entry.proof)}, ${jsonb(entry.order)},
      ${state}::text, ${lease(leaseSeconds)}, ${state === 'settling' ? 1 : 0}::int, ${touched}`
  const source = anonymized
    ? sql`select ${row}
      where not exists (select 1 from payment_ledger where reference = ${anonymized})`
    : sql`values (${row})`
  return sql`insert into payment_ledger (reference, kind, request_key, rail, network, amount, pay_to,
      payer, proof, "order", state, lease_until, settle_attempts, updated_at)
    ${source}
    on conflict (reference) do update set kind = excluded.kind, request_key = excluded.request_key,
      rail = excluded.rail, network = excluded.network, amount = excluded.amount,
      pay_to = excluded.pay_to, payer = excluded.payer, proof = excluded.proof,
      "order" = excluded."order", state = excluded.state, lease_until = excluded.lease_until,
      detail = null, updated_at = excluded.updated_at,
      settle_attempts = payment_ledger.settle_attempts + ${state === 'settling' ? 1 : 0}
    where payment_ledger.state = 'failed'
    returning settle_attempts as "settleAttempts", (xmax = 0) as afresh`
}

/** The claim found the payment on record anonymized: the claim it wrote is undone. */
class AlreadyErased extends Error {
  readonly row: LedgerRow
  constructor(row: LedgerRow) {
    super('already on record, anonymized')
    this.row = row
  }
}

/** Rolls the claim back when the hold answers instead of the sale. */
class Refused extends Error {
  readonly refusal: HoldAnswer
  constructor(refusal: HoldAnswer) {
    super('refused')
    this.refusal = refusal
  }
}

export type PaymentLedgerOptions = {
  /**
   * The key of the keyed hash an erased payment's reference becomes
   * (`anonymizePayments`; at least 32 bytes, the same on every replica and
   * never changed). With it a payment is one-use under either form: the
   * claim and `get` also look for the keyed hash of the reference.
   */
  anonymizationKey?: Uint8Array | undefined
}

/**
 * The payment ledger's transitions. Every transition is one conditional
 * UPDATE (or a transaction holding the row), so racing requests on any
 * number of replicas agree on who does what.
 */
export const createPaymentLedger = (
  db: LedgerDatabase,
  { anonymizationKey }: PaymentLedgerOptions = {},
) => {
  const key = anonymizationKey && checkAnonymizationKey(anonymizationKey)
  const anonymizedOf = (reference: string) => key && anonymizedReference(key, reference)
  const needKey = () => {
    if (!key) throw new Error('the payment ledger has no anonymization key')
    return key
  }
  /** The row of a reference, as sold or anonymized (the one as sold first). */
  const onRecord = async (client: LedgerDatabase | LedgerTx, reference: string) => {
    const anonymized = anonymizedOf(reference)
    const rows = await client
      .select()
      .from(paymentLedger)
      .where(
        anonymized
          ? inArray(paymentLedger.reference, [reference, anonymized])
          : eq(paymentLedger.reference, reference),
      )
    return rows.find((row) => row.reference === reference) ?? rows[0]
  }

  const markSettled = (reference: string, receipt: PaymentReceipt) =>
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
      .where(and(eq(paymentLedger.reference, reference), inArray(paymentLedger.state, SETTLEABLE)))

  const withdraw = (
    reference: string,
    claim: { settleAttempts: number; afresh: boolean },
    detail: string,
    release?: ((tx: LedgerTx) => Promise<void>) | undefined,
  ) =>
    db.transaction(async (tx) => {
      const mine = and(
        eq(paymentLedger.reference, reference),
        eq(paymentLedger.state, 'settling'),
        eq(paymentLedger.settleAttempts, claim.settleAttempts),
      )
      const taken = claim.afresh
        ? await tx
            .delete(paymentLedger)
            .where(mine)
            .returning({ reference: paymentLedger.reference })
        : await tx
            .update(paymentLedger)
            .set({
              state: 'failed',
              detail,
              settleAttempts: claim.settleAttempts - 1,
              leaseUntil: null,
              updatedAt: touched,
            })
            .where(mine)
            .returning({ reference: paymentLedger.reference })
      if (taken.length > 0 && release) await release(tx)
    })

  return {
    db,
    /** The row of a reference; with an anonymization key, also the row an erasure left of it. */
    get: (reference: string) => onRecord(db, reference),

    /** The keyed hash `anonymizePayments` gives this reference (this ledger's key). */
    anonymizedReference: (reference: string) => anonymizedReference(needKey(), reference),

    /**
     * Erasure in the caller's transaction (`anonymizePayments`, this
     * ledger's key): the matching rows keep their amounts and lose their
     * payer; the same payment presented again is still refused as used.
     */
    anonymize: (tx: LedgerTx, payments: PaymentsToAnonymize) =>
      anonymizePayments(tx, needKey(), payments),

    /**
     * Writes the row, leased, and, in the same transaction, lets the
     * product reserve what is sold (`hold`). `settling` when the caller
     * sends the settle call next (the payment was verified first), else
     * `claimed`. A reference that failed before (nothing moved) is claimed
     * afresh, keeping its count of settle calls: a settle sent before is
     * always checked on-chain. Any other existing row is handed back,
     * the row an erasure anonymized included (its request key is cleared,
     * so the sale refuses it as used). A claim the payment's check then
     * refuses is `withdraw`n.
     */
    claim: async (
      entry: LedgerEntry,
      {
        leaseSeconds,
        hold,
        state = 'claimed',
      }: {
        leaseSeconds: number
        hold?: ((tx: LedgerTx) => Promise<HoldAnswer | undefined>) | undefined
        state?: 'claimed' | 'settling'
      },
    ): Promise<ClaimResult> => {
      const anonymized = anonymizedOf(entry.reference)
      const insert = claimStatement(entry, state, leaseSeconds, anonymized)
      const write = async (client: LedgerDatabase | LedgerTx): Promise<ClaimResult> => {
        const [inserted] = rowsOf<{ settleAttempts: number; afresh: boolean }>(
          await client.execute(insert),
        )
        if (!inserted) return { kind: 'existing', row: (await onRecord(client, entry.reference))! }
        if (anonymized && inserted.afresh) {
          // PostgreSQL: an erasure that renamed this reference while the insert waited on its
          // row committed after the insert's snapshot; a statement of its own sees it.
          const [erased] = rowsOf(
            await client.execute(sql`select 1 from payment_ledger where reference = ${anonymized}`),
          )
          if (erased) throw new AlreadyErased((await onRecord(client, anonymized))!)
        }
        return { kind: 'new', settleAttempts: inserted.settleAttempts, afresh: inserted.afresh }
      }
      // Without a hold the claim is one statement (a second, a read, for a new payment with an
      // anonymization key): no transaction to open and commit.
      if (!hold)
        return write(db).catch(async (error: unknown) => {
          if (!(error instanceof AlreadyErased)) throw error
          await db
            .delete(paymentLedger)
            .where(
              and(eq(paymentLedger.reference, entry.reference), eq(paymentLedger.state, state)),
            )
          return { kind: 'existing', row: error.row }
        })
      try {
        return await db.transaction(async (tx) => {
          const claimed = await write(tx)
          if (claimed.kind !== 'new') return claimed
          const refusal = await hold(tx)
          if (refusal) throw new Refused(refusal)
          return claimed
        })
      } catch (error) {
        if (error instanceof Refused) return { kind: 'refused', refusal: error.refusal }
        if (error instanceof AlreadyErased) return { kind: 'existing', row: error.row }
        throw error
      }
    },

    /**
     * Takes back a `settling` claim whose payment was refused before any
     * settle call went out (the check ran while the claim committed): a row
     * this claim created is removed, a `failed` one claimed again is failed
     * again (`detail`: why) with its count of settle calls as before, and the product gives
     * back what it held, in one transaction. As if the claim had never been.
     */
    withdraw,

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
    markSettled,

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
     * caller waits on the lock and reads the first one's fulfilment. With
     * `settled`, a row still pending is marked settled by the same
     * transaction (one commit for both); if the delivery fails, the
     * settlement is still recorded on its own.
     */
    deliver: async <fulfilment>(
      reference: string,
      fulfil: (tx: LedgerTx, row: LedgerRow) => Promise<fulfilment>,
      { settled }: { settled?: PaymentReceipt } = {},
    ): Promise<{ fulfilment: fulfilment; row: LedgerRow }> => {
      try {
        return await db.transaction(async (tx) => {
          const [locked] = await tx
            .select()
            .from(paymentLedger)
            .where(eq(paymentLedger.reference, reference))
            .for('update')
          const row =
            settled && locked && SETTLEABLE.includes(locked.state)
              ? { ...locked, state: 'settled' as const, receipt: settled, payer: settled.payer }
              : locked
          if (row?.state !== 'settled')
            throw new Error(`payment ${reference} is not settled (${row?.state ?? 'no row'})`)
          if (row.fulfilledAt) return { fulfilment: row.fulfilment as fulfilment, row }
          const fulfilment = await fulfil(tx, row)
          const [delivered] = await tx
            .update(paymentLedger)
            .set({
              ...(row.state !== locked!.state
                ? {
                    state: 'settled',
                    receipt: settled,
                    payer: settled!.payer,
                    leaseUntil: null,
                    settledAt: sql`now()`,
                  }
                : {}),
              fulfilment: fulfilment as unknown,
              fulfilledAt: sql`now()`,
              // Delivered: the order's copy of the request (private text) is no longer needed.
              order: null,
              updatedAt: touched,
            })
            .where(eq(paymentLedger.reference, reference))
            .returning()
          return { fulfilment, row: delivered! }
        })
      } catch (error) {
        // The money moved whatever happened to the delivery: keep that, if the database lets us.
        if (settled) await markSettled(reference, settled).catch(() => {})
        throw error
      }
    },

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
