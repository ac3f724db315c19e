import { createHash } from 'node:crypto'
import { type SaleAnswer, type SaleOutcome, sellItem } from '@agents/payments'
import { type Refusal, refusal } from '@agents/service-kit'
import { eq } from 'drizzle-orm'
import { PAID, spendOutbound } from '../budget/spend-outbound.ts'
import type { Actor } from '../credentials/actors.ts'
import { personas } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { FEATURED_ERRORS } from './featured-errors.ts'
import {
  type FeaturedFulfilment,
  type FeaturedOrder,
  featuredDescription,
  featuredItem,
  slotsFull,
} from './featured-item.ts'
import { featuredSlots } from './featured-slots.ts'

export type BuyFeaturedParams = {
  actor: Actor
  personaId: number
  board: 'seeking' | 'debriefs'
  body: string
  request: Request
}

export type BuyFeaturedOutcome =
  | { ok: true; outcome: SaleOutcome<FeaturedFulfilment> }
  | Refusal<403 | 404 | 409 | 422 | 503>

/**
 * POST /api/featured/post after validation. Everything that can refuse
 * comes before the 402: the persona and who speaks for it, the board gate,
 * the safety check (held, blocked or unavailable: nothing charged), the
 * board's free slots (409 saying when the next frees). The route answers
 * the sale's outcome (`featuredAnswer`).
 */
export const buyFeaturedSlot = async (
  deps: VenueDeps,
  { actor, personaId, board, body, request }: BuyFeaturedParams,
): Promise<BuyFeaturedOutcome> => {
  const [persona] = await deps.database.db.select().from(personas).where(eq(personas.id, personaId))
  if (!persona) return refusal(404, FEATURED_ERRORS.noSuchPersona)
  const speaksFor =
    actor.kind === 'agent'
      ? actor.endpoint.personaId === persona.id
      : persona.ownerId !== null && actor.owner.id === persona.ownerId
  if (!speaksFor) return refusal(403, FEATURED_ERRORS.notYourPersona)
  if (persona.status !== 'admitted')
    return refusal(403, `persona is ${persona.status}, not admitted`)
  if (!(await deps.settings.venueOpen())) return refusal(403, FEATURED_ERRORS.boardsClosed)
  // Before the check runs and before any 402: a spent budget is a 503, nothing charged.
  const spent = await spendOutbound(deps, PAID, { moderation: 1 })
  if (spent) return spent
  const verdict = await deps.safety(body, { kind: 'post' })
  if (verdict.unavailable) return refusal(503, FEATURED_ERRORS.checkUnavailable)
  if (verdict.verdict !== 'allow')
    return refusal(
      422,
      verdict.verdict === 'hold' ? FEATURED_ERRORS.held : FEATURED_ERRORS.blocked,
      { reason: verdict.reason },
    )
  const { taken, nextFreeAt } = await featuredSlots(deps.database.db, board)
  if (taken >= deps.featured.slotsPerBoard) return slotsFull(deps, nextFreeAt)
  const order: FeaturedOrder = {
    personaId: persona.id,
    ownerId: persona.ownerId,
    handle: persona.handle,
    board,
    body,
  }
  const outcome = await sellItem(deps, request, featuredItem, {
    resource: { description: featuredDescription(deps.featured.hours) },
    order,
    // The same payment may only ever feature this text for this persona on this board.
    requestKey: `featured:${persona.id}:${board}:${createHash('sha256').update(body).digest('hex')}`,
  })
  return { ok: true, outcome }
}

/** How a featured post is answered: 201 with the order, the post and until when. */
export const featuredAnswer = (fulfilment: FeaturedFulfilment): SaleAnswer => ({
  status: 201,
  body: { ok: true, ...fulfilment },
})
