import { randomBytes } from 'node:crypto'
import { ApiError, type App, isJsonMediaType, readJsonBody, SafeText } from '@agents/service-kit'
import { z } from '@hono/zod-openapi'
import { CoupleParams } from '../couples/couples.ts'
import type { VenueDeps } from '../deps.ts'
import { registerIdentityDonePage } from '../identity/identity-done-route.ts'
import { WebhookBody } from '../identity/webhook.ts'
import { documentRoute, jsonRequest, jsonResponses, SECURITY } from '../openapi.ts'
import { claimInvite, newIdentitySession } from './claim.ts'
import { claimPage } from './claim-page.ts'
import { giveIntroConsent } from './consent.ts'
import { parseCoupleId } from './couple-owners.ts'
import { BrokerBody, ClaimBody, EscalationParams, OwnerRef } from './escalation-schemas.ts'
import { applyIdentityEvent } from './identity-events.ts'
import { createInvites, readOwnInvite } from './invites.ts'
import { brokerCouple, escalationStatus, giveRevealConsent, reveal } from './reveal.ts'

/** Consent, invites, the human's claim, the identity check and its webhook, the reveal, and the broker action. */
export const registerEscalationRoutes = (app: App, deps: VenueDeps) => {
  const consentPath = documentRoute(app, {
    method: 'post',
    path: '/api/couples/{id}/intro-consent',
    summary: 'The owner agrees that the humans should meet; the second consent commits the couple',
    security: SECURITY.credential,
    request: { params: CoupleParams, body: jsonRequest(OwnerRef) },
    responses: jsonResponses({ 403: 'owner not in this couple', 404: 'no such couple' }),
  })
  app.post(consentPath, async (c) =>
    c.json(
      await giveIntroConsent(
        deps,
        parseCoupleId(c.req.param('id')),
        await readJsonBody(c),
        c.req.header('authorization'),
      ),
    ),
  )
  const invitePath = documentRoute(app, {
    method: 'post',
    path: '/api/escalations/{coupleId}/invite',
    summary: 'One-time invites, one per owner, handed to the agents',
    security: SECURITY.credential,
    request: { params: EscalationParams },
    responses: jsonResponses({ 404: 'couple/owners not found', 409: 'couple not committed' }),
  })
  app.post(invitePath, async (c) =>
    c.json(
      await createInvites(
        deps,
        parseCoupleId(c.req.param('coupleId')),
        c.req.header('authorization'),
      ),
    ),
  )
  documentRoute(app, {
    method: 'get',
    path: '/api/escalations/{coupleId}/invite',
    summary: "The caller's own owner's unclaimed invite",
    security: SECURITY.credential,
    request: { params: EscalationParams },
    responses: jsonResponses({ 404: 'no invite' }),
  })
  app.get(invitePath, async (c) =>
    c.json(
      await readOwnInvite(
        deps,
        parseCoupleId(c.req.param('coupleId')),
        c.req.header('authorization'),
      ),
    ),
  )
  const statusPath = documentRoute(app, {
    method: 'get',
    path: '/api/escalations/{coupleId}/status',
    summary: 'The owners of a couple, their tiers and whether the reveal is ready',
    security: SECURITY.none,
    request: { params: EscalationParams },
    responses: jsonResponses({ 403: 'until the venue opens', 404: 'couple/owners not found' }),
  })
  app.get(statusPath, async (c) => {
    if (!(await deps.settings.venueOpen()))
      throw new ApiError(403, 'escalation status opens when the venue opens')
    return c.json(await escalationStatus(deps, parseCoupleId(c.req.param('coupleId'))))
  })
  const claimPagePath = documentRoute(app, {
    method: 'get',
    path: '/claim',
    summary: "The human's sign-in page for an invite (HTML)",
    security: SECURITY.none,
    request: { query: z.object({ token: SafeText.optional() }) },
    responses: { 200: { description: 'HTML', content: { 'text/html': { schema: z.string() } } } },
  })
  app.get(claimPagePath, (c) => {
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
  const claimPath = documentRoute(app, {
    method: 'post',
    path: '/api/escalations/claim',
    summary: 'The signed-in human claims the invite; the identity check starts',
    security: SECURITY.none,
    request: { body: jsonRequest(ClaimBody) },
    responses: jsonResponses({ 401: 'auth verification failed', 404: 'invalid or used invite' }),
  })
  app.post(claimPath, async (c) => c.json(await claimInvite(deps, await readJsonBody(c))))
  registerIdentityDonePage(app)
  const sessionPath = documentRoute(app, {
    method: 'post',
    path: '/api/identity/session',
    summary: 'A new identity check for the owner the signed-in human claimed',
    security: SECURITY.login,
    request: { body: jsonRequest(OwnerRef) },
    responses: jsonResponses({ 403: 'not claimed, or by another human', 404: 'no such owner' }),
  })
  app.post(sessionPath, async (c) =>
    c.json(await newIdentitySession(deps, await readJsonBody(c), c.req.header('authorization'))),
  )
  const webhookPath = documentRoute(app, {
    method: 'post',
    path: '/api/identity/webhook/idp',
    summary: "The identity provider's result (HMAC-signed; X-Signature and X-Timestamp)",
    security: SECURITY.webhook,
    request: { body: jsonRequest(WebhookBody) },
    responses: jsonResponses({ 400: 'webhook rejected' }),
  })
  app.post(webhookPath, async (c) => {
    // The exact bytes as sent: the signature covers them, and nothing is parsed before it passes.
    const rawBody = new Uint8Array(await c.req.arrayBuffer())
    const timestamp = c.req.header('x-timestamp')
    const checked = deps.identity.verifyWebhook({
      rawBody,
      signature: c.req.header('x-signature'),
      timestamp,
    })
    if (!checked.ok) return c.json({ error: 'webhook rejected', reason: checked.reason }, 400)
    // Verified first (the provider's signature decides who may learn anything), then the
    // JSON-only rule of every JSON route: a signed body of another type applies nothing.
    if (!isJsonMediaType(c.req.header('content-type')))
      throw new ApiError(415, 'Unsupported Media Type')
    return c.json(await applyIdentityEvent(deps, checked.event, Number(timestamp)))
  })
  const revealConsentPath = documentRoute(app, {
    method: 'post',
    path: '/api/couples/{id}/reveal-consent',
    summary: 'The signed-in human agrees to show their contact pointer to the match',
    security: SECURITY.login,
    request: { params: CoupleParams },
    responses: jsonResponses({ 403: 'not an owner of this couple', 409: 'not committed' }),
  })
  app.post(revealConsentPath, async (c) =>
    c.json(
      await giveRevealConsent(
        deps,
        parseCoupleId(c.req.param('id')),
        c.req.header('authorization'),
      ),
    ),
  )
  const revealPath = documentRoute(app, {
    method: 'get',
    path: '/api/couples/{id}/reveal',
    summary: "The match's contact pointer, once both are verified and both consented",
    security: SECURITY.login,
    request: { params: CoupleParams },
    responses: jsonResponses({ 403: 'reveal not ready' }),
  })
  app.get(revealPath, async (c) =>
    c.json(
      await reveal(deps, parseCoupleId(c.req.param('id')), c.req.header('authorization')),
      200,
      {
        'cache-control': 'no-store',
      },
    ),
  )
  const brokerPath = documentRoute(app, {
    method: 'post',
    path: '/admin/actions/broker',
    summary: 'The operator moves a committed couple to brokered',
    security: SECURITY.operator,
    request: { body: jsonRequest(BrokerBody) },
    responses: jsonResponses({ 404: 'no such couple', 409: 'not committed' }),
  })
  app.post(brokerPath, async (c) => c.json(await brokerCouple(deps, await readJsonBody(c))))
}
