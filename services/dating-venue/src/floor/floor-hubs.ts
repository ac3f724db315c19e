import type { VenueDeps } from '../deps.ts'
import { type CreateFloorHubParameters, createFloorHub } from './floor-hub.ts'
import { readFloor } from './read-floor.ts'

export type CreateVenueFloorHubParameters = Omit<CreateFloorHubParameters, 'read' | 'onError'>

/**
 * The venue's floor hub (`deps.floor`): one poller reading the floor for
 * every open stream, with the limits and interval of the configuration.
 * Built inside the deps it reads, hence `venue` is asked for them only when
 * the first poll runs.
 *
 * @example const deps: VenueDeps = { ..., floor: createVenueFloorHub(() => deps, { intervalMs }) }
 */
export const createVenueFloorHub = (
  venue: () => VenueDeps,
  parameters: CreateVenueFloorHubParameters = {},
) =>
  createFloorHub({
    ...parameters,
    read: (cursor) => readFloor(venue(), cursor),
    onError: (error) => venue().logger.warn({ err: error }, 'floor poll failed: streams ended'),
  })
