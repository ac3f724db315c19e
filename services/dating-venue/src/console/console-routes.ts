import { ApiError, answerOf, document, errors, json, jsonRoute } from '@agents/service-kit'
import { createRoute, z } from '@hono/zod-openapi'
import { deleteCookie, getCookie, setCookie } from 'hono/cookie'
import type { VenueDeps } from '../deps.ts'
import { scriptPage } from '../http/script-page.ts'
import { LIMIT } from '../limits/limit-defaults.ts'
import { SECURITY } from '../openapi.ts'
import type { VenueApp } from '../venue-env.ts'
import { CHAT_ERRORS } from '../wallet-session/chat-errors.ts'
import { refuseCrossSite } from '../wallet-session/cross-site.ts'
import { registerNonceRoute } from '../wallet-session/nonce-route.ts'
import { hasConsole, operatorOf, requireOperator } from '../wallet-session/operator-guard.ts'
import {
  endOperatorSession,
  OPERATOR_COOKIE,
  OPERATOR_ERRORS,
  signInOperator,
} from '../wallet-session/operator-session.ts'
import { SignOutBody } from '../wallet-session/wallet-session-schemas.ts'
import { adminSnapshot } from './admin-snapshot.ts'
import { consolePage } from './console-page.ts'
import {
  AdminSnapshot,
  CreditBody,
  Credited,
  ModerateBody,
  Moderated,
  OperatorNonce,
  OperatorSignedIn,
  OperatorSignInBody,
  ReviewQueue,
  Trends,
} from './console-schemas.ts'
import { CREDIT_ERRORS, creditOrder } from './credit-order.ts'
import { MODERATION_ERRORS, moderateItem } from './moderation.ts'
import { dailyTrends, reviewQueue } from './review-queue.ts'

const GUARD_ERRORS = {
  401: OPERATOR_ERRORS.required,
  403: `${OPERATOR_ERRORS.notRecognised}, or a cross-site request`,
  404: 'no console on this venue (neither VENUE_ADMIN_TOKEN nor VENUE_OPERATOR_WALLETS set)',
}

const html = (summary: string) => ({
  description: summary,
  content: { 'text/html': { schema: z.string() } },
})

/**
 * The operator console: sign-in (SIWE for allow-listed wallets), the page,
 * the snapshot, the review queue, the chart's days, and the actions that
 * join the beat, settings, broker and review actions of `admin/`.
 */
export const registerConsoleRoutes = (app: VenueApp, deps: VenueDeps) => {
  const operator = requireOperator(deps)
  const cookie = (expiresAt?: Date) => ({
    httpOnly: true,
    sameSite: 'Strict' as const,
    secure: deps.humanChat.secureCookie(),
    path: '/',
    ...(expiresAt ? { expires: expiresAt } : { maxAge: 0 }),
  })
  const operatorSecurity = SECURITY.operator

  registerNonceRoute(app, deps, {
    path: '/api/operator/session/nonce',
    summary: "A one-time nonce and the fields of the console's SIWE message",
    statement: 'Sign in to the venue console.',
    schema: OperatorNonce,
    refuse: () => {
      if (!hasConsole(deps)) throw new ApiError(404, 'no such room')
    },
    refusals: { 404: GUARD_ERRORS[404] },
  })

  jsonRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/operator/session',
      limit: LIMIT.signin,
      summary: 'An operator wallet signs in (EIP-4361): the console session cookie',
      security: [],
      request: { body: json(OperatorSignInBody, 'the signed message') },
      responses: {
        200: json(OperatorSignedIn, 'signed in; Set-Cookie carries the session'),
        ...errors({
          400: 'invalid sign-in',
          401: `${OPERATOR_ERRORS.signInFailed} (with the reason), or ${OPERATOR_ERRORS.unknownNonce}`,
          403: OPERATOR_ERRORS.notOperator,
          404: GUARD_ERRORS[404],
          415: 'not JSON',
        }),
      },
    }),
    async (c, body) => {
      if (!hasConsole(deps)) throw new ApiError(404, 'no such room')
      const outcome = await signInOperator(
        { ...deps, siweDomain: deps.humanChat.siweDomain, origin: deps.humanChat.origin },
        { message: body.message, signature: body.signature as `0x${string}` },
      )
      const signedIn = answerOf(outcome)
      setCookie(c, OPERATOR_COOKIE, signedIn.secret, cookie(signedIn.expiresAt))
      return c.json({ operator: signedIn.operator })
    },
    { validationMessage: 'invalid sign-in' },
  )

  jsonRoute(
    app,
    createRoute({
      method: 'post',
      path: '/api/operator/session/end',
      limit: LIMIT.write,
      summary: 'Signs the console out (the session ends on the server too)',
      security: [],
      request: { body: json(SignOutBody, 'an empty JSON object') },
      responses: {
        200: json(z.object({ ok: z.literal(true) }).openapi('SignedOut'), 'signed out'),
        ...errors({ 400: 'invalid request', 403: CHAT_ERRORS.crossSite, 415: 'not JSON' }),
      },
    }),
    async (c) => {
      const secret = getCookie(c, OPERATOR_COOKIE)
      if (secret) await endOperatorSession(deps, secret)
      deleteCookie(c, OPERATOR_COOKIE, cookie())
      return c.json({ ok: true as const })
    },
    {
      // The console's CSRF rule, before the body is read: another origin is 403, not JSON 415.
      middleware: [
        async (c, next) => {
          refuseCrossSite(c, deps.humanChat.origin())
          await next()
        },
      ],
    },
  )

  const pagePath = document(app, {
    method: 'get',
    path: '/admin',
    limit: LIMIT.read,
    summary: 'The operator console (HTML): 200 signed in; 401 the same page, showing the sign-in',
    security: [...operatorSecurity, {}],
    responses: {
      200: html('the console'),
      401: html('not signed in: the page shows the sign-in (no data is in the page itself)'),
      ...errors({ 403: GUARD_ERRORS[403], 404: GUARD_ERRORS[404] }),
    },
  })
  app.get(pagePath, async (c) => {
    // The page is a shell: every number comes from /admin.json behind the guard.
    let status: 200 | 401 = 200
    await requireOperator(deps)(c, async () => {}).catch((error: unknown) => {
      if (error instanceof ApiError && error.status === 401) status = 401
      else throw error
    })
    const { nonce, headers } = scriptPage(c)
    return c.html(consolePage({ nonce }), status, headers)
  })

  /** A read of the console's data behind the guard, never cached. */
  const operatorRead = <schema extends z.ZodType>(
    path: string,
    summary: string,
    schema: schema,
    read: () => Promise<z.infer<schema>>,
  ) =>
    app.get(
      document(app, {
        method: 'get',
        path,
        summary,
        limit: LIMIT.read,
        security: operatorSecurity,
        responses: { 200: json(schema, summary), ...errors(GUARD_ERRORS) },
      }),
      operator,
      async (c) => {
        c.header('cache-control', 'no-store')
        return c.json(await read())
      },
    )
  operatorRead('/admin.json', "The console's snapshot: the spec's stable keys", AdminSnapshot, () =>
    adminSnapshot(deps),
  )
  operatorRead(
    '/admin/queue',
    'What waits for an operator: reviews, held and reported items, intros to broker',
    ReviewQueue,
    () => reviewQueue(deps),
  )
  operatorRead(
    '/admin/trends',
    'The last 14 UTC days, oldest first: admissions, couples formed, revenue',
    Trends,
    async () => ({ days: await dailyTrends(deps) }),
  )

  jsonRoute(
    app,
    createRoute({
      method: 'post',
      path: '/admin/actions/moderate',
      limit: LIMIT.write,
      summary: 'Approves or rejects a held or reported post, turn, persona or couple',
      security: operatorSecurity,
      request: { body: json(ModerateBody, 'the decision') },
      responses: {
        200: json(Moderated, 'decided; an event names the operator'),
        ...errors({
          400: MODERATION_ERRORS.invalid,
          ...GUARD_ERRORS,
          409: `${MODERATION_ERRORS.nothingToDecide}, or ${MODERATION_ERRORS.coupleCannotResume}`,
          415: 'not JSON',
        }),
      },
    }),
    async (c, body) => {
      const outcome = await moderateItem(deps, { ...body, operator: operatorOf(c) })
      return c.json({ ok: true as const, ...answerOf(outcome).answer } as z.infer<typeof Moderated>)
    },
    { validationMessage: MODERATION_ERRORS.invalid, middleware: [operator] },
  )

  jsonRoute(
    app,
    createRoute({
      method: 'post',
      path: '/admin/actions/credit',
      limit: LIMIT.write,
      summary:
        "The refund rule: credits an undelivered order's paying wallet (25 credits per USDC), once",
      security: operatorSecurity,
      request: { body: json(CreditBody, 'the order') },
      responses: {
        200: json(Credited, 'credited; an event names the operator'),
        ...errors({
          400: CREDIT_ERRORS.invalid,
          ...GUARD_ERRORS,
          404: CREDIT_ERRORS.noSuchOrder,
          409: `${CREDIT_ERRORS.notPaid}, ${CREDIT_ERRORS.alreadyCredited}, or ${CREDIT_ERRORS.noPayer}`,
          415: 'not JSON',
        }),
      },
    }),
    async (c, body) => {
      const outcome = await creditOrder(deps, { orderId: body.orderId, operator: operatorOf(c) })
      return c.json({ ok: true as const, ...answerOf(outcome).answer })
    },
    { validationMessage: CREDIT_ERRORS.invalid, middleware: [operator] },
  )
}
