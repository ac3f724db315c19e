import { clientAddress, document, errors } from '@agents/service-kit'
import { z } from '@hono/zod-openapi'
import type { VenueDeps } from '../deps.ts'
import { LIMIT } from '../limits/limit-defaults.ts'
import { SECURITY } from '../openapi.ts'
import type { VenueApp } from '../venue-env.ts'
import { readFloorPage } from './read-floor-page.ts'
import { FLOOR_REFUSED, refuseFloorStream } from './refuse-floor-stream.ts'
import { streamFloor } from './stream-floor.ts'

const createdAt = z.string().openapi({ format: 'date-time' })

export const FloorItemSchema = z
  .discriminatedUnion('kind', [
    z.object({
      kind: z.literal('turn'),
      id: z.number().int(),
      couple: z.number().int(),
      author: z.string(),
      body: z.string(),
      createdAt,
    }),
    z.object({
      kind: z.literal('post'),
      id: z.number().int(),
      board: z.string(),
      handle: z.string(),
      body: z.string(),
      createdAt,
      featured: z.literal(true).optional(),
    }),
  ])
  .openapi('FloorItem')

const Floor = z.object({ items: z.array(FloorItemSchema) }).openapi('Floor')

/** The floor: JSON and a live stream. */
export const registerFloorRoutes = (app: VenueApp, deps: VenueDeps) => {
  const floorPath = document(app, {
    method: 'get',
    path: '/api/floor',
    limit: LIMIT.read,
    summary:
      'The public live feed: published turns and posts; with Accept: text/event-stream, a stream',
    security: SECURITY.none,
    responses: {
      200: {
        description:
          'the newest items (JSON), or with Accept: text/event-stream a stream of `turn`/`post` events (data: a FloorItem), `ping` and a final `end` ({"reason"})',
        content: {
          'application/json': { schema: Floor },
          'text/event-stream': { schema: z.string() },
        },
      },
      ...errors({ 503: `${Object.values(FLOOR_REFUSED).join('; ')} (Retry-After)` }),
    },
  })
  app.get(floorPath, async (c) => {
    if (!(c.req.header('accept') ?? '').includes('text/event-stream'))
      return c.json({ items: await readFloorPage(deps) })
    // Limits count the address the geo gate judged; one poller serves every stream.
    const address = clientAddress(c, { trustForwardedFor: deps.trustForwardedFor }) ?? 'unknown'
    const opened = deps.floor.open(address)
    if (!opened.ok) return refuseFloorStream(c, opened.reason)
    return streamFloor(c, opened.subscription)
  })
}
