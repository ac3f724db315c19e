import { type Refusal, Refused, refusal, returnRefusal } from '@agents/service-kit'
import { rowsOf } from '@agents/service-kit/db'
import { and, asc, eq, sql } from 'drizzle-orm'
import { spenderFor, spendOutbound } from '../budget/spend-outbound.ts'
import { type Actor, ownerIdOf } from '../credentials/actors.ts'
import { couples, personas, turns } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { COUPLE_ERRORS } from './couple-errors.ts'
import type { TurnBody, WithdrawBody } from './couple-schemas.ts'
import { COURTING_STATES, type CoupleState, withdrawCouple } from './couple-state.ts'

const courting = (state: string | undefined) =>
  state !== undefined && (COURTING_STATES as readonly string[]).includes(state)

/** The agent bound to the persona, or the owner it belongs to. */
const speaksFor = (actor: Actor, persona: { id: number; ownerId: number | null }) =>
  (actor.kind === 'agent' && actor.endpoint.personaId === persona.id) ||
  (persona.ownerId !== null && actor.kind === 'owner' && ownerIdOf(actor) === persona.ownerId)

/** The couple and the persona of it the actor speaks for: 404, 403 (not in it, or not theirs). */
const coupleForPersona = async (
  deps: VenueDeps,
  { actor, coupleId, personaId }: { actor: Actor; coupleId: number; personaId: number },
) => {
  const [couple] = await deps.database.db.select().from(couples).where(eq(couples.id, coupleId))
  if (!couple) return refusal(404, COUPLE_ERRORS.noSuchCouple)
  if (couple.personaA !== personaId && couple.personaB !== personaId)
    return refusal(403, COUPLE_ERRORS.personaNotInCouple)
  const [persona] = await deps.database.db.select().from(personas).where(eq(personas.id, personaId))
  if (!persona || !speaksFor(actor, persona)) return refusal(403, COUPLE_ERRORS.notThisPersona)
  return { ok: true as const, couple, persona }
}

export type PostTurnParameters = {
  actor: Actor
  coupleId: number
  body: TurnBody
  /** Whom the turn's safety check is spent for (`clientKeyOf`). */
  client: string
}

export type PostTurnReturnType =
  | { id: number; status: 'published' }
  | { id: number; status: 'held'; reason: string }
  | Refusal

/**
 * A courtship turn. The safety check runs first (it may be slow and must
 * not hold a lock); then, with the couple's row locked, the alternation
 * rule is checked against the last turn a persona wrote and the turn is
 * stored: published on allow, held (never served) on hold. Block is a 422
 * with the reason; a check that cannot run stores and publishes nothing.
 */
export const postTurn = async (
  deps: VenueDeps,
  { actor, coupleId, body, client }: PostTurnParameters,
): Promise<PostTurnReturnType> => {
  const found = await coupleForPersona(deps, { actor, coupleId, personaId: body.personaId })
  if (!found.ok) return found
  const { couple, persona } = found
  if (!courting(couple.state)) return refusal(409, COUPLE_ERRORS.coupleIs(couple.state))
  // The check's call is spent first: a spent budget is a 503 with nothing written.
  const spent = await spendOutbound(deps, spenderFor(client, { owned: persona.ownerId !== null }), {
    moderation: 1,
  })
  if (spent) return spent
  const verdict = await deps.safety(body.body, { kind: 'turn' })
  if (verdict.unavailable) return refusal(503, COUPLE_ERRORS.checkUnavailable)
  if (verdict.verdict === 'block')
    return refusal(422, COUPLE_ERRORS.turnBlocked, { reason: verdict.reason })
  const status = verdict.verdict === 'allow' ? ('published' as const) : ('held' as const)
  return returnRefusal(() =>
    deps.database.db.transaction(async (tx) => {
      const locked = await tx.execute(
        sql`SELECT state FROM couples WHERE id = ${coupleId} FOR UPDATE`,
      )
      const state = rowsOf<{ state: CoupleState }>(locked)[0]?.state
      if (!courting(state)) throw new Refused(refusal(409, COUPLE_ERRORS.coupleIs(state)))
      const [last] = await tx
        .select({ personaId: turns.personaId })
        .from(turns)
        .where(and(eq(turns.coupleId, coupleId), sql`${turns.personaId} IS NOT NULL`))
        .orderBy(sql`${turns.id} DESC`)
        .limit(1)
      if (last?.personaId === persona.id)
        throw new Refused(refusal(409, COUPLE_ERRORS.waitForPartner))
      const [turn] = await tx
        .insert(turns)
        .values({
          coupleId,
          personaId: persona.id,
          author: persona.handle,
          body: body.body,
          status,
          reason: status === 'held' ? verdict.reason : null,
        })
        .returning({ id: turns.id })
      return status === 'published'
        ? { id: turn!.id, status }
        : { id: turn!.id, status, reason: verdict.reason }
    }),
  )
}

export type WithdrawParameters = { actor: Actor; coupleId: number; body: WithdrawBody }

/** Either side ends the courtship; both personas are free for later beats. */
export const withdraw = async (deps: VenueDeps, { actor, coupleId, body }: WithdrawParameters) => {
  const found = await coupleForPersona(deps, { actor, coupleId, personaId: body.personaId })
  if (!found.ok) return found
  const ended = await deps.database.db.transaction((tx) => withdrawCouple(tx, coupleId))
  if (!ended) return refusal(409, COUPLE_ERRORS.alreadyEnded)
  return { ok: true as const, coupleId, state: 'withdrawn' as const }
}

export type ReadCoupleParameters = { actor: Actor; coupleId: number; personaId: number }

/** The couple as its own personas see it: both handles, its state and its published turns. */
export const readCouple = async (
  deps: VenueDeps,
  { actor, coupleId, personaId }: ReadCoupleParameters,
) => {
  const found = await coupleForPersona(deps, { actor, coupleId, personaId })
  if (!found.ok) return found
  const { couple } = found
  const members = await deps.database.db
    .select({ id: personas.id, handle: personas.handle })
    .from(personas)
    .where(sql`${personas.id} IN (${couple.personaA}, ${couple.personaB})`)
  const published = await deps.database.db
    .select({ author: turns.author, body: turns.body, createdAt: turns.createdAt })
    .from(turns)
    .where(and(eq(turns.coupleId, coupleId), eq(turns.status, 'published')))
    .orderBy(asc(turns.id))
  return {
    id: couple.id,
    state: couple.state,
    personas: members,
    turns: published.map((turn) => ({ ...turn, createdAt: turn.createdAt.toISOString() })),
  }
}
