import {
  type App,
  createApp,
  document,
  type Logger,
  type Metrics,
  mountMcp,
  type RequestLimits,
} from '@agents/service-kit'
import { z } from '@hono/zod-openapi'
import { type PrecomputedAnswers, precomputeAnswers } from './hot-path/precompute-answers.ts'
import type { RouterLimitName } from './limits/limit-defaults.ts'
import { llmsTxt } from './llms.ts'
import type { Matrix } from './matrix/load-matrix.ts'
import { launchRouterTools } from './mcp-tools.ts'
import { createSaltMetrics } from './metrics/salt-metrics.ts'
import { createSaltMiner } from './payload/mine-salt-cached.ts'
import { registerOperations } from './routes/register-operations.ts'
import type { MinerPool } from './salt/miner-pool.ts'

export const SERVICE_NAME = 'launch-router'
export const API_VERSION = '0.1.0'

export type BuildAppParameters = {
  matrix: Matrix
  pool: MinerPool
  logger: Logger
  maxBodyBytes?: number
  salt: { maxIterations: number; timeBudgetMs: number }
  /** The router's public base URL (`BASE_URL`, else the address it listens on): llms.txt's links. */
  baseUrl: () => string
  /** Request limits and the mining budget per client; without, nothing is limited (benches compare). */
  limits?: RequestLimits<RouterLimitName> | undefined
  /** Request and salt figures for `GET /metrics`, served to `metricsToken` only. */
  metrics?: { metrics: Metrics; token: string | undefined }
  /** The matrix's answers computed at start-up (`precomputeAnswers`); computed here when absent. */
  answers?: PrecomputedAnswers
}

/** The launch router's HTTP app: the six operations, MCP, OpenAPI, llms.txt, limits, metrics. */
export const buildApp = ({
  matrix,
  pool,
  logger,
  maxBodyBytes,
  salt,
  baseUrl,
  limits,
  metrics,
  answers = precomputeAnswers(matrix),
}: BuildAppParameters): App => {
  const app = createApp({
    name: SERVICE_NAME,
    version: API_VERSION,
    logger,
    description:
      "Checks token-launch intents against a matrix of launch pads and builds unsigned payloads for the user's own wallet.",
    ...(maxBodyBytes ? { maxBodyBytes } : {}),
    ...(limits ? { limits } : {}),
    ...(metrics ? { metrics: metrics.metrics, metricsToken: metrics.token } : {}),
  })
  const deps = {
    matrix,
    answers,
    mineSalt: createSaltMiner(pool, {
      ...salt,
      ...(metrics ? { onSalt: createSaltMetrics(metrics.metrics) } : {}),
    }),
  }
  registerOperations(app, deps)
  mountMcp(app, {
    name: SERVICE_NAME,
    version: API_VERSION,
    tools: launchRouterTools(deps),
    ...(limits ? { limits: { other: 'read' } } : {}),
  })
  const llmsPath = document(app, {
    method: 'get',
    path: '/llms.txt',
    summary: 'What the router does and how to call it, for a language model (Markdown)',
    security: [],
    limit: 'read',
    responses: {
      200: {
        content: { 'text/markdown': { schema: z.string() } },
        description:
          "the guide, with links on the router's base URL (BASE_URL, else its listening address)",
      },
    },
  })
  app.get(llmsPath, (c) =>
    // On the configured base URL: never the request's Host or X-Forwarded-Host.
    c.text(llmsTxt(baseUrl()), 200, {
      'content-type': 'text/markdown; charset=utf-8',
    }),
  )
  return app
}
