import { createRoute, z } from '@hono/zod-openapi'
import type { App } from './app-type.ts'
import { type LimitedRoute, registerRoute } from './limits/route-limit.ts'

/** Every error answer: `{ error }`, with zod `issues` on a 400 from a schema, and route-specific extras. */
export const ErrorResponse = z
  .object({ error: z.string(), issues: z.array(z.unknown()).optional() })
  .passthrough()
  .openapi('Error')

/** A JSON request or response part of a route: `{ content: { 'application/json': { schema } }, description }`. */
export const json = <schema extends z.ZodType>(schema: schema, description: string) => ({
  content: { 'application/json': { schema } },
  description,
})

/** Error responses by status, each documented as `ErrorResponse`. */
export const errors = (codes: Record<number, string>) =>
  Object.fromEntries(
    Object.entries(codes).map(([code, description]) => [code, json(ErrorResponse, description)]),
  )

/** A route that needs no credential (`security: []` overrides a document-wide default). */
export const freeRead = { security: [] as Array<Record<string, string[]>> }

/**
 * Documents a route whose handler is registered with `app.get`/`app.post`
 * directly (streams, pages, raw-body webhooks), with its request limit
 * (`limit`, see `registerRoute`); returns Hono's path.
 *
 * @example app.get(document(app, { method: 'get', path: '/v1/offers/{id}', limit: 'read', ... }), handler)
 */
export const document = <route extends LimitedRoute>(
  app: Pick<App, 'openAPIRegistry'>,
  route: route,
) => registerRoute(app, createRoute(route))
