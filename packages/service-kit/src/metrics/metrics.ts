import { createHash, timingSafeEqual } from 'node:crypto'
import { z } from '@hono/zod-openapi'
import {
  type CollectFunction,
  Counter,
  collectDefaultMetrics,
  Gauge,
  Histogram,
  Registry,
} from 'prom-client'
import { type App, baseApp } from '../app-type.ts'
import { errorBody } from '../errors.ts'
import { bearerToken } from '../http/bearer-token.ts'
import { document, errors } from '../openapi.ts'

/**
 * What every service reports to its operator, in one registry per app (a
 * test process runs many apps; prom-client's global registry would mix them).
 */
export type Metrics = {
  registry: Registry
  requests: Counter<'method' | 'route' | 'status'>
  duration: Histogram<'method' | 'route'>
  /** Requests refused by a limit or budget, by its name (a route class or a budget). */
  limited: Counter<'limit'>
  /** Calls to outside services (moderation, embeddings, a model, callbacks) by target and outcome. */
  outbound: Counter<'target' | 'outcome'>
  /** A gauge read when scraped: `collect` sets it (from the database, a budget). */
  gauge: <label extends string>(
    name: string,
    help: string,
    labelNames: readonly label[],
    collect: CollectFunction<Gauge<label>>,
  ) => Gauge<label>
  /** A service's own counter (runs of a background job, by outcome). */
  counter: <label extends string>(
    name: string,
    help: string,
    labelNames: readonly label[],
  ) => Counter<label>
  /** A service's own histogram (how long a background job takes), in seconds by default buckets. */
  histogram: <label extends string>(
    name: string,
    help: string,
    labelNames: readonly label[],
    buckets?: number[],
  ) => Histogram<label>
}

export type CreateMetricsParameters = {
  service: string
  /** Process metrics (CPU, memory, event loop lag); off in tests that build many apps. */
  processMetrics?: boolean
}

export const createMetrics = ({
  service,
  processMetrics = true,
}: CreateMetricsParameters): Metrics => {
  const registry = new Registry()
  registry.setDefaultLabels({ service })
  if (processMetrics) collectDefaultMetrics({ register: registry })
  return {
    registry,
    requests: new Counter({
      name: 'http_requests_total',
      help: 'Requests answered, by route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time to the answer (streams: to their first byte), by route pattern',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    limited: new Counter({
      name: 'rate_limited_total',
      help: 'Requests refused by a request limit (429) or a spent budget (503), by limit',
      labelNames: ['limit'],
      registers: [registry],
    }),
    outbound: new Counter({
      name: 'outbound_calls_total',
      help: 'Calls to outside services, by target and outcome',
      labelNames: ['target', 'outcome'],
      registers: [registry],
    }),
    gauge: (name, help, labelNames, collect) =>
      new Gauge({ name, help, labelNames, collect, registers: [registry] }),
    // Asked for again by name (a job run from two places), the same metric.
    counter: (name, help, labelNames) =>
      (registry.getSingleMetric(name) as Counter<(typeof labelNames)[number]> | undefined) ??
      new Counter({ name, help, labelNames, registers: [registry] }),
    histogram: (name, help, labelNames, buckets) =>
      (registry.getSingleMetric(name) as Histogram<(typeof labelNames)[number]> | undefined) ??
      new Histogram({
        name,
        help,
        labelNames,
        ...(buckets ? { buckets } : {}),
        registers: [registry],
      }),
  }
}

const digest = (value: string) => createHash('sha256').update(value).digest()

/**
 * `GET /metrics` in Prometheus text format, for the operator only: a bearer
 * token compared in constant time. Without a configured token the route
 * answers 403, so metrics are never public by accident.
 */
export const mountMetrics = <variables extends object>(
  anyApp: App<variables>,
  { metrics, token }: { metrics: Metrics; token: string | undefined },
) => {
  const app = baseApp(anyApp)
  const expected = token === undefined ? undefined : digest(token)
  const path = document(app, {
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics, for the operator (Authorization: Bearer METRICS_TOKEN)',
    security: [{ metricsToken: [] }],
    responses: {
      200: {
        description: 'Prometheus text exposition format 0.0.4',
        content: { 'text/plain': { schema: z.string() } },
      },
      ...errors({
        401: 'no or wrong metrics token',
        403: 'metrics are off: no METRICS_TOKEN is configured',
      }),
    },
  })
  app.openAPIRegistry.registerComponent('securitySchemes', 'metricsToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'METRICS_TOKEN, the operator’s metrics credential',
  })
  app.get(path, async (c) => {
    if (expected === undefined)
      return c.json(errorBody('metrics are off: set METRICS_TOKEN to scrape them'), 403)
    const presented = bearerToken(c.req.header('authorization'))
    if (presented === undefined || !timingSafeEqual(digest(presented), expected))
      return c.json(errorBody('metrics need the operator’s token'), 401, {
        'WWW-Authenticate': 'Bearer',
      })
    return c.body(await metrics.registry.metrics(), 200, {
      'content-type': metrics.registry.contentType,
    })
  })
}
