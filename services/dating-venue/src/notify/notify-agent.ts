import { pgArray } from '@agents/service-kit/db'
import { sql } from 'drizzle-orm'
import type { EndpointRow } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { postJsonOutbound } from '../outbound/index.ts'

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

/** Lines on the `notifications` board, written by the venue, in one statement. */
export const postNotifications = async (
  deps: VenueDeps,
  lines: ReadonlyArray<{ handle: string; text: string }>,
) => {
  if (lines.length === 0) return
  // One array parameter instead of four per row: a beat posts thousands of lines.
  await deps.database.db.execute(sql`
    INSERT INTO posts (board, handle, body, status)
    SELECT 'notifications', 'venue', body, 'published'
    FROM unnest(${pgArray(lines.map(({ handle, text }) => `@${handle}: ${text}`))}::text[]) AS t(body)`)
}
