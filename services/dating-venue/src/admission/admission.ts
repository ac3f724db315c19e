import { isUniqueViolation, rowsOf } from '@agents/service-kit/db'
import { and, sql } from 'drizzle-orm'
import { bindEndpointToPersona } from '../agents/endpoint-state.ts'
import { type Actor, ownerIdOf } from '../credentials/actors.ts'
import { personas } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { embedInBackground } from '../matchmaking/embed-personas.ts'
import { ADMISSION_ERRORS, ADMISSION_REASONS } from './admission-errors.ts'
import type { PersonaAnswer, PersonaBody } from './admission-schemas.ts'
import { runChaperone } from './chaperone.ts'
import { admitPersona, insertPersona } from './persona-state.ts'
import { takeSeat } from './seats.ts'

export { releaseSeat } from './seats.ts'

export type SubmitPersonaParameters = {
  /** Who sent the request, if a credential came with it. */
  actor: Actor | undefined
  body: PersonaBody
}

export type SubmitPersonaReturnType =
  | { ok: true; answer: PersonaAnswer }
  | {
      ok: false
      status: 400 | 401 | 403 | 409
      error: string
      issues?: Array<{ code: string; path: string[]; message: string }>
    }

const handleTaken = {
  ok: false,
  status: 400,
  error: ADMISSION_ERRORS.invalidPersona,
  issues: [{ code: 'custom', path: ['handle'], message: ADMISSION_ERRORS.handleTaken }],
} as const satisfies SubmitPersonaReturnType

const endpointBound = {
  ok: false,
  status: 409,
  error: ADMISSION_ERRORS.endpointBound,
} as const satisfies SubmitPersonaReturnType

/** Thrown inside the admission transaction to roll it back. */
class EndpointAlreadyBound extends Error {}

/**
 * POST /api/personas: the gates in the spec's order (adult, chaperone,
 * capacity). A credential is needed to bind the persona to an owner
 * (`ownerId`); an agent credential also binds it to that agent endpoint,
 * which then acts for the persona.
 */
export const submitPersona = async (
  deps: VenueDeps,
  { actor, body }: SubmitPersonaParameters,
): Promise<SubmitPersonaReturnType> => {
  if (body.ownerId !== undefined && !actor)
    return {
      ok: false,
      status: 401,
      error: `credential required: ${ADMISSION_ERRORS.bindingWhat}`,
    }
  if (actor) {
    if (body.ownerId !== undefined && ownerIdOf(actor) !== body.ownerId)
      return { ok: false, status: 403, error: ADMISSION_ERRORS.notThisOwner }
    if (actor.kind === 'agent' && actor.endpoint.personaId !== null) return endpointBound
  }
  const { db } = deps.database
  const [taken] = await db
    .select({ id: personas.id })
    .from(personas)
    .where(
      and(
        sql`lower(${personas.handle}) = lower(${body.handle})`,
        sql`${personas.status} IN ('pending', 'admitted', 'held')`,
      ),
    )
  if (taken) return handleTaken

  if (body.persona_age !== '18+')
    return { ok: true, answer: { admitted: false, reason: ADMISSION_REASONS.adultOnly } }

  const verdict = await runChaperone(deps, body.heart)
  const ownerId = body.ownerId ?? (actor ? (ownerIdOf(actor) ?? null) : null)
  const values = {
    handle: body.handle,
    model: body.model,
    heart: body.heart,
    redteam: body.redteam ?? false,
    ownerId,
    homeMarket: body.homeMarket ?? null,
    activeMarket: body.activeMarket ?? null,
  }
  if (verdict.verdict !== 'allow') {
    const personaId = await insertPersona(db, values, {
      status: 'rejected',
      reason: verdict.reason,
    })
    return { ok: true, answer: { admitted: false, reason: verdict.reason, personaId } }
  }

  try {
    const answer = await db.transaction(async (tx): Promise<PersonaAnswer> => {
      const personaId = await insertPersona(tx, values, { status: 'pending' })
      if (
        actor?.kind === 'agent' &&
        !(await bindEndpointToPersona(tx, actor.endpoint.id, personaId))
      )
        throw new EndpointAlreadyBound()
      if (!(await takeSeat(tx, deps.settings.capSql())))
        return {
          admitted: false,
          reason: ADMISSION_REASONS.capReached,
          capReached: true,
          personaId,
        }
      await admitPersona(tx, personaId)
      return { admitted: true, reason: ADMISSION_REASONS.admitted, personaId }
    })
    // Off the request path: the answer never waits for the model.
    if (answer.admitted) embedInBackground(deps, answer.personaId)
    return { ok: true, answer }
  } catch (error) {
    if (error instanceof EndpointAlreadyBound) return endpointBound
    if (isUniqueViolation(error)) return handleTaken
    throw error
  }
}

/**
 * Admits pending personas in arrival order while seats are free (the match
 * beat calls this first). Each admission is its own transaction: the oldest
 * pending persona is locked (SKIP LOCKED: two replicas never take the same
 * one), a seat is taken, the persona admitted.
 */
export const admitPending = async (deps: VenueDeps, { limit = 10_000 } = {}) => {
  const admitted: number[] = []
  while (admitted.length < limit) {
    const id = await deps.database.db.transaction(async (tx) => {
      const result = await tx.execute(
        sql`SELECT id FROM personas WHERE status = 'pending' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED`,
      )
      const [row] = rowsOf<{ id: number }>(result)
      if (!row) return undefined
      if (!(await takeSeat(tx, deps.settings.capSql()))) return undefined
      await admitPersona(tx, row.id)
      return row.id
    })
    if (id === undefined) break
    admitted.push(id)
  }
  return admitted
}
