import {
  carriesPayment,
  paymentChallenge,
  RequirementV2Schema,
  resourceUrl,
} from '@agents/payments'
import { ApiError, type App, document, errors, freeRead, json } from '@agents/service-kit'
import { z } from '@hono/zod-openapi'
import type { SwapDeps } from '../deps.ts'
import { llmsTxt, skillMd } from './documents.ts'
import { discoveryDocument, samplePrice } from './sample.ts'

const markdown = { 'content-type': 'text/markdown; charset=utf-8' }

const X402Discovery = z
  .object({
    x402Version: z.literal(2),
    resources: z.array(
      z.object({
        resource: z.string().openapi({ description: 'the URL to pay ({id}: a match id)' }),
        type: z.literal('http'),
        method: z.literal('POST'),
        description: z.string(),
        accepts: z.array(RequirementV2Schema),
      }),
    ),
  })
  .openapi('X402Discovery')

const Jwks = z
  .object({
    keys: z.array(
      z
        .object({
          kty: z.literal('EC'),
          crv: z.literal('P-256'),
          x: z.string(),
          y: z.string(),
          kid: z.string(),
          alg: z.literal('ES256'),
          use: z.literal('sig'),
        })
        .openapi({ description: 'an ES256 public key (JWK)' }),
    ),
  })
  .openapi('Jwks')

export const registerDiscoveryRoutes = (app: App, deps: SwapDeps) => {
  const price = samplePrice(deps)
  const payPath = document(app, {
    method: 'post',
    path: '/v1/pay',
    limit: 'challenge',
    summary: 'Discovery probe: a bare call returns a sample 402 with one Base accept',
    description:
      'No side effects. A call carrying a payment is refused with 400 and nothing is settled: pay a match at POST /v1/matches/{id}/pay.',
    'x-payment-info': {
      price: { amount: price.amount.toString(), currency: 'USDC', decimals: 6 },
      rails: ['x402'],
      network: 'eip155:8453',
      asset: deps.payments.x402?.rails.find((rail) => rail.network === 'eip155:8453')?.asset,
      payee: price.payTo,
    },
    responses: {
      402: json(z.object({ error: z.string() }), 'the sample challenge (PAYMENT-REQUIRED header)'),
      ...errors({ 400: 'a payment was sent to the probe' }),
    },
  })
  const baseOnly = { ...deps.payments, mpp: undefined }
  app.post(payPath, async (c) => {
    if (carriesPayment(c.req.raw))
      throw new ApiError(
        400,
        'POST /v1/pay is a discovery probe and takes no payment; pay a match at POST /v1/matches/{id}/pay',
      )
    return paymentChallenge(baseOnly, c.req.raw, {
      price,
      // On the configured base URL: the request's Host names nothing here.
      resource: {
        url: resourceUrl(deps.baseUrl(), '/v1/pay'),
        description: 'swap rail discovery probe (sample)',
      },
    }).respond()
  })

  const x402Path = document(app, {
    method: 'get',
    path: '/.well-known/x402',
    summary: 'Payment discovery document',
    ...freeRead,
    limit: 'read',
    responses: { 200: json(X402Discovery, 'x402Version and resources[]') },
  })
  app.get(x402Path, (c) => c.json(discoveryDocument(deps)))

  const jwksPath = document(app, {
    method: 'get',
    path: '/.well-known/jwks.json',
    summary: "The hub's public keys: sellers verify grants with them",
    ...freeRead,
    limit: 'read',
    responses: { 200: json(Jwks, 'JWKS') },
  })
  app.get(jwksPath, (c) =>
    c.json(deps.grants.jwks, 200, { 'cache-control': 'public, max-age=300' }),
  )

  for (const [path, render, summary] of [
    ['/llms.txt', llmsTxt, 'Prose entry point for agents'],
    ['/skill.md', skillMd, 'The skill document (version 0.2.0): buyer and seller loops'],
  ] as const) {
    const route = document(app, {
      method: 'get',
      path,
      summary,
      ...freeRead,
      limit: 'read',
      responses: {
        200: { description: 'Markdown', content: { 'text/markdown': { schema: z.string() } } },
      },
    })
    app.get(route, (c) => c.body(render(deps.baseUrl()), 200, markdown))
  }
}
