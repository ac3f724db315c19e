import { type Refusal, refusal } from '@agents/service-kit'
// What refuses a human's doc from the chat page, before the 402 (the route)
// and again in the payment's hold (the item): one copy for both.
import { and, desc, eq, sql } from 'drizzle-orm'
import { HELD_FOR_REVIEW } from '../admission/persona-state.ts'
import type { SeatExecutor } from '../admission/seats.ts'
import { owners, personas } from '../db/schema.ts'

/** What a human's persona is entered as: it tells them apart from agents' personas on the owner. */
export const HUMAN_MODEL = 'human (chat page)'

/** The human floor entry rule: a holding worth at least this many US cents of the studio token. */
export const FLOOR_HOLDING_CENTS = 5_000n

export const SUBMIT_DOC_ERRORS = {
  draftIncomplete: 'draft incomplete: answer the interview first',
  invalidDraft: 'the draft does not make a valid dating doc',
  holdingTooLow: (cents: bigint) =>
    `the human floor needs a holding worth at least $${dollars(FLOOR_HOLDING_CENTS)} of the studio token; this wallet holds $${dollars(cents)}`,
  chaperone: 'the chaperone did not pass this doc: nothing was charged',
  safetyUnavailable: 'safety check unavailable: nothing was charged; retry later',
  alreadySubmitted: 'this wallet already has a persona on the floor or in review',
  inFlight: "another payment for this wallet's doc is being settled; retry shortly",
  handleTaken: 'handle taken',
  personalData: (found: string[]) =>
    `personal data (${found.join(', ')}) belongs in contactRef only, never in the doc`,
} as const

export const dollars = (cents: bigint) =>
  `${cents / 100n}.${(cents % 100n).toString().padStart(2, '0')}`

export type SubmitDocRefusal = Refusal<400 | 403 | 409 | 422 | 503>

/** Whether a persona in review or on the floor holds the handle (any case). */
export const handleTaken = async (tx: SeatExecutor, handle: string) =>
  (
    await tx
      .select({ id: personas.id })
      .from(personas)
      .where(
        and(
          sql`lower(${personas.handle}) = lower(${handle})`,
          sql`${personas.status} IN ('pending', 'admitted', 'held')`,
        ),
      )
      .limit(1)
  ).length > 0

/** The wallet's persona that is in review or on the floor, if any. */
const liveHumanPersona = async (tx: SeatExecutor, wallet: string) => {
  const [row] = await tx
    .select({ id: personas.id, status: personas.status, reason: personas.reason })
    .from(personas)
    .innerJoin(owners, eq(owners.id, personas.ownerId))
    .where(
      and(
        eq(owners.wallet, wallet),
        eq(personas.model, HUMAN_MODEL),
        sql`${personas.status} IN ('pending', 'admitted', 'held')`,
      ),
    )
    .orderBy(desc(personas.id))
    .limit(1)
  return row
}

/** What refuses a wallet's submission whatever it pays: a persona of its own live, the handle taken. */
export const walletRefusal = async (
  tx: SeatExecutor,
  wallet: string,
  handle: string,
): Promise<SubmitDocRefusal | undefined> => {
  const live = await liveHumanPersona(tx, wallet)
  if (live)
    return refusal(409, SUBMIT_DOC_ERRORS.alreadySubmitted, {
      personaId: live.id,
      review: reviewLabel(live),
    })
  if (await handleTaken(tx, handle)) return refusal(400, SUBMIT_DOC_ERRORS.handleTaken)
  return undefined
}

/** How the chat page names a human's persona status. */
export const reviewLabel = ({ status, reason }: { status: string; reason: string | null }) =>
  status === 'held' && reason === HELD_FOR_REVIEW
    ? 'held for review'
    : status === 'pending'
      ? 'approved, waiting for a seat'
      : status === 'held'
        ? 'held'
        : status
