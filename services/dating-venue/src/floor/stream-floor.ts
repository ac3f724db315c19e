import type { Context } from 'hono'
import { type SSEStreamingApi, streamSSE } from 'hono/streaming'
import type { FloorSubscription } from './floor-hub.ts'
import type { FloorItem } from './floor-item.ts'

/** How long the final event may take to reach a client that does not read before the stream is cut. */
const FINAL_WRITE_MS = 500
/** The reconnect delay (SSE `retry`) suggested with the final event. */
const RECONNECT_MS = 2000

/**
 * Writes a floor subscription as Server-Sent Events: the backlog and new
 * items oldest first (`turn`/`post`), `ping` when an interval brought
 * nothing, and a final `end` event (`{"reason"}`) when the hub ends it.
 */
export const streamFloor = (c: Context, subscription: FloorSubscription) =>
  streamSSE(c, async (stream) => {
    stream.onAbort(() => subscription.release())
    try {
      for (;;) {
        const event = await subscription.next()
        if (stream.aborted) return
        if (event.kind === 'end') {
          const final = stream.writeSSE({
            event: 'end',
            data: JSON.stringify({ reason: event.reason }),
            retry: RECONNECT_MS,
          })
          const timeout = new Promise<'late'>((done) =>
            setTimeout(() => done('late'), FINAL_WRITE_MS).unref(),
          )
          if ((await Promise.race([final, timeout])) === 'late') stream.abort()
          return
        }
        if (event.kind === 'ping') await stream.writeSSE({ event: 'ping', data: '{}' })
        else for (const item of [...event.items].reverse()) await writeItem(stream, item)
      }
    } finally {
      subscription.release()
    }
  })

const writeItem = (stream: SSEStreamingApi, item: FloorItem) =>
  stream.writeSSE({ event: item.kind, id: `${item.kind}-${item.id}`, data: JSON.stringify(item) })
