import { document, pageNonce, SafeText } from '@agents/service-kit'
import { z } from '@hono/zod-openapi'
import { LIMIT } from '../limits/limit-defaults.ts'
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
    limit: LIMIT.read,
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
  app.get(path, (c) =>
    c.html(
      identityDonePage({
        status: c.req.query('status'),
        verificationSessionId: c.req.query('verificationSessionId'),
        // Its style's; the page policy (service-kit) keeps its referrer from leaving.
        nonce: pageNonce(c),
      }),
      200,
      // The query names the session: keep it out of caches.
      { 'cache-control': 'no-store' },
    ),
  )
}
