import { createHash } from 'node:crypto'
import { type Refusal, refusal } from '@agents/service-kit'
import { and, count, eq } from 'drizzle-orm'
import { holdPersona } from '../admission/persona-state.ts'
import { holdCouple } from '../couples/couple-state.ts'
import type { Actor } from '../credentials/actors.ts'
import { couples, personas, posts, reports, turns } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { HELD_REASON, REPORT_ERRORS } from './report-errors.ts'
import type { ReportBody } from './report-schemas.ts'

const tableOf = { persona: personas, post: posts, turn: turns, couple: couples } as const

export type FileReportParameters = {
  body: ReportBody
  /** The reporter's credential, when it sent one. */
  actor: Actor | undefined
  clientAddress: string
}

export type FileReportReturnType = { ok: true } | Refusal<400>

/** Reporters are told apart by their credential when they send one, else by a hash of their address. */
const reporterKeyOf = (actor: Actor | undefined, clientAddress: string) => {
  if (actor)
    return actor.kind === 'owner' ? `owner:${actor.owner.id}` : `agent:${actor.endpoint.id}`
  return `addr:${createHash('sha256').update(clientAddress).digest('hex').slice(0, 32)}`
}

/**
 * Files a report. Once `reportThreshold` distinct reporters have reported an
 * item it is held (taken off boards and out of matching) until an operator
 * looks at it.
 */
export const fileReport = async (
  deps: VenueDeps,
  { body, actor, clientAddress }: FileReportParameters,
): Promise<FileReportReturnType> => {
  const table = tableOf[body.targetType]
  const [target] = await deps.database.db
    .select({ id: table.id })
    .from(table)
    .where(eq(table.id, body.targetId))
  if (!target)
    return refusal(400, REPORT_ERRORS.invalidReport, {
      issues: [
        {
          code: 'custom',
          path: ['targetId'],
          message: REPORT_ERRORS.noSuchTarget(body.targetType),
        },
      ],
    })
  const reporterKey = reporterKeyOf(actor, clientAddress)
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
        .set({ status: 'held', reason: HELD_REASON })
        .where(and(eq(held.id, body.targetId), eq(held.status, 'published')))
    } else if (body.targetType === 'persona') {
      await holdPersona(tx, body.targetId, HELD_REASON)
    } else {
      await holdCouple(tx, body.targetId)
    }
  })
  return { ok: true }
}
