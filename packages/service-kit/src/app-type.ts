import type { OpenAPIHono } from '@hono/zod-openapi'
import type { Client, TakeLimit } from './limits/client.ts'
import type { LimitDecision } from './limits/limits.ts'
import type { Logger } from './logger.ts'

// Apart from create-app.ts so that the modules createApp uses (openapi.ts)
// can name the app's type without importing createApp back.

/** What service-kit's own middleware sets on every request (`c.var`). */
export type AppVariables = {
  logger: Logger
  /** Who the request counts for (set by `limitRequests`; absent in apps without limits). */
  client?: Client
  /** Counts more of a limit for this client (set by `limitRequests`). */
  takeLimit?: TakeLimit
  /** The request limit this request counted against (set by `limitRequests`; its headers go on the answer). */
  limit?: LimitDecision
  /** The nonce of an HTML answer's inline script (set by `pageNonce`, named by its CSP). */
  pageNonce?: string
}

/** No variables of a service's own: the default, an app of service-kit's variables only. */
export type NoVariables = Record<never, never>

/**
 * An app's Hono env: service-kit's variables and the service's own, which
 * its middleware sets with `c.set` and its handlers read with `c.var`.
 *
 * @example type VenueEnv = AppEnv<{ actor: Actor | null }>
 */
export type AppEnv<variables extends object = NoVariables> = { Variables: AppVariables & variables }

/** The app every service starts from, generic over the request variables its own middleware sets. */
export type App<variables extends object = NoVariables> = OpenAPIHono<AppEnv<variables>>

/**
 * Any app, as service-kit's mounting helpers see it: they read only
 * service-kit's variables, which every app has (Hono's env is invariant, so
 * an `App<{ actor }>` is not an `App` without this view).
 */
export const baseApp = <variables extends object>(app: App<variables>) => app as unknown as App
