import { ApiError, type App, parseInput, SafeText } from '@agents/service-kit'
import { createRoute, type RouteConfig, z } from '@hono/zod-openapi'

export const ErrorResponse = z
  .object({ error: z.string(), issues: z.array(z.unknown()).optional() })
  .passthrough()
  .openapi('Error')

export const json = <schema extends z.ZodType>(schema: schema, description: string) => ({
  content: { 'application/json': { schema } },
  description,
})

export const errors = (codes: Record<number, string>) =>
  Object.fromEntries(
    Object.entries(codes).map(([code, description]) => [code, json(ErrorResponse, description)]),
  )

/** Free reads: documented as needing no credential. */
export const freeRead = { security: [] as Array<Record<string, string[]>> }

/** Documents a route whose handler is registered with app.get/app.post directly. */
export const document = <route extends RouteConfig>(app: App, route: route) => {
  app.openAPIRegistry.registerPath(createRoute(route))
  return route.path.replace(/\{(\w+)\}/g, ':$1')
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** The message of a 400 for a path id no row could have (U+0000). */
export const INVALID_ID = 'invalid id'

export const IdParam = z.object({ id: SafeText.openapi({ param: { name: 'id', in: 'path' } }) })

/**
 * Ids are uuids; anything else cannot name a row, so it is the same 404,
 * except text the database could not even compare (U+0000): a 400.
 */
export const idOr404 = (id: string | undefined, what: string) => {
  if (id === undefined) throw new ApiError(404, `no such ${what}`)
  parseInput(IdParam, { id }, INVALID_ID)
  if (!UUID.test(id)) throw new ApiError(404, `no such ${what}`)
  return id.toLowerCase()
}
