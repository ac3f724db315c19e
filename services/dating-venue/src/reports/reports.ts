import { createHash } from 'node:crypto'
import { ApiError, RowId, SafeText } from '@agents/service-kit'
import { z } from '@hono/zod-openapi'
import { and, count, eq, sql } from 'drizzle-orm'
import { releaseSeat } from '../admission/admission.ts'
import { authenticate } from '../credentials/actors.ts'
import { couples, personas, posts, reports, turns } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'

export const ReportBody = z
  .object({
    targetType: z.enum(['persona', 'post', 'turn', 'couple']),
    targetId: RowId,
    reason: SafeText.max(500).optional(),
  })
  .strict()
  .openapi('Report')
export type ReportBody = z.infer<typeof ReportBody>

const tableOf = { persona: personas, post: posts, turn: turns, couple: couples } as const

/**
 * Files a report. Reporters are told apart by their credential when they
 * send one, else by a hash of their address; once `reportThreshold` distinct
 * reporters have reported an item it is held (taken off boards and out of
 * matching) until an operator looks at it.
 */
export const fileReport = async (
  deps: VenueDeps,
  body: ReportBody,
  { authorization, clientAddress }: { authorization: string | undefined; clientAddress: string },
) => {
  const table = tableOf[body.targetType]
  const [target] = await deps.database.db
    .select({ id: table.id })
    .from(table)
    .where(eq(table.id, body.targetId))
  if (!target)
    throw new ApiError(400, 'invalid report', {
      issues: [{ code: 'custom', path: ['targetId'], message: `no such ${body.targetType}` }],
    })
  let reporterKey = `addr:${createHash('sha256').update(clientAddress).digest('hex').slice(0, 32)}`
  if (authorization) {
    const actor = await authenticate(deps.database, authorization, 'reporting')
    reporterKey = actor.kind === 'owner' ? `owner:${actor.owner.id}` : `agent:${actor.endpoint.id}`
  }
  await deps.database.db.transaction(async (tx) => {
    await tx
      .insert(reports)
      .values({ ...body, reason: body.reason ?? null, reporterKey })
      .onConflictDoNothing()
    const [{ reporters } = { reporters: 0 }] = await tx
      .select({ reporters: count() })
      .from(reports)
      .where(and(eq(reports.targetType, body.targetType), eq(reports.targetId, body.targetId)))
    if (reporters < deps.reportThreshold) return
    if (body.targetType === 'post' || body.targetType === 'turn') {
      const held = body.targetType === 'post' ? posts : turns
      await tx
        .update(held)
        .set({ status: 'held', reason: 'reported' })
        .where(and(eq(held.id, body.targetId), eq(held.status, 'published')))
    } else if (body.targetType === 'persona') {
      const hold = (from: 'admitted' | 'pending') =>
        tx
          .update(personas)
          .set({ status: 'held', reason: 'reported' })
          .where(and(eq(personas.id, body.targetId), eq(personas.status, from)))
          .returning({ id: personas.id })
      // An admitted persona gives its seat back; a pending one never had one.
      if ((await hold('admitted')).length > 0) await releaseSeat(tx)
      else await hold('pending')
    } else {
      await tx
        .update(couples)
        .set({ state: 'held' })
        .where(and(eq(couples.id, body.targetId), sql`state <> 'held'`))
    }
  })
  return { ok: true as const }
}
