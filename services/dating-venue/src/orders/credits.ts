import type { AnyTransaction } from '@agents/service-kit/db'
import { eq, sql } from 'drizzle-orm'
import type { ErasedTables } from '../db/erased-tables.ts'
import type { VenueDatabase } from '../db/open.ts'
import { creditBalances, creditEvents } from '../db/schema.ts'
import { USDC } from './usdc.ts'

/** The spec's chat credits: 25 per 1 USDC, never expiring. */
export const CREDITS_PER_USDC = 25n

/**
 * What one answer costs in chat credits once the day's free messages are
 * used. The spec gives 25 credits per 1 USDC and 15 messages per 2.00 USDC
 * top-up without relating them: a message is 3 credits, so a top-up's 50
 * credits cover its 15 messages (with 5 to spare) and a 5.00 USDC refund
 * (125 credits) buys 41.
 */
export const CREDITS_PER_MESSAGE = 3

/**
 * The credits a refund of `amountAtomic` buys, rounded up in the owner's
 * favour (0.10 USDC is 2.5 credits: 3).
 *
 * @example creditsFor(5_000_000n) // 125
 */
export const creditsFor = (amountAtomic: bigint) =>
  Number((amountAtomic * CREDITS_PER_USDC + USDC - 1n) / USDC)

type Executor = AnyTransaction | VenueDatabase['db']

const addToBalance = (db: Executor, wallet: string, credits: number) =>
  db
    .insert(creditBalances)
    .values({ wallet, credits })
    .onConflictDoUpdate({
      target: creditBalances.wallet,
      set: { credits: sql`${creditBalances.credits} + ${credits}` },
    })

/**
 * Credits a wallet for an order the venue took money for and could not
 * deliver (or, with `reason: 'topup'`, for a chat top-up it sold): at most
 * once per order (a second call credits nothing and says so). The event and
 * the balance move together: run it in a transaction (the delivery's).
 */
export const creditUndelivered = async (
  tx: Executor,
  {
    wallet,
    orderId,
    amountAtomic,
    reason = 'undelivered',
  }: { wallet: string; orderId: string; amountAtomic: bigint; reason?: string },
) => {
  const credits = creditsFor(amountAtomic)
  const owner = wallet.toLowerCase()
  const inserted = await tx
    .insert(creditEvents)
    .values({ wallet: owner, orderId, credits, reason })
    .onConflictDoNothing({ target: creditEvents.orderId })
    .returning({ id: creditEvents.id })
  if (inserted.length > 0) await addToBalance(tx, owner, credits)
  return { credited: inserted.length > 0, credits }
}

/** Adds credits with a reason (a top-up, a message given back, an operator's credit). */
export const grantCredits = (
  db: VenueDatabase['db'],
  wallet: string,
  credits: number,
  reason: string,
) =>
  db.transaction(async (tx) => {
    const owner = wallet.toLowerCase()
    await tx.insert(creditEvents).values({ wallet: owner, credits, reason })
    await addToBalance(tx, owner, credits)
  })

/** A wallet's credit balance. */
export const creditBalance = async (db: Executor, wallet: string) => {
  const [row] = await db
    .select({ credits: creditBalances.credits })
    .from(creditBalances)
    .where(eq(creditBalances.wallet, wallet.toLowerCase()))
  return row?.credits ?? 0
}

/**
 * What erasing an owner means for the credits (erasure/erase-owner.ts runs
 * it in its one transaction): its wallet's events and balance go. (A refund
 * event's order id follows its anonymized order: ordersErasure.)
 */
export const creditsErasure = {
  erases: { credit_events: 'deleted', credit_balances: 'deleted' } satisfies ErasedTables,
  /** `wallet` as the erasure holds it: an EVM address in lower case, as credits store it. */
  remove: async (tx: AnyTransaction, wallet: string) => {
    await tx.execute(sql`DELETE FROM credit_events WHERE wallet = ${wallet}`)
    await tx.execute(sql`DELETE FROM credit_balances WHERE wallet = ${wallet}`)
  },
}
