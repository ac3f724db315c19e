import { ApiError, RowId, RowIdParam, SafeText } from '@agents/service-kit'
import { z } from '@hono/zod-openapi'
import { and, asc, eq, sql } from 'drizzle-orm'
import { authenticate, requirePersona } from '../credentials/actors.ts'
import { couples, courtshipSeats, personas, turns } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'

export const TURN_MAX_CHARS = 2000

export const TurnBody = z
  .object({
    personaId: RowId,
    body: SafeText.trim().min(1).max(TURN_MAX_CHARS),
  })
  .strict()
  .openapi('CourtshipTurn')

export const WithdrawBody = z.object({ personaId: RowId }).strict().openapi('Withdraw')

/** `:id` of the couple routes, as documented. */
export const CoupleParams = z.object({
  id: RowIdParam.openapi({ param: { name: 'id', in: 'path' }, example: 1 }),
})

/** A couple id from a path: digits naming a possible row (1 to 2^31 - 1), else 400 `bad couple id`. */
export const coupleIdOf = (raw: string | undefined) => {
  const parsed = RowIdParam.safeParse(raw)
  if (!raw || !/^\d+$/.test(raw) || !parsed.success) throw new ApiError(400, 'bad couple id')
  return parsed.data
}

/** The couple and the persona of it the caller speaks for: 404, 403 (not theirs or not in it). */
const coupleForPersona = async (
  deps: VenueDeps,
  coupleId: number,
  personaId: number,
  authorization: string | undefined,
) => {
  const actor = await authenticate(
    deps.database,
    authorization,
    'acting for a persona of this couple',
  )
  const [couple] = await deps.database.db.select().from(couples).where(eq(couples.id, coupleId))
  if (!couple) throw new ApiError(404, 'no such couple')
  if (couple.personaA !== personaId && couple.personaB !== personaId)
    throw new ApiError(403, 'persona not in this couple')
  const [persona] = await deps.database.db.select().from(personas).where(eq(personas.id, personaId))
  requirePersona(actor, persona!)
  return { couple, persona: persona! }
}

/**
 * A courtship turn. The safety check runs first (it may be slow and must
 * not hold a lock); then, with the couple's row locked, the alternation
 * rule is checked against the last turn a persona wrote and the turn is
 * stored: published on allow, held (never served) on hold. Block is a 422
 * with the reason; a check that cannot run stores and publishes nothing.
 */
export const postTurn = async (
  deps: VenueDeps,
  coupleId: number,
  body: z.infer<typeof TurnBody>,
  authorization: string | undefined,
) => {
  const { couple, persona } = await coupleForPersona(deps, coupleId, body.personaId, authorization)
  if (couple.state !== 'courting' && couple.state !== 'committed')
    throw new ApiError(409, `couple is ${couple.state}`)
  const verdict = await deps.safety(body.body, { kind: 'turn' })
  if (verdict.unavailable)
    throw new ApiError(503, 'safety check unavailable: nothing was published; retry later')
  if (verdict.verdict === 'block')
    throw new ApiError(422, 'turn blocked', { reason: verdict.reason })
  const status = verdict.verdict === 'allow' ? ('published' as const) : ('held' as const)
  return deps.database.db.transaction(async (tx) => {
    const locked = await tx.execute(
      sql`SELECT state FROM couples WHERE id = ${coupleId} FOR UPDATE`,
    )
    const state = (locked as unknown as { rows: Array<{ state: string }> }).rows[0]?.state
    if (state !== 'courting' && state !== 'committed') throw new ApiError(409, `couple is ${state}`)
    const [last] = await tx
      .select({ personaId: turns.personaId })
      .from(turns)
      .where(and(eq(turns.coupleId, coupleId), sql`${turns.personaId} IS NOT NULL`))
      .orderBy(sql`${turns.id} DESC`)
      .limit(1)
    if (last?.personaId === persona.id)
      throw new ApiError(409, 'wait for your partner: the same persona never writes twice in a row')
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
      ? { status: 201 as const, body: { id: turn!.id, status } }
      : { status: 202 as const, body: { id: turn!.id, status, reason: verdict.reason } }
  })
}

/** Either side ends the courtship; both personas are free for later beats. */
export const withdraw = async (
  deps: VenueDeps,
  coupleId: number,
  body: z.infer<typeof WithdrawBody>,
  authorization: string | undefined,
) => {
  await coupleForPersona(deps, coupleId, body.personaId, authorization)
  return deps.database.db.transaction(async (tx) => {
    const [ended] = await tx
      .update(couples)
      .set({ state: 'withdrawn', endedAt: new Date() })
      .where(and(eq(couples.id, coupleId), sql`${couples.state} IN ('courting', 'committed')`))
      .returning({ id: couples.id })
    if (!ended) throw new ApiError(409, 'the courtship has already ended')
    await tx.delete(courtshipSeats).where(eq(courtshipSeats.coupleId, coupleId))
    return { ok: true, coupleId, state: 'withdrawn' as const }
  })
}

/** The couple as its own personas see it: both handles, its state and its published turns. */
export const readCouple = async (
  deps: VenueDeps,
  coupleId: number,
  personaId: number,
  authorization: string | undefined,
) => {
  const { couple } = await coupleForPersona(deps, coupleId, personaId, authorization)
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
