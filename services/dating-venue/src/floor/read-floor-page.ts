import type { VenueDeps } from '../deps.ts'
import { featuredFirst, liveFeatured } from './featured-first.ts'
import type { FloorItem } from './floor-item.ts'
import { FLOOR_LIMIT, readFloor } from './read-floor.ts'

/** The floor as `GET /api/floor` serves it: the live featured posts first, then the newest. */
export const readFloorPage = async (deps: VenueDeps): Promise<FloorItem[]> => {
  const [featured, newest] = await Promise.all([liveFeatured(deps.database), readFloor(deps)])
  return featuredFirst(featured, newest, FLOOR_LIMIT)
}
