import { answerOf, errors, json, jsonRoute } from '@agents/service-kit'
import { createRoute, z } from '@hono/zod-openapi'
import { deleteCookie, setCookie } from 'hono/cookie'
import type { VenueDeps } from '../deps.ts'
import { LIMIT } from '../limits/limit-defaults.ts'
import type { VenueApp } from '../venue-env.ts'
import { CHAT_ERRORS } from './chat-errors.ts'
import { registerNonceRoute } from './nonce-route.ts'
import {
  attestAdult,
  CHAT_COOKIE,
  chatWalletOf,
  endSession,
  requireChatWallet,
  sessionCookie,
  signIn,
} from './wallet-session.ts'
import { AttestBody, Me, Nonce, SignInBody, SignOutBody } from './wallet-session-schemas.ts'

const chatSession = [{ chatSession: [] as string[] }]

/** The chat page's wallet session: SIWE nonce and sign-in, the 18+ attestation, sign-out. */
export const registerWalletSessionRoutes = (app: VenueApp, deps: VenueDeps) => {
  app.openAPIRegistry.registerComponent('securitySchemes', 'chatSession', {
    type: 'apiKey',
    in: 'cookie',
    name: CHAT_COOKIE,
    description: 'the signed-in wallet (Sign-In with Ethereum), HttpOnly and SameSite=Strict',
  })

  registerNonceRoute(app, deps, {
    path: '/api/chat/session/nonce',
    summary: 'A one-time nonce and the fields of the SIWE message to sign',
    statement: 'Sign in to the venue matchmaker.',
    schema: Nonce,
  })

  jsonRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/chat/session',
      limit: LIMIT.signin,
      summary: 'Sign in with the wallet (EIP-4361): the session cookie',
      security: [],
      request: { body: json(SignInBody, 'the signed message') },
      responses: {
        200: json(Me, 'signed in; Set-Cookie carries the session'),
        ...errors({
          400: CHAT_ERRORS.invalidSignIn,
          401: `${CHAT_ERRORS.signInFailed} (with the reason), or ${CHAT_ERRORS.unknownNonce}`,
          415: 'not JSON',
        }),
      },
    }),
    async (c, body) => {
      const outcome = await signIn(deps, {
        message: body.message,
        signature: body.signature as `0x${string}`,
      })
      const { secret, expiresAt, wallet, attested } = answerOf(outcome)
      setCookie(c, CHAT_COOKIE, secret, sessionCookie(deps, expiresAt))
      return c.json({ wallet, attested })
    },
    { validationMessage: CHAT_ERRORS.invalidSignIn },
  )

  jsonRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/chat/attest',
      limit: LIMIT.write,
      summary: 'The signed-in human attests being 18 or older (once, kept per wallet)',
      security: chatSession,
      request: { body: json(AttestBody, 'the attestation') },
      responses: {
        200: json(Me, 'attested'),
        ...errors({
          400: CHAT_ERRORS.invalidAttestation,
          401: CHAT_ERRORS.signInRequired,
          403: CHAT_ERRORS.crossSite,
          415: 'not JSON',
        }),
      },
    }),
    async (c) => {
      const { wallet } = chatWalletOf(c)
      await attestAdult(deps, wallet)
      return c.json({ wallet, attested: true })
    },
    { validationMessage: CHAT_ERRORS.invalidAttestation, middleware: [requireChatWallet(deps)] },
  )

  jsonRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/chat/session/end',
      limit: LIMIT.write,
      summary: 'Sign out: the session ends and its cookie is cleared',
      security: chatSession,
      request: { body: json(SignOutBody, 'an empty JSON object') },
      responses: {
        200: json(z.object({ ok: z.literal(true) }), 'signed out'),
        ...errors({
          400: 'invalid request',
          401: CHAT_ERRORS.signInRequired,
          403: CHAT_ERRORS.crossSite,
          415: 'not JSON',
        }),
      },
    }),
    async (c) => {
      await endSession(deps, chatWalletOf(c).secret)
      deleteCookie(c, CHAT_COOKIE, sessionCookie(deps))
      return c.json({ ok: true as const })
    },
    { middleware: [requireChatWallet(deps)] },
  )
}
