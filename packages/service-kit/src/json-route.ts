import type { RouteConfig } from '@hono/zod-openapi'
import type { Context, MiddlewareHandler } from 'hono'
import type { z } from 'zod'
import { type App, type AppEnv, baseApp, type NoVariables } from './app-type.ts'
import { ApiError, errorBody } from './errors.ts'
import { isJsonMediaType } from './http/is-json-media-type.ts'
import { type LimitedRoute, registerRoute } from './limits/route-limit.ts'
import { parseInput } from './parse-input.ts'

export type JsonRouteOptions<variables extends object = NoVariables> = {
  /** Message of the 400 when the body fails its schema (the venue names its own). */
  validationMessage?: string
  /** Message of the 400 when the path params or the query fail theirs; `validationMessage` by default. */
  paramsMessage?: string
  /**
   * Run before the body is read, on this route only (credential checks):
   * a guard registered with the route cannot be bypassed by the order in
   * which other routes or `app.use` calls were registered.
   */
  middleware?: readonly MiddlewareHandler<AppEnv<variables>>[]
}

type BodyOf<route extends RouteConfig> = route['request'] extends {
  body: { content: { 'application/json': { schema: infer schema extends z.ZodType } } }
}
  ? z.output<schema>
  : undefined

type PartOf<route extends RouteConfig, part extends 'params' | 'query'> = route['request'] extends {
  [key in part]: infer schema extends z.ZodType
}
  ? z.output<schema>
  : Record<string, string>

/** The path params and query of a request, parsed by the route's schemas. */
export type JsonRouteInput<route extends RouteConfig> = {
  params: PartOf<route, 'params'>
  query: PartOf<route, 'query'>
}

/**
 * Registers a route that answers JSON: documented in `/openapi.json` from
 * `route`, limited as `route.limit` declares (see `registerRoute`); its path
 * params and query parsed by `route.request.params` and
 * `route.request.query` when declared; its JSON body, when declared, read
 * once, parsed and validated synchronously.
 *
 * Why not `app.openapi(route, handler)`: its validator runs zod's
 * `safeParseAsync` through several awaits, about 25 us per request on these
 * machines, a quarter of a small route's cost (bench/README.md). The wire
 * behaviour is the same: 415 for a non-JSON body, 400 for malformed JSON,
 * 400 with zod `issues` for a body, path or query that fails its schema.
 */
export const jsonRoute = <route extends LimitedRoute, variables extends object = NoVariables>(
  app: App<variables>,
  route: route,
  handler: (
    c: Context<AppEnv<variables>>,
    body: BodyOf<route>,
    input: JsonRouteInput<route>,
  ) => Response | Promise<Response>,
  {
    validationMessage = 'invalid request',
    paramsMessage = validationMessage,
    middleware = [],
  }: JsonRouteOptions<variables> = {},
) => {
  const path = registerRoute(baseApp(app), route)
  const schema = (
    route.request?.body?.content?.['application/json'] as { schema?: z.ZodType } | undefined
  )?.schema
  const paramsSchema = route.request?.params as z.ZodType | undefined
  const querySchema = route.request?.query as z.ZodType | undefined

  const validateJson: MiddlewareHandler<AppEnv<variables>> = async function validateJson(c) {
    const params = paramsSchema && parseInput(paramsSchema, c.req.param(), paramsMessage)
    const query = querySchema && parseInput(querySchema, c.req.query(), paramsMessage)
    // Undeclared parts are read only if the handler asks (most routes have neither).
    const input = {
      get params() {
        return params ?? c.req.param()
      },
      get query() {
        return query ?? c.req.query()
      },
    } as JsonRouteInput<route>
    if (!schema) return handler(c, undefined as BodyOf<route>, input)
    if (!isJsonMediaType(c.req.header('content-type')))
      throw new ApiError(415, 'Unsupported Media Type')
    let value: unknown
    try {
      value = JSON.parse(await c.req.text())
    } catch {
      throw new ApiError(400, 'malformed JSON body')
    }
    const result = schema.safeParse(value)
    if (!result.success)
      return c.json(errorBody(validationMessage, { issues: result.error.issues }), 400)
    return handler(c, result.data as BodyOf<route>, input)
  }
  app.on(route.method.toUpperCase(), [path], ...middleware, validateJson)
}
