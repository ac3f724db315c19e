import { type Refusal, refusal } from '@agents/service-kit'
import { and, eq, inArray } from 'drizzle-orm'
import { releaseHeldPersona, withdrawPersona } from '../admission/persona-state.ts'
import { endHeldCouple, withdrawCouple, withdrawCouplesOf } from '../couples/couple-state.ts'
import { couples, events, personas, posts, reports, turns } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'

export const MODERATION_ERRORS = {
  invalid: 'invalid moderation',
  nothingToDecide: 'this item is neither held nor reported (or is already decided)',
  coupleCannotResume: 'a held couple cannot resume: reject ends it',
} as const

export type ModerationTarget = 'post' | 'turn' | 'persona' | 'couple'
export type ModeratedStatus = 'published' | 'blocked' | 'pending' | 'withdrawn' | 'unchanged'

export type ModerateParameters = {
  targetType: ModerationTarget
  targetId: number
  decision: 'approve' | 'reject'
  reason?: string | undefined
  /** Who decided: the operator wallet, or `token` for the bearer token. */
  operator: string
}

export type ModerationOutcome =
  | {
      ok: true
      answer: { targetType: ModerationTarget; targetId: number; status: ModeratedStatus }
    }
  | Refusal<409>

class NothingToDecide extends Error {}
class CoupleCannotResume extends Error {}

type Tx = Parameters<Parameters<VenueDeps['database']['db']['transaction']>[0]>[0]

/**
 * Approve: a held item comes back (a post or turn is published again, a
 * featured post unfeatured: its slot was freed when it was held and is not
 * re-taken; a persona returns to `pending` and the beat seats it); an item
 * only reported keeps its place. Either way its reports are cleared, so
 * the count starts again. A held couple cannot resume.
 */
const approve = async (tx: Tx, targetType: ModerationTarget, targetId: number) => {
  let status: ModeratedStatus | undefined
  let live = false
  if (targetType === 'post' || targetType === 'turn') {
    const table = targetType === 'post' ? posts : turns
    const moved = await tx
      .update(table)
      .set({
        status: 'published' as const,
        reason: null,
        ...(targetType === 'post' ? { featuredUntil: null } : {}),
      })
      .where(and(eq(table.id, targetId), eq(table.status, 'held')))
      .returning({ id: table.id })
    if (moved.length > 0) status = 'published'
    const [row] = await tx
      .select({ status: table.status })
      .from(table)
      .where(eq(table.id, targetId))
    live = row?.status === 'published'
  } else if (targetType === 'persona') {
    if (await releaseHeldPersona(tx, targetId)) status = 'pending'
    const [row] = await tx
      .select({ status: personas.status })
      .from(personas)
      .where(eq(personas.id, targetId))
    live = row?.status === 'admitted' || row?.status === 'pending'
  } else {
    const [couple] = await tx
      .select({ state: couples.state })
      .from(couples)
      .where(eq(couples.id, targetId))
    if (couple?.state === 'held') throw new CoupleCannotResume()
    live = couple?.state === 'courting' || couple?.state === 'committed'
  }
  // A blocked or withdrawn item is decided: its reports stay as the record of why.
  if (!live) return undefined
  const cleared = await tx
    .delete(reports)
    .where(and(eq(reports.targetType, targetType), inArray(reports.targetId, [targetId])))
    .returning({ id: reports.id })
  return status ?? (cleared.length > 0 ? ('unchanged' as const) : undefined)
}

/**
 * Reject: a held or reported post or turn is blocked; a persona is
 * withdrawn with its couples (the other sides are freed as for any
 * withdrawal); a couple ends. Reports stay as the record of why.
 */
const reject = async (
  tx: Tx,
  targetType: ModerationTarget,
  targetId: number,
  reason: string,
): Promise<ModeratedStatus | undefined> => {
  if (targetType === 'post' || targetType === 'turn') {
    const table = targetType === 'post' ? posts : turns
    const moved = await tx
      .update(table)
      .set({ status: 'blocked' as const, reason })
      .where(and(eq(table.id, targetId), inArray(table.status, ['held', 'published'])))
      .returning({ id: table.id })
    return moved.length > 0 ? 'blocked' : undefined
  }
  if (targetType === 'persona') {
    const was = await withdrawPersona(tx, targetId, reason)
    if (was === undefined || was === 'withdrawn' || was === 'rejected') return undefined
    await withdrawCouplesOf(tx, [targetId])
    return 'withdrawn'
  }
  return (await endHeldCouple(tx, targetId)) || (await withdrawCouple(tx, targetId))
    ? 'withdrawn'
    : undefined
}

/**
 * The operator's decision on an item the safety check or reporters held,
 * or that reporters flagged below the hold threshold. One transaction; an
 * event names the operator. A persona held for review is decided by
 * POST /admin/actions/review instead.
 */
export const moderateItem = async (
  deps: Pick<VenueDeps, 'database'>,
  { targetType, targetId, decision, reason, operator }: ModerateParameters,
): Promise<ModerationOutcome> => {
  try {
    return await deps.database.db.transaction(async (tx) => {
      const status =
        decision === 'approve'
          ? await approve(tx, targetType, targetId)
          : await reject(tx, targetType, targetId, reason ?? 'rejected by the operator')
      // Nothing moved: the withdrawal of an item in a final state is undone with the rest.
      if (!status) throw new NothingToDecide()
      await tx.insert(events).values({
        kind: 'moderated',
        detail: { targetType, targetId, decision, status, operator, ...(reason ? { reason } : {}) },
      })
      return { ok: true, answer: { targetType, targetId, status } } as const
    })
  } catch (error) {
    if (error instanceof NothingToDecide) return refusal(409, MODERATION_ERRORS.nothingToDecide)
    if (error instanceof CoupleCannotResume)
      return refusal(409, MODERATION_ERRORS.coupleCannotResume)
    throw error
  }
}
