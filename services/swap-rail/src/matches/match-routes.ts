import { saleResponse } from '@agents/payments'
import { ApiError, type App, answerOf, document, errors, freeRead, json } from '@agents/service-kit'
import { z } from '@hono/zod-openapi'
import type { SwapDeps } from '../deps.ts'
import { IdParam, idOr404 } from '../row-ids.ts'
import { MatchView } from './match-schemas.ts'
import { getMatch, matchAnswer, matchView, payMatch } from './matches.ts'

export const registerMatchRoutes = (app: App, deps: SwapDeps) => {
  const getPath = document(app, {
    method: 'get',
    path: '/v1/matches/{id}',
    // Counted per match: buyers behind one address do not share a limit.
    limit: { name: 'read', capability: 'match' },
    summary: 'A match: terms, the payment challenge while unpaid, a fresh grant once paid',
    description:
      'The match id is the capability: it is unguessable (uuid v4) and whoever holds it can read the grant. During the redemption window every read hands out a fresh short-lived grant.',
    request: { params: IdParam },
    ...freeRead,
    responses: {
      200: json(MatchView, 'the match'),
      ...errors({ 400: 'invalid id', 404: 'no such match' }),
    },
  })
  app.get(getPath, async (c) => {
    const found = await getMatch(deps, idOr404(c.req.param('id'), 'match'))
    if (!found) throw new ApiError(404, 'no such match')
    return c.json(await matchView(deps, found), 200, { 'cache-control': 'no-store' })
  })

  const payPathPattern = document(app, {
    method: 'post',
    path: '/v1/matches/{id}/pay',
    limit: { name: 'challenge', capability: 'match' },
    summary: 'Pay a match: x402 on Base (to the split) or MPP push on Tempo (seller split)',
    description:
      'A bare call returns the 402: PAYMENT-REQUIRED with exactly one Base accept (gross to the split) and WWW-Authenticate: Payment (Tempo, push mode, the seller share as a split). Read it before signing. Paid: the match with its grant.',
    request: { params: IdParam },
    'x-payment-info': {
      price: 'the match gross (mtok x unit price), USDC atomic units',
      rails: ['x402', 'mpp'],
      network: 'eip155:8453',
      asset: 'USDC',
      payee: "the match's split address",
    },
    responses: {
      200: json(MatchView, 'paid: the match with its grant'),
      402: json(
        z
          .object({
            error: z.string(),
            reason: z.string().optional(),
            detail: z.string().optional(),
          })
          .strict(),
        'payment required or not verified',
      ),
      ...errors({
        400: 'invalid id',
        404: 'no such match',
        409: 'already paid, or a payment is being settled',
        410: 'payment window ended',
      }),
    },
  })
  app.post(payPathPattern, async (c) => {
    const outcome = await payMatch(deps, c.req.raw, idOr404(c.req.param('id'), 'match'))
    return saleResponse(answerOf(outcome).outcome, { answer: matchAnswer(deps) })
  })
}
