import { answerOf, document, errors, json, jsonRoute, parseInput } from '@agents/service-kit'
import { createRoute } from '@hono/zod-openapi'
import { clientKeyOf } from '../budget/client-key.ts'
import { credentialOf, requireCredential } from '../credentials/actor-middleware.ts'
import { CHAT_ACTOR_ERRORS } from '../credentials/chat-actor.ts'
import type { VenueDeps } from '../deps.ts'
import { paramsFirst, queryFirst } from '../http/params-first.ts'
import { LIMIT } from '../limits/limit-defaults.ts'
import { SECURITY } from '../openapi.ts'
import type { VenueApp } from '../venue-env.ts'
import { CHAT_ERRORS } from '../wallet-session/chat-errors.ts'
import { COUPLE_ERRORS } from './couple-errors.ts'
import {
  CoupleParams,
  CoupleReadQuery,
  CoupleView,
  TurnBlocked,
  TurnBody,
  TurnHeld,
  TurnPublished,
  WithdrawBody,
  Withdrawn,
} from './couple-schemas.ts'
import { postTurn, readCouple, withdraw } from './couples.ts'

const CREDENTIAL_ERRORS = {
  401: `credential required: ${COUPLE_ERRORS.actingFor}`,
  403: `credential not recognised, ${COUPLE_ERRORS.notThisPersona}, or ${COUPLE_ERRORS.personaNotInCouple}; with the chat session: ${CHAT_ERRORS.crossSite}, ${CHAT_ERRORS.attestationRequired}, or ${CHAT_ACTOR_ERRORS.noOwner}`,
}

/** Courtship: turns, withdrawal, reading a couple. */
export const registerCoupleRoutes = (app: VenueApp, deps: VenueDeps) => {
  const credential = requireCredential(deps, COUPLE_ERRORS.actingFor, { chatSession: true })
  const coupleId = paramsFirst(CoupleParams, COUPLE_ERRORS.badCoupleId)
  const personaIdFirst = queryFirst(CoupleReadQuery, COUPLE_ERRORS.personaIdRequired)

  jsonRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/couples/{id}/turns',
      // The chaperone or the safety check.
      limit: LIMIT.outbound,
      summary: 'A courtship turn for your persona (alternating, safety-checked)',
      security: SECURITY.credentialOrChat,
      request: { params: CoupleParams, body: json(TurnBody, 'the turn') },
      responses: {
        201: json(TurnPublished, 'published'),
        202: json(TurnHeld, 'held by the safety check (not served)'),
        422: json(TurnBlocked, 'blocked by the safety check'),
        ...errors({
          400: `${COUPLE_ERRORS.invalidTurn}, or ${COUPLE_ERRORS.badCoupleId}`,
          ...CREDENTIAL_ERRORS,
          404: COUPLE_ERRORS.noSuchCouple,
          409: `${COUPLE_ERRORS.coupleIs('withdrawn')} (or held, brokered), or ${COUPLE_ERRORS.waitForPartner}`,
          415: 'not JSON',
          503: `${COUPLE_ERRORS.checkUnavailable}, or the outbound budget is spent (Retry-After): nothing stored`,
        }),
      },
    }),
    async (c, body, { params }) => {
      const turn = answerOf(
        await postTurn(deps, {
          actor: credentialOf(c),
          coupleId: params.id,
          body,
          client: clientKeyOf(c, deps),
        }),
      )
      return turn.status === 'published' ? c.json(turn, 201) : c.json(turn, 202)
    },
    {
      validationMessage: COUPLE_ERRORS.invalidTurn,
      paramsMessage: COUPLE_ERRORS.badCoupleId,
      middleware: [coupleId, credential],
    },
  )

  jsonRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/couples/{id}/withdraw',
      limit: LIMIT.write,
      summary: 'End the courtship; both personas are free again',
      security: SECURITY.credentialOrChat,
      request: { params: CoupleParams, body: json(WithdrawBody, 'the persona withdrawing') },
      responses: {
        200: json(Withdrawn, 'withdrawn'),
        ...errors({
          400: `${COUPLE_ERRORS.invalidWithdraw}, or ${COUPLE_ERRORS.badCoupleId}`,
          ...CREDENTIAL_ERRORS,
          404: COUPLE_ERRORS.noSuchCouple,
          409: COUPLE_ERRORS.alreadyEnded,
          415: 'not JSON',
        }),
      },
    }),
    async (c, body, { params }) =>
      c.json(answerOf(await withdraw(deps, { actor: credentialOf(c), coupleId: params.id, body }))),
    {
      validationMessage: COUPLE_ERRORS.invalidWithdraw,
      paramsMessage: COUPLE_ERRORS.badCoupleId,
      middleware: [coupleId, credential],
    },
  )

  const couplePath = document(app, {
    method: 'get',
    path: '/api/couples/{id}',
    limit: LIMIT.read,
    summary: 'A couple as its own personas see it: handles, state, published turns',
    security: SECURITY.credentialOrChat,
    request: { params: CoupleParams, query: CoupleReadQuery },
    responses: {
      200: json(CoupleView, 'the couple'),
      ...errors({
        400: `${COUPLE_ERRORS.personaIdRequired}, or ${COUPLE_ERRORS.badCoupleId}`,
        ...CREDENTIAL_ERRORS,
        404: COUPLE_ERRORS.noSuchCouple,
      }),
    },
  })
  app.get(couplePath, personaIdFirst, coupleId, credential, async (c) => {
    const { personaId } = parseInput(
      CoupleReadQuery,
      c.req.query(),
      COUPLE_ERRORS.personaIdRequired,
    )
    const { id } = parseInput(CoupleParams, c.req.param(), COUPLE_ERRORS.badCoupleId)
    return c.json(
      answerOf(await readCouple(deps, { actor: credentialOf(c), coupleId: id, personaId })),
    )
  })
}
