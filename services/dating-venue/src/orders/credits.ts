import type { AnyTransaction } from '@agents/service-kit/db'
import { eq, sql } from 'drizzle-orm'
import type { VenueDatabase } from '../db/open.ts'
import { creditEvents } from '../db/schema.ts'
import { USDC } from './usdc.ts'

/** The spec's chat credits: 25 per 1 USDC, never expiring. */
export const CREDITS_PER_USDC = 25n

/**
 * The credits a refund of `amountAtomic` buys, rounded up in the owner's
 * favour (0.10 USDC is 2.5 credits: 3).
 *
 * @example creditsFor(5_000_000n) // 125
 */
export const creditsFor = (amountAtomic: bigint) =>
  Number((amountAtomic * CREDITS_PER_USDC + USDC - 1n) / USDC)

/**
 * Credits a wallet for an order the venue took money for and could not
 * deliver: at most once per order (a second call credits nothing and says
 * so). Runs in the caller's transaction.
 */
export const creditUndelivered = async (
  tx: AnyTransaction | VenueDatabase['db'],
  { wallet, orderId, amountAtomic }: { wallet: string; orderId: string; amountAtomic: bigint },
) => {
  const credits = creditsFor(amountAtomic)
  const inserted = await tx
    .insert(creditEvents)
    .values({ wallet: wallet.toLowerCase(), orderId, credits, reason: 'undelivered' })
    .onConflictDoNothing({ target: creditEvents.orderId })
    .returning({ id: creditEvents.id })
  return { credited: inserted.length > 0, credits }
}

/** A wallet's credit balance: every credit and spend, summed. */
export const creditBalance = async (db: AnyTransaction | VenueDatabase['db'], wallet: string) => {
  const [row] = await db
    .select({ credits: sql<number>`coalesce(sum(${creditEvents.credits}), 0)::int` })
    .from(creditEvents)
    .where(eq(creditEvents.wallet, wallet.toLowerCase()))
  return row?.credits ?? 0
}
