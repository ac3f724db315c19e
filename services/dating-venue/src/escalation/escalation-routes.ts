import {
  ApiError,
  answerOf,
  document,
  errors,
  json,
  jsonRoute,
  parseInput,
  SafeText,
} from '@agents/service-kit'
import { createRoute, z } from '@hono/zod-openapi'
import { CoupleIdParams, CoupleParams } from '../couples/couple-schemas.ts'
import {
  credentialOf,
  humanOf,
  requireCredential,
  requireHuman,
  signedInHuman,
} from '../credentials/actor-middleware.ts'
import { CHAT_ACTOR_ERRORS } from '../credentials/chat-actor.ts'
import type { VenueDeps } from '../deps.ts'
import { paramsFirst } from '../http/params-first.ts'
import { scriptPage } from '../http/script-page.ts'
import { LIMIT } from '../limits/limit-defaults.ts'
import { SECURITY } from '../openapi.ts'
import type { VenueApp } from '../venue-env.ts'
import { CHAT_ERRORS } from '../wallet-session/chat-errors.ts'
import { claimInvite } from './claim.ts'
import { claimPage } from './claim-page.ts'
import { giveIntroConsent } from './consent.ts'
import { ESCALATION_ERRORS } from './escalation-errors.ts'
import {
  ClaimBody,
  Claimed,
  Consented,
  EscalationStatus,
  InvitesCreated,
  OwnerRef,
  OwnInvite,
  Revealed,
  RevealNotReady,
} from './escalation-schemas.ts'
import { createInvites, readOwnInvite } from './invites.ts'
import { escalationStatus, giveRevealConsent, reveal } from './reveal.ts'

const html = (description: string) => ({
  200: { description, content: { 'text/html': { schema: z.string() } } },
})

const CREDENTIAL_401 = (what: string) => `credential required: ${what}`
const CHAT_403 = `with the chat session: ${CHAT_ERRORS.crossSite}, ${CHAT_ERRORS.attestationRequired}, or ${CHAT_ACTOR_ERRORS.noOwner}`
const HUMAN_401 = 'auth verification failed (with reason): a login token, not an agent credential'

/** Intro consent, invites, the human's claim and its page, the reveal. */
export const registerEscalationRoutes = (app: VenueApp, deps: VenueDeps) => {
  // The human of the chat page has no credential: its session acts for the owner its wallet keys.
  const forOwner = requireCredential(deps, ESCALATION_ERRORS.actingForOwner, { chatSession: true })
  const human = requireHuman(deps, { chatSession: true })
  const byId = paramsFirst(CoupleParams, ESCALATION_ERRORS.badCoupleId)
  const byCoupleId = paramsFirst(CoupleIdParams, ESCALATION_ERRORS.badCoupleId)

  jsonRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/couples/{id}/intro-consent',
      limit: LIMIT.write,
      summary:
        'The owner agrees that the humans should meet; the second consent commits the couple',
      security: SECURITY.credentialOrChat,
      request: { params: CoupleParams, body: json(OwnerRef, 'the owner consenting') },
      responses: {
        200: json(Consented, 'consented (idempotent); both: the couple is committed'),
        ...errors({
          400: `${ESCALATION_ERRORS.ownerIdRequired}, or ${ESCALATION_ERRORS.badCoupleId}`,
          401: CREDENTIAL_401(ESCALATION_ERRORS.consentingFor),
          403: `credential not recognised, ${ESCALATION_ERRORS.notThisOwner}, or ${ESCALATION_ERRORS.ownerNotInCouple}; ${CHAT_403}`,
          404: ESCALATION_ERRORS.noSuchCouple,
          409: ESCALATION_ERRORS.coupleIs('withdrawn'),
          415: 'not JSON',
        }),
      },
    }),
    async (c, { ownerId }, { params }) =>
      c.json(
        answerOf(
          await giveIntroConsent(deps, { actor: credentialOf(c), coupleId: params.id, ownerId }),
        ),
      ),
    {
      validationMessage: ESCALATION_ERRORS.ownerIdRequired,
      paramsMessage: ESCALATION_ERRORS.badCoupleId,
      middleware: [
        byId,
        requireCredential(deps, ESCALATION_ERRORS.consentingFor, { chatSession: true }),
      ],
    },
  )

  jsonRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/escalations/{coupleId}/invite',
      limit: LIMIT.write,
      summary: 'One-time invites, one per owner, handed to the agents',
      security: SECURITY.credentialOrChat,
      request: { params: CoupleIdParams },
      responses: {
        200: json(InvitesCreated, "minted; the caller sees only its own owner's token"),
        ...errors({
          400: ESCALATION_ERRORS.badCoupleId,
          401: CREDENTIAL_401(ESCALATION_ERRORS.actingForOwner),
          403: `credential not recognised, or ${ESCALATION_ERRORS.ownerNotInCouple}; ${CHAT_403}`,
          404: ESCALATION_ERRORS.coupleOwnersNotFound,
          409: `${ESCALATION_ERRORS.notCommitted} (with state)`,
        }),
      },
    }),
    async (c, _body, { params }) =>
      c.json(
        answerOf(await createInvites(deps, { actor: credentialOf(c), coupleId: params.coupleId })),
      ),
    { paramsMessage: ESCALATION_ERRORS.badCoupleId, middleware: [byCoupleId, forOwner] },
  )

  const invitePath = document(app, {
    method: 'get',
    path: '/api/escalations/{coupleId}/invite',
    limit: LIMIT.read,
    summary: "The caller's own owner's unclaimed invite",
    security: SECURITY.credentialOrChat,
    request: { params: CoupleIdParams },
    responses: {
      200: json(OwnInvite, 'the live invite'),
      ...errors({
        400: ESCALATION_ERRORS.badCoupleId,
        401: CREDENTIAL_401(ESCALATION_ERRORS.actingForOwner),
        403: `credential not recognised, or ${ESCALATION_ERRORS.notAnOwner}; ${CHAT_403}`,
        404: ESCALATION_ERRORS.noLiveInvite,
      }),
    },
  })
  app.get(invitePath, byCoupleId, forOwner, async (c) => {
    const { coupleId } = parseInput(CoupleIdParams, c.req.param(), ESCALATION_ERRORS.badCoupleId)
    return c.json(answerOf(await readOwnInvite(deps, { actor: credentialOf(c), coupleId })))
  })

  const statusPath = document(app, {
    method: 'get',
    path: '/api/escalations/{coupleId}/status',
    limit: LIMIT.read,
    summary: 'The owners of a couple, their tiers and whether the reveal is ready',
    security: SECURITY.none,
    request: { params: CoupleIdParams },
    responses: {
      200: json(EscalationStatus, 'tiers and readiness'),
      ...errors({
        400: ESCALATION_ERRORS.badCoupleId,
        403: ESCALATION_ERRORS.statusClosed,
        404: ESCALATION_ERRORS.coupleOwnersNotFound,
      }),
    },
  })
  app.get(statusPath, async (c) => {
    if (!(await deps.settings.venueOpen())) throw new ApiError(403, ESCALATION_ERRORS.statusClosed)
    const { coupleId } = parseInput(CoupleIdParams, c.req.param(), ESCALATION_ERRORS.badCoupleId)
    return c.json(answerOf(await escalationStatus(deps, coupleId)))
  })

  const claimPagePath = document(app, {
    method: 'get',
    path: '/claim',
    limit: LIMIT.read,
    summary: "The human's sign-in page for an invite (HTML)",
    security: SECURITY.none,
    request: { query: z.object({ token: SafeText.optional() }) },
    responses: html('the page (an invalid token shows a notice)'),
  })
  app.get(claimPagePath, (c) => {
    const { nonce, headers } = scriptPage(c)
    return c.html(
      claimPage({ token: c.req.query('token') ?? '', loginUrl: deps.login.url, nonce }),
      200,
      headers,
    )
  })

  jsonRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/escalations/claim',
      // The human's login token rides in the body: the claim is a sign-in.
      limit: LIMIT.signin,
      summary: 'The signed-in human claims the invite; the identity check starts',
      security: SECURITY.none,
      request: { body: json(ClaimBody, 'the invite token and the login token') },
      responses: {
        200: json(Claimed, 'claimed; diditUrl is where the identity check runs'),
        ...errors({
          400: ESCALATION_ERRORS.claimRequired,
          401: 'auth verification failed (with reason)',
          403: `${ESCALATION_ERRORS.claimedByAnother}, ${ESCALATION_ERRORS.subjectTaken}, or ${ESCALATION_ERRORS.walletLoginRequired}`,
          404: ESCALATION_ERRORS.invalidInvite,
          415: 'not JSON',
        }),
      },
    }),
    async (c, { token, authToken }) => {
      // The login token is verified before the invite is touched: a refused claim changes nothing.
      const subject = await signedInHuman(deps, authToken)
      return c.json(answerOf(await claimInvite(deps, { subject, token })))
    },
    { validationMessage: ESCALATION_ERRORS.claimRequired },
  )

  const revealConsentPath = document(app, {
    method: 'post',
    path: '/api/couples/{id}/reveal-consent',
    limit: LIMIT.write,
    summary: 'The signed-in human agrees to show their contact pointer to the match',
    security: SECURITY.loginOrChat,
    request: { params: CoupleParams },
    responses: {
      200: json(Consented, 'consented (idempotent); both: both humans have'),
      ...errors({
        400: ESCALATION_ERRORS.badCoupleId,
        401: HUMAN_401,
        403: `${ESCALATION_ERRORS.notHumanOfCouple}; with the chat session: ${CHAT_ERRORS.crossSite} or ${CHAT_ERRORS.attestationRequired}`,
        404: ESCALATION_ERRORS.noSuchCouple,
        409: `${ESCALATION_ERRORS.coupleIs('courting')} (not committed or brokered)`,
      }),
    },
  })
  app.post(revealConsentPath, byId, human, async (c) => {
    const { id } = parseInput(CoupleParams, c.req.param(), ESCALATION_ERRORS.badCoupleId)
    return c.json(answerOf(await giveRevealConsent(deps, { subject: humanOf(c), coupleId: id })))
  })

  const revealPath = document(app, {
    method: 'get',
    path: '/api/couples/{id}/reveal',
    limit: LIMIT.read,
    summary: "The match's contact pointer, once both are verified and both consented",
    security: SECURITY.loginOrChat,
    request: { params: CoupleParams },
    responses: {
      200: json(Revealed, "the other side's contact pointer (not cached)"),
      403: json(
        RevealNotReady,
        `${ESCALATION_ERRORS.revealNotReady} (what is missing), ${ESCALATION_ERRORS.notHumanOfCouple}, or (chat session) ${CHAT_ERRORS.attestationRequired}`,
      ),
      ...errors({
        400: ESCALATION_ERRORS.badCoupleId,
        401: HUMAN_401,
        404: ESCALATION_ERRORS.noSuchCouple,
        409: `${ESCALATION_ERRORS.coupleIs('courting')} (not committed or brokered)`,
      }),
    },
  })
  app.get(revealPath, byId, human, async (c) => {
    const { id } = parseInput(CoupleParams, c.req.param(), ESCALATION_ERRORS.badCoupleId)
    return c.json(answerOf(await reveal(deps, { subject: humanOf(c), coupleId: id })), 200, {
      'cache-control': 'no-store',
    })
  })
}
