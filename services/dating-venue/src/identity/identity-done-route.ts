import { randomBytes } from 'node:crypto'
import { document, SafeText } from '@agents/service-kit'
import { z } from '@hono/zod-openapi'
import { SECURITY } from '../openapi.ts'
import type { VenueApp } from '../venue-env.ts'
import { IDENTITY_DONE_PATH, identityDonePage } from './identity-done-page.ts'

/**
 * GET /identity/done: the identity session's `callback`, where the provider
 * sends the human's browser after the check. Only a page: the result comes
 * from the signed webhook (POST /api/identity/webhook/idp).
 */
export const registerIdentityDonePage = (app: VenueApp) => {
  const path = document(app, {
    method: 'get',
    path: IDENTITY_DONE_PATH,
    summary: "Where the identity provider sends the human's browser after the check (HTML)",
    security: SECURITY.none,
    request: {
      query: z.object({
        verificationSessionId: SafeText.optional(),
        status: SafeText.optional(),
      }),
    },
    responses: { 200: { description: 'HTML', content: { 'text/html': { schema: z.string() } } } },
  })
  app.get(path, (c) => {
    const nonce = randomBytes(16).toString('base64')
    return c.html(
      identityDonePage({
        status: c.req.query('status'),
        verificationSessionId: c.req.query('verificationSessionId'),
        nonce,
      }),
      200,
      {
        'content-security-policy': `default-src 'none'; style-src 'nonce-${nonce}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
        // The query names the session: keep it out of other sites' logs and caches.
        'referrer-policy': 'no-referrer',
        'cache-control': 'no-store',
      },
    )
  })
}
