import type { OpenAPIHono } from '@hono/zod-openapi'
import type { Client, TakeLimit } from './limits/client.ts'
import type { Logger } from './logger.ts'

// Apart from create-app.ts so that the modules createApp uses (openapi.ts)
// can name the app's type without importing createApp back.
export type AppEnv = {
  Variables: {
    logger: Logger
    /** Who the request counts for (set by `limitRequests`; absent in apps without limits). */
    client?: Client
    /** Counts more of a limit for this client (set by `limitRequests`). */
    takeLimit?: TakeLimit
  }
}
export type App = OpenAPIHono<AppEnv>
