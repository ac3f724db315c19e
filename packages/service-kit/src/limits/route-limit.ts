import type { RouteConfig } from '@hono/zod-openapi'
import type { App } from '../app-type.ts'

/** The route a request matched (its pattern, `/v1/offers/:id`), or `unmatched`. */
export type MatchedRoute = { method: string; path: string }

/**
 * A route's request limit, declared with the route (`limit` beside its
 * OpenAPI entry, read by `document` and `jsonRoute`): enforcement, the
 * document's 429 and the tests all read this one declaration.
 */
export type RouteLimit<name extends string = string> = {
  /** The class (a policy's name) each request of the route counts against. */
  name: name
  /**
   * The class of a request that presents none of the credentials the route
   * counts (`anonymous-write`); `name` by default.
   */
  anonymous?: name
  /**
   * A credential the route checks that is not one of its OpenAPI `security`
   * schemes, named as in `createRequestLimits`'s `credentials`: the rail's
   * match id, a capability in the path.
   */
  capability?: string
}

/** What a route declares: a class name, a `RouteLimit`, or `false` (not limited: `/mcp` counts each message itself). */
export type LimitDeclaration<name extends string = string> = name | RouteLimit<name> | false

/** A route config with its limit (omitted: the service's `unlisted` class applies). */
export type LimitedRoute = RouteConfig & { limit?: LimitDeclaration }

/** What limits a request of a route: its class (undefined: not limited) and the credentials it counts, in order. */
export type RouteLimits = { limit: RouteLimit | undefined; credentials: readonly string[] }

/**
 * What the limits know of a documented route: its declared limit (none:
 * the service's `unlisted` class) and the credentials it counts, in order:
 * its `security` schemes, then its `capability`. A route counts only what
 * it checks: anything else a request presents is ignored, so a made-up
 * credential on a public route buys no bucket.
 */
export type DeclaredRoute = {
  limit: LimitDeclaration | undefined
  credentials: readonly string[]
  /** The declaration as the limits read it, resolved once (undefined: none declared). */
  counted: RouteLimits | undefined
}

const tables = new WeakMap<object, Map<string, DeclaredRoute>>()

const tableOf = (app: Pick<App, 'openAPIRegistry'>) => {
  let table = tables.get(app.openAPIRegistry)
  if (!table) {
    table = new Map()
    tables.set(app.openAPIRegistry, table)
  }
  return table
}

// Methods as Hono's matched routes name them (upper case).
const keyOf = (method: string, path: string) => `${method} ${path}`

/** A declaration as the limits read it; `undefined`: not limited. */
export const routeLimitOf = (declaration: LimitDeclaration): RouteLimit | undefined =>
  declaration === false
    ? undefined
    : typeof declaration === 'string'
      ? { name: declaration }
      : declaration

/**
 * Registers a route's OpenAPI entry and records its limit declaration
 * (`limit` itself stays out of the document). Returns Hono's path.
 */
export const registerRoute = (app: Pick<App, 'openAPIRegistry'>, route: LimitedRoute) => {
  const { limit, ...config } = route
  const path = route.path.replace(/\{(\w+)\}/g, ':$1')
  const schemes = (route.security ?? []).flatMap((requirement) => Object.keys(requirement))
  const credentials = [...new Set(schemes)]
  const declared = limit === undefined ? undefined : routeLimitOf(limit)
  if (declared?.capability !== undefined) credentials.push(declared.capability)
  tableOf(app).set(keyOf(route.method.toUpperCase(), path), {
    limit,
    credentials,
    counted: limit === undefined ? undefined : { limit: declared, credentials },
  })
  app.openAPIRegistry.registerPath(config as RouteConfig)
  return path
}

/** The declaration of the route a request matched (`matchedRoute`), if the route was documented. */
export type DeclaredRoutes = {
  of(route: MatchedRoute): DeclaredRoute | undefined
  /** Every documented route, `METHOD /hono/:path` and its declaration (tests, documents). */
  entries(): IterableIterator<[string, DeclaredRoute]>
}

/** The documented routes of an app, as registered so far (routes register after `createApp`). */
export const declaredRoutes = (app: Pick<App, 'openAPIRegistry'>): DeclaredRoutes => {
  const table = tableOf(app)
  return {
    of: ({ method, path }) => table.get(keyOf(method, path)),
    entries: () => table.entries(),
  }
}
