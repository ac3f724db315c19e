import { type Refusal, refusal } from '@agents/service-kit'
import { eq } from 'drizzle-orm'
import { ADMISSION_REASONS } from '../admission/admission-errors.ts'
import { runChaperone } from '../admission/chaperone.ts'
import { admitPersona, HELD_FOR_REVIEW, settleReview } from '../admission/persona-state.ts'
import { seatKindOf, takeSeat } from '../admission/seats.ts'
import { events, personas } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import type { Heart } from '../heart/heart-schema.ts'
import { embedInBackground } from '../persona-vectors/embed-personas.ts'

export const REVIEW_ERRORS = {
  invalidReview: 'invalid review',
  noSuchPersona: 'no such persona',
  notHeldForReview: 'this persona is not held for review',
  safetyUnavailable: 'safety check unavailable: the persona stays held for review; retry later',
} as const

export type ReviewParameters = {
  personaId: number
  decision: 'approve' | 'reject'
  reason?: string | undefined
  /** Who decided (a console wallet, or `token`): named in the event. */
  operator: string
}

export type ReviewAnswer = {
  personaId: number
  decision: 'approve' | 'reject'
  status: 'admitted' | 'pending' | 'rejected'
  admitted: boolean
  reason: string
}

export type ReviewOutcome = { ok: true; answer: ReviewAnswer } | Refusal<404 | 409 | 503>

/**
 * POST /admin/actions/review: the operator's decision on a persona held for
 * review. Approval runs the admission gates a persona entered by an agent
 * meets: the chaperone on the heart (again: the rules may have moved since
 * the submission), then capacity. With no seat free the persona is approved
 * into `pending`, like any admission at the cap: the match beat seats it when
 * one frees. A rejection records the operator's reason. Both are events.
 */
export const reviewPersona = async (
  deps: VenueDeps,
  { personaId, decision, reason, operator }: ReviewParameters,
): Promise<ReviewOutcome> => {
  const { db } = deps.database
  const [persona] = await db
    .select({
      status: personas.status,
      reason: personas.reason,
      heart: personas.heart,
      ownerId: personas.ownerId,
    })
    .from(personas)
    .where(eq(personas.id, personaId))
  if (!persona) return refusal(404, REVIEW_ERRORS.noSuchPersona)
  if (persona.status !== 'held' || persona.reason !== HELD_FOR_REVIEW)
    return notHeld(persona.status)

  if (decision === 'reject') {
    const recorded = `rejected on review: ${reason ?? 'no reason given'}`
    return settle(deps, { personaId, operator }, { status: 'rejected', reason: recorded }, () => ({
      personaId,
      decision,
      status: 'rejected',
      admitted: false,
      reason: recorded,
    }))
  }

  const verdict = await runChaperone(deps, persona.heart as Heart)
  if (verdict.unavailable) return refusal(503, REVIEW_ERRORS.safetyUnavailable)
  if (verdict.verdict !== 'allow')
    return settle(
      deps,
      { personaId, operator },
      { status: 'rejected', reason: verdict.reason },
      () => ({
        personaId,
        decision,
        status: 'rejected',
        admitted: false,
        reason: verdict.reason,
      }),
    )

  const outcome = await db.transaction(async (tx) => {
    // The conditional UPDATE is the lock: of two reviews of one persona, only one moves it.
    if (!(await settleReview(tx, personaId, { status: 'pending' }))) return undefined
    const seated = await takeSeat(tx, deps.settings, seatKindOf(persona.ownerId))
    if (seated) await admitPersona(tx, personaId)
    await tx.insert(events).values({
      kind: 'review_approved',
      detail: { personaId, operator, admitted: seated, ...(reason ? { reason } : {}) },
    })
    return seated
  })
  if (outcome === undefined) return notHeld(await currentStatus(deps, personaId))
  // Off the request path, like any admission: the answer never waits for the model.
  if (outcome) embedInBackground(deps, personaId)
  return {
    ok: true,
    answer: {
      personaId,
      decision,
      status: outcome ? 'admitted' : 'pending',
      admitted: outcome,
      reason: outcome ? ADMISSION_REASONS.admitted : ADMISSION_REASONS.capReached,
    },
  }
}

const notHeld = (status: string | undefined) =>
  refusal(409, REVIEW_ERRORS.notHeldForReview, status ? { currentStatus: status } : {})

const currentStatus = async (deps: VenueDeps, personaId: number) =>
  (
    await deps.database.db
      .select({ status: personas.status })
      .from(personas)
      .where(eq(personas.id, personaId))
  )[0]?.status

/** A rejection (the operator's or the chaperone's), with its event; 409 when another review won. */
const settle = async (
  deps: VenueDeps,
  { personaId, operator }: { personaId: number; operator: string },
  outcome: { status: 'rejected'; reason: string },
  answer: () => ReviewAnswer,
): Promise<ReviewOutcome> => {
  const moved = await deps.database.db.transaction(async (tx) => {
    if (!(await settleReview(tx, personaId, outcome))) return false
    await tx
      .insert(events)
      .values({ kind: 'review_rejected', detail: { personaId, operator, reason: outcome.reason } })
    return true
  })
  if (!moved) return notHeld(await currentStatus(deps, personaId))
  return { ok: true, answer: answer() }
}
