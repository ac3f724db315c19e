import { randomBytes } from 'node:crypto'
import { ApiError, type App } from '@agents/service-kit'
import type { Context } from 'hono'
import type { VenueDeps } from '../deps.ts'
import { claimInvite, newIdentitySession } from './claim.ts'
import { claimPage } from './claim-page.ts'
import { giveIntroConsent } from './consent.ts'
import { parseCoupleId } from './couple-owners.ts'
import { applyIdentityEvent } from './identity-events.ts'
import { createInvites, readOwnInvite } from './invites.ts'
import { brokerCouple, escalationStatus, giveRevealConsent, reveal } from './reveal.ts'

/** A JSON body for the escalation routes, whose spec rows name their own 400s. */
const jsonBody = async (c: Context) => {
  const text = await c.req.text()
  if (!text.trim()) return {}
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw new ApiError(400, 'malformed JSON body')
  }
}

/** Consent, invites, the human's claim, the identity check and its webhook, the reveal, and the broker action. */
export const registerEscalationRoutes = (app: App, deps: VenueDeps) => {
  app.post('/api/couples/:id/intro-consent', async (c) =>
    c.json(
      await giveIntroConsent(
        deps,
        parseCoupleId(c.req.param('id')),
        await jsonBody(c),
        c.req.header('authorization'),
      ),
    ),
  )
  app.post('/api/escalations/:coupleId/invite', async (c) =>
    c.json(
      await createInvites(
        deps,
        parseCoupleId(c.req.param('coupleId')),
        c.req.header('authorization'),
      ),
    ),
  )
  app.get('/api/escalations/:coupleId/invite', async (c) =>
    c.json(
      await readOwnInvite(
        deps,
        parseCoupleId(c.req.param('coupleId')),
        c.req.header('authorization'),
      ),
    ),
  )
  app.get('/api/escalations/:coupleId/status', async (c) => {
    if (!(await deps.settings.venueOpen()))
      throw new ApiError(403, 'escalation status opens when the venue opens')
    return c.json(await escalationStatus(deps, parseCoupleId(c.req.param('coupleId'))))
  })
  app.get('/claim', (c) => {
    const nonce = randomBytes(16).toString('base64')
    return c.html(
      claimPage({ token: c.req.query('token') ?? '', loginUrl: deps.login.url, nonce }),
      200,
      {
        'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
        'referrer-policy': 'no-referrer',
        'cache-control': 'no-store',
      },
    )
  })
  app.post('/api/escalations/claim', async (c) =>
    c.json(await claimInvite(deps, await jsonBody(c))),
  )
  app.post('/api/identity/session', async (c) =>
    c.json(await newIdentitySession(deps, await jsonBody(c), c.req.header('authorization'))),
  )
  app.post('/api/identity/webhook/idp', async (c) => {
    // The exact bytes as sent: the signature covers them, and nothing is parsed before it passes.
    const rawBody = new Uint8Array(await c.req.arrayBuffer())
    const timestamp = c.req.header('x-timestamp')
    const checked = deps.identity.verifyWebhook({
      rawBody,
      signature: c.req.header('x-signature'),
      timestamp,
    })
    if (!checked.ok) return c.json({ error: 'webhook rejected', reason: checked.reason }, 400)
    return c.json(await applyIdentityEvent(deps, checked.event, Number(timestamp)))
  })
  app.post('/api/couples/:id/reveal-consent', async (c) =>
    c.json(
      await giveRevealConsent(
        deps,
        parseCoupleId(c.req.param('id')),
        c.req.header('authorization'),
      ),
    ),
  )
  app.get('/api/couples/:id/reveal', async (c) =>
    c.json(
      await reveal(deps, parseCoupleId(c.req.param('id')), c.req.header('authorization')),
      200,
      {
        'cache-control': 'no-store',
      },
    ),
  )
  app.post('/admin/actions/broker', async (c) =>
    c.json(await brokerCouple(deps, await jsonBody(c))),
  )
}
