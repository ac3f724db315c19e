import { type App, createApp, document, type Logger, mountMcp } from '@agents/service-kit'
import { z } from '@hono/zod-openapi'
import { llmsTxt } from './llms.ts'
import type { Matrix } from './matrix/load-matrix.ts'
import { launchRouterTools } from './mcp-tools.ts'
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
  baseUrl?: string
}

/** The launch router's HTTP app: the six operations, MCP, OpenAPI, llms.txt. */
export const buildApp = ({
  matrix,
  pool,
  logger,
  maxBodyBytes,
  salt,
  baseUrl,
}: BuildAppParameters): App => {
  const app = createApp({
    name: SERVICE_NAME,
    version: API_VERSION,
    logger,
    description:
      "Checks token-launch intents against a matrix of launch pads and builds unsigned payloads for the user's own wallet.",
    ...(maxBodyBytes ? { maxBodyBytes } : {}),
  })
  const deps = { matrix, mineSalt: createSaltMiner(pool, salt) }
  registerOperations(app, deps)
  mountMcp(app, { name: SERVICE_NAME, version: API_VERSION, tools: launchRouterTools(deps) })
  const llmsPath = document(app, {
    method: 'get',
    path: '/llms.txt',
    summary: 'What the router does and how to call it, for a language model (Markdown)',
    security: [],
    responses: {
      200: {
        content: { 'text/markdown': { schema: z.string() } },
        description: 'the guide, with links on the origin it was fetched from',
      },
    },
  })
  app.get(llmsPath, (c) =>
    c.text(llmsTxt(baseUrl ?? new URL(c.req.url).origin), 200, {
      'content-type': 'text/markdown; charset=utf-8',
    }),
  )
  return app
}
