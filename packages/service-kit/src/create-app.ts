import { OpenAPIHono, type RouteConfig, z } from '@hono/zod-openapi'
import type { Context, MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { HTTPException } from 'hono/http-exception'
import { methodNotAllowed } from 'hono/method-not-allowed'
import type { App, AppEnv, NoVariables } from './app-type.ts'
import { ApiError, errorBody } from './errors.ts'
import { limitJsonDepth, MAX_JSON_DEPTH } from './http/json-depth.ts'
import { secureAnswers } from './http/secure-headers.ts'
import {
  type LimitRequestsParameters,
  limitRequests,
  matchedRoute,
  setHeaders,
} from './limits/limit-requests.ts'
import { documentLimits } from './limits/openapi-limits.ts'
import { declaredRoutes } from './limits/route-limit.ts'
import type { Logger } from './logger.ts'
import { type Metrics, mountMetrics } from './metrics/metrics.ts'
import { document, json } from './openapi.ts'
import { recordRequest } from './record-request.ts'
import { sanitizeError } from './sanitize-error.ts'
import { isUnavailable } from './unavailable.ts'

export type { App, AppEnv, AppVariables, NoVariables } from './app-type.ts'

export type CreateAppParameters = {
  /** Service name, used in logs, `/health` and the OpenAPI document. */
  name: string
  /** Interface version published in `/openapi.json` and `/health`. */
  version: string
  logger: Logger
  /** OpenAPI `info.description`. */
  description?: string
  /** Largest request body accepted, in bytes; larger bodies get 413. */
  maxBodyBytes?: number
  /** Deepest nesting of a JSON body (arrays and objects); deeper bodies get 400 before any route. */
  maxJsonDepth?: number
  /** Message of the 404 body (the venue says "no such room"). */
  notFoundMessage?: string
  /** Message of a 400 for a body that fails its schema; routes may pass their own hook. */
  validationMessage?: string
  /** Replaces the default `GET /health` handler (which answers `{ status: "ok" }`). */
  health?: (c: Context<AppEnv>) => Response | Promise<Response>
  /** What `health` answers, for `/openapi.json` (required with a custom `health`: every route is documented). */
  healthResponses?: RouteConfig['responses']
  /** Runs first on every request, before 404/405 and every route (the venue's geographic gate). */
  gate?: MiddlewareHandler<AppEnv>
  /**
   * Request limits per client and route class (after the gate, before every
   * route), from `createRequestLimits`: each route counts against the class
   * it declares (`limit` beside its OpenAPI entry), which also documents its 429.
   */
  limits?: LimitRequestsParameters<string>
  /** Counts every request by route and status, and serves `GET /metrics` to `metricsToken`. */
  metrics?: Metrics
  /** The operator's bearer token for `GET /metrics`; unset: the route answers 403. */
  metricsToken?: string | undefined
}

const MALFORMED_JSON = 'Malformed JSON in request body'

/**
 * The Hono app every service starts from: JSON errors in one shape,
 * security headers on every answer, request logging, body size and JSON
 * depth limits, 404/405, `GET /health` and
 * `GET /openapi.json` built from the routes registered with `app.openapi`.
 *
 * @example
 * const app = createApp({ name: 'launch-router', version: '0.1.0', logger })
 * app.openapi(listPadsRoute, (c) => c.json(listPads(matrix)))
 */
export const createApp = <variables extends object = NoVariables>({
  name,
  version,
  logger,
  description,
  maxBodyBytes = 64 * 1024,
  maxJsonDepth = MAX_JSON_DEPTH,
  notFoundMessage = 'not found',
  validationMessage = 'invalid request',
  health,
  healthResponses,
  gate,
  limits,
  metrics,
  metricsToken,
}: CreateAppParameters): App<variables> => {
  // Built as an app of service-kit's variables (all its middleware reads);
  // the service's own are its middleware's to set.
  const app: App = new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (!result.success) {
        return c.json(errorBody(validationMessage, { issues: result.error.issues }), 400)
      }
    },
  })

  // Outermost: every answer gets the headers, errors and 404s included.
  app.use(secureAnswers())
  app.use(async function logRequest(c, next) {
    const started = performance.now()
    c.set('logger', logger)
    await next()
    recordRequest(
      { logger, metrics },
      {
        method: c.req.method,
        path: c.req.path,
        route: matchedRoute(c),
        status: c.res.status,
        started,
        limit: c.var.limit,
      },
      {
        has: (header) => c.res.headers.has(header),
        set: (header, value) => setHeaders(c, { [header]: value }),
      },
    )
  })
  if (gate) app.use(gate)
  if (limits)
    app.use(
      limitRequests(
        {
          ...limits,
          onLimited: (name) => {
            metrics?.limited.inc({ limit: name })
            limits.onLimited?.(name)
          },
        },
        declaredRoutes(app),
      ),
    )
  app.use(
    methodNotAllowed({
      app,
      onMethodNotAllowed: (c, methods) =>
        c.json(errorBody('method not allowed'), 405, { Allow: methods.join(', ') }),
    }),
  )
  const tooLarge = (c: Context) => c.json(errorBody(`request body over ${maxBodyBytes} bytes`), 413)
  const streamingLimit = bodyLimit({ maxSize: maxBodyBytes, onError: tooLarge })
  app.use(async function limitBody(c, next) {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next()
    // Decide from Content-Length when it is there: Hono's bodyLimit touches
    // `c.req.raw.body`, which makes @hono/node-server build a full undici
    // Request per call (7x slower on a small JSON route, bench/README.md).
    // Chunked bodies still go through the streaming counter.
    const length = c.req.header('content-length')
    if (length !== undefined && c.req.header('transfer-encoding') === undefined) {
      return Number(length) > maxBodyBytes ? tooLarge(c) : next()
    }
    return streamingLimit(c, next)
  })
  app.use(limitJsonDepth(maxJsonDepth))

  app.notFound((c) => c.json(errorBody(notFoundMessage), 404))
  app.onError((error, c) => {
    if (error instanceof ApiError)
      return c.json(errorBody(error.message, error.extras), error.status, error.headers)
    if (error instanceof HTTPException && error.status < 500) {
      const message = error.message === MALFORMED_JSON ? 'malformed JSON body' : error.message
      return c.json(errorBody(message || 'bad request'), error.status)
    }
    if (isUnavailable(error)) {
      logger.warn({ err: sanitizeError(error), path: c.req.path }, 'dependency unavailable')
      return c.json(errorBody('service unavailable: retry shortly'), 503, { 'retry-after': '1' })
    }
    // Sanitized: a failed query's message carries its parameters (user text).
    logger.error(
      { err: sanitizeError(error), method: c.req.method, path: c.req.path },
      'unhandled error',
    )
    return c.json(errorBody('internal'), 500)
  })

  const healthPath = document(app, {
    method: 'get',
    path: '/health',
    summary: 'Whether the service and its dependencies are up',
    security: [],
    responses: healthResponses ?? {
      200: json(
        z.object({ status: z.literal('ok'), service: z.string(), version: z.string() }),
        'up',
      ),
    },
  })
  app.get(healthPath, health ?? ((c) => c.json({ status: 'ok', service: name, version })))

  const documentPath = document(app, {
    method: 'get',
    path: '/openapi.json',
    summary: 'This document (OpenAPI 3.1.0)',
    security: [],
    responses: {
      200: json(
        z
          .object({
            openapi: z.literal('3.1.0'),
            info: z.object({
              title: z.string(),
              version: z.string(),
              description: z.string().optional(),
            }),
            paths: z.record(z.string(), z.record(z.string(), z.unknown())),
            components: z.record(z.string(), z.unknown()).optional(),
          })
          .passthrough(),
        'the document',
      ),
    },
  })
  let openapi: unknown
  app.get(documentPath, (c) => {
    openapi ??= documentLimits(
      app.getOpenAPI31Document({
        openapi: '3.1.0',
        info: { title: name, version, ...(description ? { description } : {}) },
      }),
      limits,
      declaredRoutes(app),
    )
    return c.json(openapi)
  })
  if (metrics) mountMetrics(app, { metrics, token: metricsToken })

  return app as unknown as App<variables>
}
