import type { MatchedRoute } from '@agents/service-kit'
import type { VenueLimitName } from './limit-defaults.ts'
import { routeLimitOf } from './route-limits.ts'

/** The limit a request counts against (route-limits.ts); undefined: not limited. */
export const classifyRoute = (
  route: MatchedRoute,
  { credential }: { credential: boolean },
): VenueLimitName | undefined => {
  const { limit, anonymous } = routeLimitOf(route)
  return credential ? limit : (anonymous ?? limit)
}
