import { ApiError, RowId, SafeText } from '@agents/service-kit'
import { z } from '@hono/zod-openapi'
import { and, eq, sql } from 'drizzle-orm'
import { type Actor, authenticate, ownerIdOf } from '../credentials/actors.ts'
import { agentEndpoints, personas } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { Heart, heartProse } from '../heart/heart-schema.ts'
import { embedInBackground } from '../matchmaking/embed-personas.ts'
import { isReservedHandle, RESERVED_HANDLES } from './is-reserved-handle.ts'

export const PersonaBody = z
  .object({
    handle: SafeText.min(1)
      .max(64)
      .regex(/^\S(.*\S)?$/, 'no leading or trailing spaces')
      .refine((handle) => !isReservedHandle(handle), 'handle reserved for the venue')
      .openapi({
        description: `not one of the venue's own names (${RESERVED_HANDLES.join(', ')}) nor a look-alike`,
      }),
    model: SafeText.trim().min(1).max(200),
    persona_age: SafeText.openapi({ description: 'must equal "18+" exactly' }),
    heart: z.union([Heart, SafeText.trim().min(1).max(8000)]),
    redteam: z.boolean().optional(),
    ownerId: RowId.optional(),
    homeMarket: SafeText.max(40).optional(),
    activeMarket: SafeText.max(40).optional(),
  })
  .strict()
  .openapi('Persona')
export type PersonaBody = z.infer<typeof PersonaBody>

export type AdmissionAnswer =
  | { status: 200; body: { admitted: true; reason: 'admitted'; personaId: number } }
  | {
      status: 422
      body: { admitted: false; reason: string; personaId?: number; capReached?: true }
    }

const handleTaken = () =>
  new ApiError(400, 'invalid persona', {
    issues: [{ code: 'custom', path: ['handle'], message: 'handle taken' }],
  })

const isUniqueViolation = (error: unknown) =>
  (error as { code?: string; cause?: { code?: string } })?.code === '23505' ||
  (error as { cause?: { code?: string } })?.cause?.code === '23505'

/** Takes one seat if the cap allows it: one conditional UPDATE, so the cap holds under any concurrency. */
const takeSeat = async (
  deps: VenueDeps,
  tx: { execute: VenueDeps['database']['db']['execute'] },
) => {
  const result = await tx.execute(
    sql`UPDATE capacity SET used = used + 1 WHERE id = 1 AND used < ${deps.settings.capSql()} RETURNING used`,
  )
  return (result as unknown as { rows: unknown[] }).rows.length === 1
}

/**
 * POST /api/personas: the gates in the spec's order (adult, chaperone,
 * capacity). A credential is needed to bind the persona to an owner
 * (`ownerId`); an agent credential also binds it to that agent endpoint,
 * which then acts for the persona.
 */
export const submitPersona = async (
  deps: VenueDeps,
  body: PersonaBody,
  authorization: string | undefined,
): Promise<AdmissionAnswer> => {
  let actor: Actor | undefined
  if (body.ownerId !== undefined || authorization) {
    actor = await authenticate(deps.database, authorization, 'binding a persona to an owner')
    if (body.ownerId !== undefined && ownerIdOf(actor) !== body.ownerId)
      throw new ApiError(403, 'credential does not act for this owner')
    if (actor.kind === 'agent' && actor.endpoint.personaId !== null)
      throw new ApiError(409, 'this agent endpoint already speaks for a persona')
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
  if (taken) throw handleTaken()

  if (body.persona_age !== '18+')
    return { status: 422, body: { admitted: false, reason: 'adult-only venue' } }

  const verdict = await deps.safety(heartProse(body.heart), { kind: 'heart' })
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
    const [rejected] = await db
      .insert(personas)
      .values({ ...values, status: 'rejected', reason: verdict.reason })
      .returning({ id: personas.id })
    return {
      status: 422,
      body: { admitted: false, reason: verdict.reason, personaId: rejected!.id },
    }
  }

  try {
    const answer: AdmissionAnswer = await db.transaction(async (tx) => {
      const [persona] = await tx
        .insert(personas)
        .values({ ...values, status: 'pending' })
        .returning({ id: personas.id })
      const personaId = persona!.id
      if (actor?.kind === 'agent') {
        const [bound] = await tx
          .update(agentEndpoints)
          .set({ personaId })
          .where(and(eq(agentEndpoints.id, actor.endpoint.id), sql`persona_id IS NULL`))
          .returning({ id: agentEndpoints.id })
        if (!bound) throw new ApiError(409, 'this agent endpoint already speaks for a persona')
      }
      if (!(await takeSeat(deps, tx))) {
        return {
          status: 422 as const,
          body: {
            admitted: false as const,
            reason: 'cap reached',
            capReached: true as const,
            personaId,
          },
        }
      }
      await tx
        .update(personas)
        .set({ status: 'admitted', admittedAt: new Date() })
        .where(eq(personas.id, personaId))
      return {
        status: 200 as const,
        body: { admitted: true as const, reason: 'admitted' as const, personaId },
      }
    })
    // Off the request path: the answer never waits for the model.
    if (answer.status === 200) embedInBackground(deps, answer.body.personaId)
    return answer
  } catch (error) {
    if (isUniqueViolation(error)) throw handleTaken()
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
      const [row] = (result as unknown as { rows: Array<{ id: number }> }).rows
      if (!row) return undefined
      if (!(await takeSeat(deps, tx))) return undefined
      await tx
        .update(personas)
        .set({ status: 'admitted', admittedAt: new Date() })
        .where(eq(personas.id, row.id))
      return row.id
    })
    if (id === undefined) break
    admitted.push(id)
  }
  return admitted
}

/** Gives a persona's seat back (withdrawal, a hold): the next beat admits a pending one. */
export const releaseSeat = async (tx: { execute: VenueDeps['database']['db']['execute'] }) => {
  await tx.execute(sql`UPDATE capacity SET used = used - 1 WHERE id = 1 AND used > 0`)
}
