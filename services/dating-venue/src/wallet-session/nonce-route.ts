import { errors, json, jsonRoute } from '@agents/service-kit'
import { createRoute, type z } from '@hono/zod-openapi'
import type { VenueDeps } from '../deps.ts'
import { LIMIT } from '../limits/limit-defaults.ts'
import { SIWE_CHAIN_ID } from '../login/verify-siwe-token.ts'
import type { VenueApp } from '../venue-env.ts'
import { issueNonce } from './wallet-session.ts'

export type NonceRouteParameters = {
  path: string
  summary: string
  /** The statement the signed message carries. */
  statement: string
  /** The answer's schema (each page names its own in `/openapi.json`). */
  schema: z.ZodType
  /** Refuses before a nonce is issued (the console: 404 on a venue without one). */
  refuse?: () => void
  /** The refusals `refuse` documents. */
  refusals?: Record<number, string>
}

/**
 * `POST <path>`: a one-time SIWE nonce (kept 10 minutes) and the fields of
 * the EIP-4361 message to sign, for the chat page and the console alike:
 * the wallet session both sign in with. A message is accepted only with
 * exactly these domain, origin (URI), chain and nonce (`verifySiweToken`).
 */
export const registerNonceRoute = (
  app: VenueApp,
  deps: Pick<VenueDeps, 'database' | 'humanChat'>,
  { path, summary, statement, schema, refuse, refusals }: NonceRouteParameters,
) =>
  jsonRoute(
    app,
    createRoute({
      method: 'post',
      path,
      summary,
      limit: LIMIT.signin,
      security: [],
      responses: {
        200: json(schema, 'sign an EIP-4361 message with these'),
        ...(refusals ? errors(refusals) : {}),
      },
    }),
    async (c) => {
      refuse?.()
      const { nonce, expiresAt } = await issueNonce(deps)
      return c.json({
        nonce,
        domain: deps.humanChat.siweDomain(),
        uri: deps.humanChat.origin(),
        chainId: SIWE_CHAIN_ID,
        statement,
        expiresAt: expiresAt.toISOString(),
      })
    },
  )
