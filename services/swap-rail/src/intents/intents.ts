import { refusalOf } from '@agents/service-kit'
import { z } from '@hono/zod-openapi'
import { eq } from 'drizzle-orm'
import { getAddress } from 'viem'
import {
  type IntentRow,
  intents,
  type MatchRow,
  matches,
  type OfferRow,
  offers,
} from '../db/schema.ts'
import type { SwapDeps } from '../deps.ts'
import { BookFull, type BookRefusal } from '../limits/book-bounds.ts'
import { matchView } from '../matches/matches.ts'
import { matchOpenIntent } from '../matching/match-book.ts'
import { formatUsd, UsdAmount } from '../money.ts'
import { EvmAddress, ModelId, Mtok } from '../offers/offer-schemas.ts'
import { fileBoundedIntent } from './file-bounded-intent.ts'

export const CreateIntentBody = (limits: SwapDeps['limits']) =>
  z
    .object({
      model: ModelId,
      mtok: Mtok(limits.maxMtok).openapi({ description: 'MTok wanted, all from one offer' }),
      maxPriceUsd: UsdAmount(limits.maxPriceUsd).openapi({
        type: 'string',
        description: 'highest acceptable USD per MTok, at most 6 decimals',
        example: '3',
      }),
      buyer: EvmAddress.optional().openapi({
        description:
          "the buyer's wallet, for the buyer's own records; payment may come from any wallet",
      }),
    })
    .strict()
    .openapi('CreateIntent')

/** An intent as served (`intentView`). */
export const IntentView = z
  .object({
    id: z.string().uuid(),
    status: z.enum(['open', 'matched', 'expired']),
    model: z.string(),
    mtok: z.number().int(),
    maxPriceUsd: z.string().openapi({ description: 'highest acceptable USD per MTok' }),
    buyer: z.string().nullable(),
    createdAt: z.string().datetime(),
    expiresAt: z.string().datetime(),
    matchId: z.string().uuid().nullable().openapi({ description: 'its match, once matched' }),
  })
  .openapi('Intent')

export const intentView = (
  intent: IntentRow,
  matchId: string | null,
): z.infer<typeof IntentView> => ({
  id: intent.id,
  status: intent.status,
  model: intent.model,
  mtok: intent.mtok,
  maxPriceUsd: formatUsd(intent.maxPriceAtomic),
  buyer: intent.buyer,
  createdAt: intent.createdAt.toISOString(),
  expiresAt: intent.expiresAt.toISOString(),
  matchId,
})

export type CreateIntentParameters = {
  model: string
  mtok: number
  maxPriceUsd: bigint
  buyer?: string | undefined
  /** Who files it (`bookClientOf`): the book bound per client; null counts for nobody. */
  client: string | null
}

/**
 * Files an intent and matches it at once when an open offer fits. An offer
 * held by a concurrent matcher is skipped on the first try; a miss is
 * retried once waiting for such locks, so an intent stays open only when no
 * offer fits (or, rarely, one committed a moment later: the sweep catches it).
 * Refused, with nothing written, when the client already holds as many
 * intents waiting or awaiting payment as the book bound allows.
 */
export const createIntent = async (
  deps: SwapDeps,
  input: CreateIntentParameters,
): Promise<
  { intent: IntentRow; match: MatchRow | null; offer: OfferRow | null } | { refused: BookRefusal }
> => {
  const { db } = deps.database
  const filed = await fileBoundedIntent(deps, {
    model: input.model,
    mtok: input.mtok,
    maxPriceAtomic: input.maxPriceUsd,
    buyer: input.buyer ? getAddress(input.buyer) : null,
    clientKey: input.client,
  })
  if ('refused' in filed || filed.match) return filed
  const retried = await matchOpenIntent(db, filed.intent.id, deps.windows, { wait: true })
  if (!retried) return { intent: filed.intent, match: null, offer: null }
  const [offer] = await db.select().from(offers).where(eq(offers.id, retried.offerId))
  return { intent: { ...filed.intent, status: 'matched' }, match: retried, offer: offer! }
}

export const getIntent = async (deps: SwapDeps, id: string) => {
  const [row] = await deps.database.db
    .select({ intent: intents, matchId: matches.id })
    .from(intents)
    .leftJoin(matches, eq(matches.intentId, intents.id))
    .where(eq(intents.id, id))
  return row
}

/**
 * POST /v1/intents and swap_create_intent: the intent and, when matched, the
 * match with its challenge; a full book bound is refused 429 (`BookFull`).
 */
export const postIntent = async (deps: SwapDeps, body: CreateIntentParameters) => {
  const created = await createIntent(deps, body)
  if ('refused' in created) {
    deps.bounds.onFull?.(created.refused.bound)
    return refusalOf(new BookFull(created.refused, deps.windows.intentTtlSeconds))
  }
  const { intent, match, offer } = created
  return {
    intent: intentView(intent, match?.id ?? null),
    match: match && offer ? await matchView(deps, { match, offer }) : null,
  }
}
