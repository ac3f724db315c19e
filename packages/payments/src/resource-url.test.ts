import { createClient, http } from 'viem'
import { tempo } from 'viem/chains'
import { describe, expect, test } from 'vitest'
import { type ChallengeDeps, paymentChallenge } from './challenge.ts'
import { decodeBase64Json } from './headers.ts'
import { createMppAdapter } from './mpp/create-mpp-adapter.ts'
import { definePaidItem } from './paid-item/define-paid-item.ts'
import { sellItem } from './paid-item/sell-item.ts'
import type { PaymentsDeps } from './payments-deps.ts'
import { ResourceUrlError, resourceUrl } from './resource-url.ts'

const PAY_TO = '0x3aA62bAb8c47716eE13421d0620C9FC9740A5A62'
const deps: ChallengeDeps = {
  x402: {
    rails: [
      {
        network: 'eip155:8453',
        asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
        payTo: PAY_TO,
        extra: { name: 'USD Coin', version: '2' },
      },
    ],
    facilitator: { url: 'http://127.0.0.1:9' },
  },
  // Issuing a challenge reads no chain: the client is never called.
  mpp: createMppAdapter({
    secretKey: 'resource-url-test-secret-0123456789',
    realm: 'agent-services',
    chainId: 4217,
    currency: '0x20C000000000000000000000b9537d11c60E8b50',
    recipient: PAY_TO,
    getClient: () => createClient({ chain: tempo, transport: http('http://127.0.0.1:9') }),
  }),
}

/** A request as a hostile client sends it: every header that could name a host names its own. */
const hostileRequest = (path: string) =>
  new Request(`http://evil.example${path}`, {
    method: 'POST',
    headers: { 'x-forwarded-host': 'evil.example', forwarded: 'host=evil.example' },
  })

/** Everything a 402 says, its base64 parts decoded (PAYMENT-REQUIRED, MPP's `request`). */
const everything = async (response: Response) => {
  const required = response.headers.get('payment-required') ?? ''
  const mpp = response.headers.get('www-authenticate') ?? ''
  const mppRequest = /request="([^"]+)"/.exec(mpp)?.[1] ?? ''
  return [
    JSON.stringify(decodeBase64Json(required)),
    mpp,
    Buffer.from(mppRequest, 'base64url').toString(),
    await response.text(),
  ].join('\n')
}

describe('the resource a 402 names', () => {
  test('behavior: the absolute URL given, whatever the request says its host is; the v1 body names its path', async () => {
    const response = await paymentChallenge(deps, hostileRequest('/report'), {
      price: { amount: 1_000_000n },
      resource: { url: 'https://shop.example/report', description: 'report' },
      body: 'legacy-v1',
    }).respond()
    expect(response.status).toBe(402)
    expect(decodeBase64Json(response.headers.get('payment-required')!)).toMatchObject({
      resource: { url: 'https://shop.example/report' },
    })
    expect(response.headers.get('www-authenticate')).toMatch(/^Payment /)
    const text = await everything(response.clone())
    expect(text).not.toMatch(/evil\.example/i)
    expect(await response.json()).toMatchObject({ accepts: [{ resource: '/report' }] })
  })

  test('errors: a relative resource URL is refused at the first challenge, not completed from the request', () => {
    for (const url of ['/report', 'report', '//evil.example/report', 'javascript:alert(1)'])
      expect(() =>
        paymentChallenge(deps, hostileRequest('/report'), {
          price: { amount: 1_000_000n },
          resource: { url, description: 'report' },
        }),
      ).toThrow(ResourceUrlError)
  })

  test("behavior: a declared item's sale names its path on deps.baseUrl(), not on the request's host", async () => {
    const item = definePaidItem({
      kind: 'doc_submit',
      method: 'post',
      path: '/api/intake/heart-file',
      price: { amount: 1_000_000n },
      body: 'legacy-v1',
      what: 'a heart file filed',
      description: 'doc_submit',
      product: () => ({ fulfil: async () => ({}) }),
    })
    const outcome = await sellItem(
      { payments: deps as PaymentsDeps, baseUrl: () => 'https://venue.example' },
      hostileRequest('/api/intake/heart-file'),
      item,
      { order: {}, requestKey: 'k' },
    )
    if (outcome.type !== 'challenge') throw new Error(`expected a challenge, got ${outcome.type}`)
    const response = await outcome.challenge.respond()
    expect(decodeBase64Json(response.headers.get('payment-required')!)).toMatchObject({
      resource: { url: 'https://venue.example/api/intake/heart-file' },
    })
    expect(await everything(response)).not.toMatch(/evil\.example/i)
  })

  test('behavior: resourceUrl puts a path on a base URL; refuses anything but a path on an http(s) base', () => {
    expect(resourceUrl('https://rail.example', '/v1/pay')).toBe('https://rail.example/v1/pay')
    expect(resourceUrl('http://127.0.0.1:3003/', '/v1/pay')).toBe('http://127.0.0.1:3003/v1/pay')
    expect(() => resourceUrl('https://rail.example', 'v1/pay')).toThrow(ResourceUrlError)
    expect(() => resourceUrl('', '/v1/pay')).toThrow(ResourceUrlError)
    expect(() => resourceUrl('ftp://rail.example', '/v1/pay')).toThrow(ResourceUrlError)
  })
})
