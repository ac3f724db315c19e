import {
  ApiError,
  type App,
  document,
  errors,
  json,
  jsonRoute,
  SafeText,
} from '@agents/service-kit'
import { createRoute, z } from '@hono/zod-openapi'
import { deleteCookie, setCookie } from 'hono/cookie'
import type { VenueDeps } from '../deps.ts'
import { ChatEscalation } from '../escalation/chat-escalation-schema.ts'
import { scriptPage } from '../http/script-page.ts'
import { ChatReview } from '../intake/submit-doc-schemas.ts'
import { interviewTurn } from '../matchmaker/drafts.ts'
import { ChatDraft } from '../matchmaker/matchmaker-schemas.ts'
import { CHAT_ERRORS } from '../wallet-session/chat-errors.ts'
import {
  attestAdult,
  CHAT_COOKIE,
  chatWalletOf,
  endSession,
  issueNonce,
  requireChatWallet,
  sessionCookie,
  signIn,
} from '../wallet-session/wallet-session.ts'
import { chatAccount } from './chat-account.ts'
import { chatPage } from './chat-page.ts'

const chatSession = [{ chatSession: [] as string[] }]

const Nonce = z
  .object({
    nonce: z.string(),
    domain: z.string().openapi({ description: 'the domain the SIWE message must name' }),
    uri: z.string(),
    chainId: z.literal(8453),
    statement: z.string(),
    expiresAt: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('ChatNonce')

const SignInBody = z
  .object({
    message: SafeText.min(1)
      .max(4096)
      .openapi({ description: 'the EIP-4361 message, exactly as signed' }),
    signature: z.string().regex(/^0x[0-9a-fA-F]{130}$/),
  })
  .strict()
  .openapi('ChatSignIn')

const Me = z.object({ wallet: z.string(), attested: z.boolean() }).openapi('ChatWallet')

const Account = z
  .object({
    wallet: z.string(),
    attested: z.boolean(),
    freePerDay: z.number().int().openapi({ description: "today's free messages at this holding" }),
    freeLeft: z.number().int(),
    credits: z.number().int(),
    creditsPerMessage: z.number().int(),
    holdingUsd: z
      .string()
      .openapi({ description: 'the holding at the oracle price, dollars and cents' }),
    nextTier: z
      .object({ freePerDay: z.number().int(), moreUsd: z.string() })
      .nullable()
      .openapi({ description: 'what the next tier gives and how much more holding it needs' }),
    resetsAt: z.string().openapi({ format: 'date-time', description: 'the next 00:00 UTC' }),
    draft: ChatDraft,
    skipped: z.array(z.string()),
    question: z
      .string()
      .nullable()
      .openapi({ description: "the interview's next question; null when the draft is complete" }),
    review: ChatReview,
    escalation: ChatEscalation,
  })
  .openapi('ChatAccount')

const DraftBody = z
  .object({ answer: SafeText.trim().min(1).max(2000) })
  .strict()
  .openapi('ChatDraftAnswer')

const DraftTurn = z
  .object({
    accepted: z.boolean(),
    reply: z.string(),
    draft: ChatDraft,
    complete: z.boolean(),
  })
  .openapi('ChatDraftTurn')

const AttestBody = z
  .object({ adult: z.literal(true).openapi({ description: 'I am 18 or older' }) })
  .strict()
  .openapi('ChatAttestation')

/** The human chat page's session: SIWE sign-in, the 18+ attestation, sign-out. */
export const registerChatSessionRoutes = (app: App, deps: VenueDeps) => {
  app.openAPIRegistry.registerComponent('securitySchemes', 'chatSession', {
    type: 'apiKey',
    in: 'cookie',
    name: CHAT_COOKIE,
    description: 'the signed-in wallet (Sign-In with Ethereum), HttpOnly and SameSite=Strict',
  })

  const pagePath = document(app, {
    method: 'get',
    path: '/chat',
    summary:
      'The human chat page: sign in with a wallet, attest 18+, talk with the matchmaker (HTML)',
    security: [],
    responses: { 200: { description: 'HTML', content: { 'text/html': { schema: z.string() } } } },
  })
  app.get(pagePath, (c) => {
    const { nonce, headers } = scriptPage()
    return c.html(chatPage({ nonce }), 200, headers)
  })

  jsonRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/chat/session/nonce',
      summary: 'A one-time nonce and the fields of the SIWE message to sign',
      security: [],
      responses: { 200: json(Nonce, 'sign an EIP-4361 message with these') },
    }),
    async (c) => {
      const { nonce, expiresAt } = await issueNonce(deps)
      return c.json({
        nonce,
        domain: deps.humanChat.siweDomain(),
        uri: deps.humanChat.origin(),
        chainId: 8453 as const,
        statement: 'Sign in to the venue matchmaker.',
        expiresAt: expiresAt.toISOString(),
      })
    },
  )

  jsonRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/chat/session',
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
      if (!outcome.ok)
        throw new ApiError(
          outcome.status,
          outcome.error,
          outcome.reason ? { reason: outcome.reason } : {},
        )
      setCookie(c, CHAT_COOKIE, outcome.secret, sessionCookie(deps, outcome.expiresAt))
      return c.json({ wallet: outcome.wallet, attested: outcome.attested })
    },
    { validationMessage: CHAT_ERRORS.invalidSignIn },
  )

  jsonRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/chat/attest',
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

  const mePath = document(app, {
    method: 'get',
    path: '/api/chat/me',
    summary: "The signed-in wallet: attestation, today's free messages, credits, the holding tier",
    security: chatSession,
    responses: {
      200: json(Account, 'the account at a glance'),
      ...errors({ 401: CHAT_ERRORS.signInRequired }),
    },
  })
  app.get(mePath, requireChatWallet(deps), async (c) => {
    const { wallet, attested } = chatWalletOf(c)
    c.header('cache-control', 'no-store')
    return c.json(await chatAccount(deps, wallet, attested))
  })

  jsonRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/chat/draft',
      summary:
        "The interview: answer its current question; the answer joins the draft when it passes the doc's rules (free)",
      security: chatSession,
      request: { body: json(DraftBody, 'the answer to the current question') },
      responses: {
        200: json(
          DraftTurn,
          'accepted (the next question), or refused (why, and the question again)',
        ),
        ...errors({
          400: 'invalid answer',
          401: CHAT_ERRORS.signInRequired,
          403: `${CHAT_ERRORS.attestationRequired}; ${CHAT_ERRORS.crossSite}`,
          415: 'not JSON',
        }),
      },
    }),
    async (c, body) =>
      c.json(await interviewTurn(deps.database, chatWalletOf(c).wallet, body.answer)),
    { validationMessage: 'invalid answer', middleware: [requireChatWallet(deps, { adult: true })] },
  )

  jsonRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/chat/session/end',
      summary: 'Sign out: the session ends and its cookie is cleared',
      security: chatSession,
      responses: {
        200: json(z.object({ ok: z.literal(true) }), 'signed out'),
        ...errors({ 401: CHAT_ERRORS.signInRequired, 403: CHAT_ERRORS.crossSite }),
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
