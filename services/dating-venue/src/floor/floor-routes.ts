import type { App } from '@agents/service-kit'
import { readFloor } from '../boards/boards.ts'
import type { VenueDeps } from '../deps.ts'
import { getClientAddress } from '../geo/index.ts'
import { documentRoute, jsonResponses, SECURITY } from '../openapi.ts'
import { floorHubOf } from './floor-hubs.ts'
import { refuseFloorStream } from './refuse-floor-stream.ts'
import { streamFloor } from './stream-floor.ts'

/** The floor: JSON and a live stream. */
export const registerFloorRoutes = (app: App, deps: VenueDeps) => {
  const floorPath = documentRoute(app, {
    method: 'get',
    path: '/api/floor',
    summary:
      'The public live feed: published turns and posts; with Accept: text/event-stream, a stream',
    security: SECURITY.none,
    responses: jsonResponses({ 503: 'too many live streams (Retry-After), or shutting down' }),
  })
  app.get(floorPath, async (c) => {
    if (!(c.req.header('accept') ?? '').includes('text/event-stream'))
      return c.json({ items: await readFloor(deps) })
    // Limits count the address the geo gate judged; one poller serves every stream.
    const address = getClientAddress(c, { trustForwardedFor: deps.trustForwardedFor }) ?? 'unknown'
    const opened = floorHubOf(deps).open(address)
    if (!opened.ok) return refuseFloorStream(c, opened.reason)
    return streamFloor(c, opened.subscription)
  })
}
