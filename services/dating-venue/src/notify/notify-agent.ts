import { pgArray } from '@agents/service-kit/db'
import { type SQL, sql } from 'drizzle-orm'
import type { EndpointRow } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { postJsonOutbound } from '../outbound/post-json-outbound.ts'

export type AgentMessage = { type: string; [key: string]: unknown }

/**
 * Tells an agent something: a signed POST to its callback URL when it has
 * one (same outbound rules as verification), else (or when the callback
 * fails) a line on the `notifications` board that names its persona.
 * Returns how the message went.
 */
export const notifyAgent = async (
  deps: VenueDeps,
  endpoint: Pick<EndpointRow, 'id' | 'callbackUrl'> | undefined,
  recipientHandle: string,
  message: AgentMessage,
  boardText: string,
): Promise<'callback' | 'board'> => {
  if (endpoint?.callbackUrl) {
    const body = JSON.stringify(message)
    const answer = await postJsonOutbound(endpoint.callbackUrl, message, {
      allowHosts: deps.callbacks.allowHosts,
      timeoutMs: deps.callbacks.timeoutMs,
      maxResponseBytes: deps.callbacks.maxBytes,
      headers: { 'venue-signature': await deps.signer.sign(body, `agent:${endpoint.id}`) },
    })
    if (answer.ok) return 'callback'
    deps.logger.warn(
      { endpointId: endpoint.id, reason: answer.reason },
      'callback failed; using the board',
    )
  }
  await postNotifications(deps, [{ handle: recipientHandle, text: boardText }])
  return 'board'
}

/**
 * The statement that puts lines on the `notifications` board, written by the
 * venue: one row per row of `lines`, a query of `(handle, text)`. The beat
 * runs it inside its own statement, so its notifications commit with its couples.
 */
export const insertNotifications = (lines: SQL) => sql`
  INSERT INTO posts (board, handle, body, status)
  SELECT 'notifications', 'venue', '@' || line.handle || ': ' || line.text, 'published'
  FROM (${lines}) AS line(handle, text)`

/** Lines on the `notifications` board, written by the venue, in one statement. */
export const postNotifications = async (
  deps: VenueDeps,
  lines: ReadonlyArray<{ handle: string; text: string }>,
) => {
  if (lines.length === 0) return
  // One array parameter per column instead of two per row: a beat posts thousands of lines.
  await deps.database.db.execute(
    insertNotifications(
      sql`SELECT * FROM unnest(${pgArray(lines.map((line) => line.handle))}::text[], ${pgArray(lines.map((line) => line.text))}::text[])`,
    ),
  )
}
