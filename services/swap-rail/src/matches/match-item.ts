import { definePaidItem } from '@agents/payments'
import { refusal } from '@agents/service-kit'
import { rowsOf } from '@agents/service-kit/db'
import { and, eq, sql } from 'drizzle-orm'
import { matches } from '../db/schema.ts'
import type { SwapDeps } from '../deps.ts'

export type MatchOrder = { matchId: string }
export type MatchFulfilment = { matchId: string; closed?: true }

/**
 * Paying a match, the rail's one paid item: the match is held for the
 * payment in the claim's transaction (so the sweep leaves it and a second
 * payment is refused before anything settles), paid in the delivery's
 * transaction, and given back if the payment fails. Each match has its own
 * price (its gross, to its split): the route passes it to `sellItem`.
 */
export const matchItem = definePaidItem({
  kind: 'swap_match',
  method: 'post',
  path: '/v1/matches/{id}/pay',
  body: 'minimal',
  what: 'a match paid: the grant to call its seller',
  description: 'Pay a match',
  product: (deps: SwapDeps) => ({
    hold: async (tx, { matchId }: MatchOrder, reference) => {
      const held = await tx.execute(sql`
        UPDATE swap_matches SET settling_reference = ${reference}
        WHERE id = ${matchId} AND status = 'awaiting_payment' AND pay_by > now()
          AND (settling_reference IS NULL OR settling_reference = ${reference})
        RETURNING id`)
      if (rowsOf<Record<string, unknown>>(held).length === 1) return undefined
      const [match] = rowsOf<Record<string, unknown>>(
        await tx.execute(
          sql`SELECT status, pay_by <= now() AS over FROM swap_matches WHERE id = ${matchId}`,
        ),
      )
      if (match?.status === 'paid')
        return refusal(409, 'match already paid', { match: `/v1/matches/${matchId}` })
      if (!match || match.status === 'expired' || match.over === true)
        return refusal(410, 'payment window ended: post a new intent')
      return refusal(409, 'a payment for this match is already being settled')
    },
    release: async (tx, { matchId }, reference) => {
      await tx.execute(sql`
        UPDATE swap_matches SET settling_reference = NULL
        WHERE id = ${matchId} AND settling_reference = ${reference}`)
    },
    fulfil: async (tx, { matchId }, receipt): Promise<MatchFulfilment> => {
      const [paid] = await tx
        .update(matches)
        .set({ status: 'paid', paidAt: sql`now()`, settlingReference: null, payment: receipt })
        .where(and(eq(matches.id, matchId), eq(matches.status, 'awaiting_payment')))
        .returning({ id: matches.id })
      if (paid) return { matchId }
      // Unreachable while the hold stands; logged loudly because money moved.
      deps.logger.error({ matchId, receipt }, 'payment settled for a closed match')
      return { matchId, closed: true }
    },
  }),
})

/** The rail's paid items: what its reconciler delivers (`productsOf(PAID_ITEMS, deps)`). */
export const PAID_ITEMS = [matchItem] as const
