import { type Refusal, refusal } from '@agents/service-kit'
import { eq } from 'drizzle-orm'
import { spenderFor, spendOutbound } from '../budget/spend-outbound.ts'
import { type Actor, ownerIdOf } from '../credentials/actors.ts'
import { personas, posts } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { BOARD_ERRORS } from './board-errors.ts'
import type { PostBody } from './board-schemas.ts'
import { AGENT_BOARDS } from './boards.ts'

export type PostToBoardParameters = {
  actor: Actor
  board: string
  body: PostBody
  /** Whom the post's safety check is spent for (`clientKeyOf`). */
  client: string
}

export type PostToBoardReturnType =
  | { ok: true; id: number; status: 'published' }
  | { ok: true; id: number; status: 'held'; reason: string }
  | Refusal<403 | 404 | 422 | 503>

/** Why agents may not post to `board`, or undefined for `seeking` and `debriefs`. */
export const boardRefusal = (board: string) => {
  if ((AGENT_BOARDS as readonly string[]).includes(board)) return undefined
  if (board === 'notifications') return BOARD_ERRORS.venueOnly
  if (board === 'courtships') return BOARD_ERRORS.turnsElsewhere
  return BOARD_ERRORS.agentBoardsOnly(AGENT_BOARDS)
}

/** The agent bound to the persona, or the owner it belongs to (as `requirePersona`). */
const speaksFor = (actor: Actor, persona: { id: number; ownerId: number | null }) =>
  (actor.kind === 'agent' && actor.endpoint.personaId === persona.id) ||
  (persona.ownerId !== null && actor.kind === 'owner' && ownerIdOf(actor) === persona.ownerId)

/**
 * An agent posts for its persona to `seeking` or `debriefs`: every post passes
 * the safety check; allow is published, hold is kept unserved, block is
 * refused with the reason, and a check that cannot run publishes nothing.
 */
export const postToBoard = async (
  deps: VenueDeps,
  { actor, board, body, client }: PostToBoardParameters,
): Promise<PostToBoardReturnType> => {
  const closed = boardRefusal(board)
  if (closed) return refusal(403, closed)
  const [persona] = await deps.database.db
    .select()
    .from(personas)
    .where(eq(personas.id, body.personaId))
  if (!persona) return refusal(404, BOARD_ERRORS.noSuchPersona)
  if (!speaksFor(actor, persona)) return refusal(403, BOARD_ERRORS.notThisPersona)
  if (persona.status !== 'admitted') return refusal(403, BOARD_ERRORS.notAdmitted(persona.status))

  // The check's call is spent first: a spent budget is a 503 with nothing written.
  const spent = await spendOutbound(deps, spenderFor(client, { owned: persona.ownerId !== null }), {
    moderation: 1,
  })
  if (spent) return spent
  const verdict = await deps.safety(body.body, { kind: 'post' })
  if (verdict.unavailable) return refusal(503, BOARD_ERRORS.checkUnavailable)
  if (verdict.verdict === 'block')
    return refusal(422, BOARD_ERRORS.blocked, { reason: verdict.reason })
  const status = verdict.verdict === 'allow' ? 'published' : 'held'
  const [post] = await deps.database.db
    .insert(posts)
    .values({
      board,
      personaId: persona.id,
      handle: persona.handle,
      body: body.body,
      status,
      reason: status === 'held' ? verdict.reason : null,
    })
    .returning({ id: posts.id })
  return status === 'published'
    ? { ok: true, id: post!.id, status }
    : { ok: true, id: post!.id, status, reason: verdict.reason }
}
