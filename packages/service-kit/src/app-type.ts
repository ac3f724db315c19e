import type { OpenAPIHono } from '@hono/zod-openapi'
import type { Logger } from './logger.ts'

// Apart from create-app.ts so that the modules createApp uses (openapi.ts)
// can name the app's type without importing createApp back.
export type AppEnv = { Variables: { logger: Logger } }
export type App = OpenAPIHono<AppEnv>
