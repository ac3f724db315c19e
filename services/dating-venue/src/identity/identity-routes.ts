import {
  ApiError,
  answerOf,
  bearerToken,
  document,
  errors,
  isJsonMediaType,
  json,
  parseInput,
  readJsonBody,
} from '@agents/service-kit'
import { signedInHuman } from '../credentials/actor-middleware.ts'
import type { VenueDeps } from '../deps.ts'
import { LIMIT } from '../limits/limit-defaults.ts'
import { SECURITY } from '../openapi.ts'
import type { VenueApp } from '../venue-env.ts'
import { applyIdentityEvent } from './apply-identity-event.ts'
import { registerIdentityDonePage } from './identity-done-route.ts'
import { IDENTITY_ERRORS } from './identity-errors.ts'
import {
  IdentitySession,
  IdentitySessionBody,
  WebhookApplied,
  WebhookRejected,
} from './identity-schemas.ts'
import { claimedOwner, newIdentitySession } from './identity-session.ts'
import { WebhookBody } from './webhook.ts'

/** The identity check: a new session for a claimed owner, the provider's webhook and its effect, the page the human returns to. */
export const registerIdentityRoutes = (app: VenueApp, deps: VenueDeps) => {
  registerIdentityDonePage(app)

  const sessionPath = document(app, {
    method: 'post',
    path: '/api/identity/session',
    // The identity provider's session is an outside call.
    limit: LIMIT.outbound,
    summary: 'A new identity check for the owner the signed-in human claimed',
    security: SECURITY.login,
    request: { body: json(IdentitySessionBody, 'the owner') },
    responses: {
      200: json(IdentitySession, 'where the human passes the check'),
      ...errors({
        400: IDENTITY_ERRORS.ownerIdRequired,
        401: 'auth verification failed (with reason)',
        403: `${IDENTITY_ERRORS.notClaimed}, or ${IDENTITY_ERRORS.notYourOwner}`,
        404: IDENTITY_ERRORS.noSuchOwner,
        415: 'not JSON',
        503: `${IDENTITY_ERRORS.noProvider}, or ${IDENTITY_ERRORS.retrySession}`,
      }),
    },
  })
  app.post(sessionPath, async (c) => {
    const { ownerId } = parseInput(
      IdentitySessionBody,
      await readJsonBody(c),
      IDENTITY_ERRORS.ownerIdRequired,
    )
    // The owner is looked up before the login token, as the spec's rows order the answers.
    const { owner } = answerOf(await claimedOwner(deps, ownerId))
    const subject = await signedInHuman(deps, bearerToken(c.req.header('authorization')))
    return c.json(answerOf(await newIdentitySession(deps, { subject, owner })))
  })

  const webhookPath = document(app, {
    method: 'post',
    path: '/api/identity/webhook/idp',
    // The HMAC is its credential (checked on the raw bytes): the provider's deliveries
    // count as writes of its address, never at the anonymous rate.
    limit: { name: 'write' },
    summary: "The identity provider's result (HMAC-signed; X-Signature and X-Timestamp)",
    security: SECURITY.webhook,
    request: { body: json(WebhookBody, 'the provider event') },
    responses: {
      200: json(WebhookApplied, 'acknowledged (applied once, or nothing changed with a note)'),
      400: json(WebhookRejected, 'bad or missing signature, stale timestamp, malformed body'),
      ...errors({ 415: 'signed, but not JSON' }),
    },
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
    if (!checked.ok)
      return c.json({ error: IDENTITY_ERRORS.webhookRejected, reason: checked.reason }, 400)
    // Verified first (the provider's signature decides who may learn anything), then the
    // JSON-only rule of every JSON route: a signed body of another type applies nothing.
    if (!isJsonMediaType(c.req.header('content-type')))
      throw new ApiError(415, 'Unsupported Media Type')
    return c.json(
      await applyIdentityEvent(deps, { event: checked.event, sentAt: Number(timestamp) }),
    )
  })
}
