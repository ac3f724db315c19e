import { type Refusal, refusal, refusalOf, TooManyRequests } from '@agents/service-kit'
import { isUniqueViolation, rowsOf } from '@agents/service-kit/db'
import { and, sql } from 'drizzle-orm'
import { bindEndpointToPersona } from '../agents/endpoint-state.ts'
import { spenderFor, spendOutbound } from '../budget/spend-outbound.ts'
import { type Actor, ownerIdOf } from '../credentials/actors.ts'
import { personas } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { embedInBackground } from '../persona-vectors/embed-personas.ts'
import { ADMISSION_ERRORS, ADMISSION_REASONS } from './admission-errors.ts'
import type { PersonaAnswer, PersonaBody } from './admission-schemas.ts'
import { runChaperone } from './chaperone.ts'
import { admitPersona, insertPersona } from './persona-state.ts'
import { type SeatExecutor, type SeatKind, seatKindOf, takeSeat } from './seats.ts'

export type SubmitPersonaParameters = {
  /** Who sent the request, if a credential came with it. */
  actor: Actor | undefined
  body: PersonaBody
  /** Whom the request counts for (`clientKeyOf`): its anonymous submissions and outbound calls. */
  client: string
}

export type SubmitPersonaReturnType =
  | { ok: true; answer: PersonaAnswer }
  | Refusal<400 | 401 | 403 | 409 | 429 | 503>

const handleTaken = refusal(400, ADMISSION_ERRORS.invalidPersona, {
  issues: [{ code: 'custom', path: ['handle'], message: ADMISSION_ERRORS.handleTaken }],
})

const endpointBound = refusal(409, ADMISSION_ERRORS.endpointBound)

/** Thrown inside the admission transaction to roll it back. */
class EndpointAlreadyBound extends Error {}

/** What a persona that found no seat is told: the cap is reached, or only its kind's share of it. */
const capReached = async (tx: SeatExecutor, deps: VenueDeps, kind: SeatKind) => {
  if (kind === 'owned') return {}
  const [room] = rowsOf<{ room: boolean }>(
    await tx.execute(
      sql`SELECT used < ${deps.settings.capSql()} AS room FROM capacity WHERE id = 1`,
    ),
  )
  return room?.room ? { unownedShareFull: true as const } : {}
}

/**
 * POST /api/personas: the gates in the spec's order (adult, chaperone,
 * capacity). A credential is needed to bind the persona to an owner
 * (`ownerId`); an agent credential also binds it to that agent endpoint,
 * which then acts for the persona. A persona no owner stands behind takes
 * its seat from the unowned share of the cap only (seats.ts). Before the
 * chaperone runs, a submission without a credential counts against the
 * client's anonymous-persona limit (refused 429), and the calls the persona will
 * cost (the moderation check, its embedding) are spent from the outbound
 * budget (503): nothing is written when either refuses.
 */
export const submitPersona = async (
  deps: VenueDeps,
  { actor, body, client }: SubmitPersonaParameters,
): Promise<SubmitPersonaReturnType> => {
  if (body.ownerId !== undefined && !actor)
    return refusal(401, `credential required: ${ADMISSION_ERRORS.bindingWhat}`)
  if (actor) {
    if (body.ownerId !== undefined && ownerIdOf(actor) !== body.ownerId)
      return refusal(403, ADMISSION_ERRORS.notThisOwner)
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

  const ownerId = body.ownerId ?? (actor ? (ownerIdOf(actor) ?? null) : null)
  const kind = seatKindOf(ownerId)
  if (!actor) {
    const decision = await deps.budget.anonymousPersonas.take('anonymous-persona', client)
    if (!decision.allowed) {
      deps.metrics.limited.inc({ limit: decision.name })
      // The 429 the kit's limits answer (message, fields, headers), returned.
      return refusalOf(new TooManyRequests(decision)) as Refusal<429>
    }
  }
  const spent = await spendOutbound(deps, spenderFor(client, { owned: kind === 'owned' }), {
    moderation: 1,
    embedding: 1,
  })
  if (spent) return spent

  const verdict = await runChaperone(deps, body.heart)
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
      if (!(await takeSeat(tx, deps.settings, kind)))
        return {
          admitted: false,
          reason: ADMISSION_REASONS.capReached,
          capReached: true,
          personaId,
          ...(await capReached(tx, deps, kind)),
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
 * pending persona is locked (SKIP LOCKED: a persona being withdrawn is left
 * for later), a seat is taken, the persona admitted. When an unowned persona finds
 * no seat (its share, or the cap, is full), the owned ones behind it are
 * still seated in their order: a queue of anonymous personas never holds up
 * an owner's.
 */
export const admitPending = async (deps: VenueDeps, { limit = 10_000 } = {}) => {
  const admitted: number[] = []
  // Most beats find nobody waiting: one read (the partial index of pending personas) instead of a
  // locking transaction of four round trips.
  const waiting = rowsOf<{ waiting: boolean }>(
    await deps.database.db.execute(
      sql`SELECT EXISTS (SELECT 1 FROM personas WHERE status = 'pending') AS waiting`,
    ),
  )
  if (!waiting[0]?.waiting) return admitted
  let ownedOnly = false
  while (admitted.length < limit) {
    const step = await deps.database.db.transaction(async (tx) => {
      // The seat counter's row is locked first, so admissions by two replicas
      // take turns: each then sees the other's commit and picks the oldest
      // pending persona left. (Locking only the persona let a replica skip an
      // older one that the other had locked but then found no seat for.)
      await tx.execute(sql`SELECT 1 FROM capacity WHERE id = 1 FOR UPDATE`)
      const result = await tx.execute(
        sql`SELECT id, owner_id FROM personas
            WHERE status = 'pending' ${ownedOnly ? sql`AND owner_id IS NOT NULL` : sql``}
            ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED`,
      )
      const [row] = rowsOf<{ id: number; owner_id: number | null }>(result)
      if (!row) return 'done' as const
      const kind = seatKindOf(row.owner_id)
      if (!(await takeSeat(tx, deps.settings, kind)))
        return kind === 'owned' ? ('done' as const) : ('unowned full' as const)
      await admitPersona(tx, row.id)
      return row.id
    })
    if (step === 'done') break
    if (step === 'unowned full') ownedOnly = true
    else admitted.push(step)
  }
  return admitted
}
