import { describePolicy } from './limit-policy.ts'
import { classOf, type LimitRequestsParameters, limitOfRoute } from './limit-requests.ts'
import type { DeclaredRoutes } from './route-limit.ts'

type Operation = { responses?: Record<string, unknown>; description?: string }
type Document = { paths?: Record<string, Record<string, Operation>> }

const header = (description: string) => ({ description, schema: { type: 'string' as const } })

/** What every limited answer carries (IETF httpapi RateLimit fields). */
export const LIMIT_HEADERS = {
  'RateLimit-Policy': header(
    'the limit this route counts against: `"<name>";q=<units>;w=<seconds>`',
  ),
  RateLimit: header('what is left of it: `"<name>";r=<remaining>;t=<seconds to reset>`'),
}

/**
 * Adds each limited operation's 429 (and the RateLimit headers of its other
 * answers) to a generated document: the limit a route counts against is
 * declared with the route (`limit`), so it is documented from there too.
 */
export const documentLimits = <document>(
  generated: document,
  limits: LimitRequestsParameters<string> | undefined,
  routes: DeclaredRoutes,
): document => {
  if (!limits) return generated
  const paths = (generated as Document).paths ?? {}
  for (const [path, operations] of Object.entries(paths)) {
    const honoPath = path.replace(/\{(\w+)\}/g, ':$1')
    for (const [method, operation] of Object.entries(operations)) {
      const route = limitOfRoute(routes, limits.unlisted, {
        method: method.toUpperCase(),
        path: honoPath,
      })
      const [withCredential, without] = [true, false].map((credential) => {
        const name = classOf(route, credential)
        const policy = name === undefined ? undefined : limits.limits.policies[name]
        return policy ? `\`${name}\` limit (${describePolicy(policy)} by default)` : undefined
      })
      if ((withCredential ?? without) === undefined || !operation.responses) continue
      // A route that documents a 429 of its own (a budget it charges itself) keeps its description.
      const own = (operation.responses['429'] as { description?: string } | undefined)?.description
      for (const answer of Object.values(operation.responses) as Array<{ headers?: object }>)
        answer.headers = { ...answer.headers, ...LIMIT_HEADERS }
      operation.responses['429'] = {
        description: `${
          withCredential === without || !withCredential || !without
            ? `over the ${withCredential ?? without} for this client (see the README)`
            : `over the ${withCredential} with a credential, the ${without} without one, for this client (see the README)`
        }${own ? `; or ${own}` : ''}`,
        headers: {
          ...LIMIT_HEADERS,
          'Retry-After': header('seconds until the limit allows another request'),
        },
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      }
    }
  }
  return generated
}
