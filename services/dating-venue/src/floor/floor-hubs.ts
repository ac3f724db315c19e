import { readFloor } from '../boards/boards.ts'
import type { VenueDeps } from '../deps.ts'
import { type CreateFloorHubParameters, createFloorHub, type FloorHub } from './floor-hub.ts'

// Keyed by the deps a venue was built with, so start.ts can hand the route
// its configured hub without a new field in VenueDeps.
const hubs = new WeakMap<VenueDeps, FloorHub>()

export type ProvideFloorHubParameters = Omit<CreateFloorHubParameters, 'read' | 'onError'>

/**
 * Builds the floor hub of a venue (limits and interval from its config) and
 * returns it, so the server can close it on shutdown.
 */
export const provideFloorHub = (deps: VenueDeps, parameters: ProvideFloorHubParameters = {}) => {
  const hub = createFloorHub({
    ...parameters,
    read: (cursor) => readFloor(deps, cursor),
    onError: (error) => deps.logger.warn({ err: error }, 'floor poll failed: streams ended'),
  })
  hubs.set(deps, hub)
  return hub
}

/** The venue's floor hub; one with the defaults when start-up provided none (tests building an app). */
export const floorHubOf = (deps: VenueDeps): FloorHub => hubs.get(deps) ?? provideFloorHub(deps)
