import { type AppEnv, pageNonce } from '@agents/service-kit'
import type { Context } from 'hono'

/**
 * The nonce and headers of a page that runs one inline script of its own
 * (the claim page, the chat page, the console): service-kit's page policy
 * lets only the script carrying this answer's nonce run, talk only to this
 * origin, and nothing frame the page or get its referrer; no cache keeps it.
 */
export const scriptPage = <variables extends object>(c: Context<AppEnv<variables>>) => ({
  nonce: pageNonce(c),
  headers: { 'cache-control': 'no-store' },
})
