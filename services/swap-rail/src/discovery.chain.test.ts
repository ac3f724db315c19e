import type { Devnet } from '@agents/devnet'
import { sharedDevnet } from '@agents/devnet/testing'
import { decodeBase64Json, PAYMENT_REQUIRED_HEADER } from '@agents/payments'
import { paymentSignatureHeader } from '@agents/payments/testing'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { validate } from '@readme/openapi-parser'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SwapRail } from './start.ts'
import { startTestSwapRail } from './testing.ts'

let devnet: Devnet
let rail: SwapRail
let client: Client
beforeAll(async () => {
  devnet = await sharedDevnet()
  rail = await startTestSwapRail({ devnet })
  client = new Client({ name: 'swap-rail-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${rail.url}/mcp`)))
}, 60_000)
afterAll(async () => {
  await client?.close()
  await rail?.close()
  await devnet?.stop()
})

type Accept = { network: string; amount: string; payTo: string; asset: string }

describe('discovery', () => {
  it('POST /v1/pay: a bare call is the sample 402 with exactly one Base accept and writes nothing', async () => {
    const response = await fetch(`${rail.url}/v1/pay`, { method: 'POST' })
    expect(response.status).toBe(402)
    const required = decodeBase64Json(response.headers.get(PAYMENT_REQUIRED_HEADER)!) as {
      accepts: Accept[]
    }
    expect(required.accepts).toHaveLength(1)
    expect(required.accepts[0]).toMatchObject({
      network: 'eip155:8453',
      amount: '1000000',
      asset: devnet.base.usdc,
    })
    expect(response.headers.get('www-authenticate')).toBeNull()
    const { rows } = await rail.deps.database.client.query(
      'SELECT (SELECT count(*) FROM swap_offers)::int + (SELECT count(*) FROM payment_ledger)::int AS n',
    )
    expect(rows[0]).toEqual({ n: 0 })
  })

  it('POST /v1/pay: a call carrying a payment is refused and nothing is settled', async () => {
    const bare = await fetch(`${rail.url}/v1/pay`, { method: 'POST' })
    const [accept] = (
      decodeBase64Json(bare.headers.get(PAYMENT_REQUIRED_HEADER)!) as { accepts: Accept[] }
    ).accepts
    const payer = devnet.accounts.payer
    const before = await devnet.usdcBalance(payer.address)
    const response = await fetch(`${rail.url}/v1/pay`, {
      method: 'POST',
      headers: { 'payment-signature': await paymentSignatureHeader(payer, accept as never) },
    })
    expect(response.status).toBe(400)
    expect((await response.json()).error).toMatch(/discovery probe/)
    expect(await devnet.usdcBalance(payer.address)).toBe(before)
  })

  it('GET /.well-known/x402 advertises one gross USDC accept on Base whose payee is the sample split', async () => {
    const document = await fetch(`${rail.url}/.well-known/x402`).then((r) => r.json())
    expect(document.x402Version).toBe(2)
    const probe = await fetch(`${rail.url}/v1/pay`, { method: 'POST' })
    const live = decodeBase64Json(probe.headers.get(PAYMENT_REQUIRED_HEADER)!) as {
      accepts: Accept[]
    }
    for (const resource of document.resources) {
      expect(resource.accepts).toHaveLength(1)
      expect(resource.accepts[0]).toEqual(live.accepts[0])
    }
  })

  it('GET /.well-known/jwks.json publishes one ES256 public key and no private part', async () => {
    const jwks = await fetch(`${rail.url}/.well-known/jwks.json`).then((r) => r.json())
    expect(jwks.keys).toHaveLength(1)
    expect(jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' })
    expect(jwks.keys[0].d).toBeUndefined()
  })

  it('GET /openapi.json: valid 3.1, every route, payment info on /v1/pay, free reads need no security', async () => {
    const document = await fetch(`${rail.url}/openapi.json`).then((r) => r.json())
    expect(document.openapi).toBe('3.1.0')
    const result = await validate(structuredClone(document))
    expect(result.valid, JSON.stringify(result)).toBe(true)
    expect(Object.keys(document.paths).sort()).toEqual(
      [
        '/.well-known/jwks.json',
        '/.well-known/x402',
        '/health',
        '/llms.txt',
        '/mcp',
        '/metrics',
        '/openapi.json',
        '/skill.md',
        '/v1/intents',
        '/v1/intents/{id}',
        '/v1/matches/{id}',
        '/v1/matches/{id}/pay',
        '/v1/offers',
        '/v1/offers/{id}',
        '/v1/offers/{id}/cancel',
        '/v1/pay',
      ].sort(),
    )
    const pay = document.paths['/v1/pay'].post
    expect(pay['x-payment-info']).toMatchObject({
      rails: ['x402'],
      network: 'eip155:8453',
      asset: devnet.base.usdc,
      price: { amount: '1000000', currency: 'USDC' },
    })
    expect(pay['x-payment-info'].payee).toMatch(/^0x[0-9a-fA-F]{40}$/)
    expect(document.paths['/v1/matches/{id}/pay'].post['x-payment-info'].rails).toEqual([
      'x402',
      'mpp',
    ])
    for (const path of ['/v1/offers', '/v1/offers/{id}', '/v1/matches/{id}', '/.well-known/x402'])
      expect(document.paths[path].get.security, path).toEqual([])
  })

  it('GET /llms.txt and /skill.md: the loops, version 0.2.0 and the private-key warning', async () => {
    const llms = await fetch(`${rail.url}/llms.txt`)
    expect(llms.headers.get('content-type')).toMatch(/text\/markdown/)
    expect(await llms.text()).toContain(`${rail.url}/skill.md`)
    const skill = await fetch(`${rail.url}/skill.md`).then((r) => r.text())
    expect(skill).toMatch(/^---\nname: swap-rail\nversion: 0\.2\.0\n/)
    expect(skill).toContain('## Buyer loop')
    expect(skill).toContain('## Seller loop')
    expect(skill).toMatch(/Never place a private key in this tool server's configuration/)
  })
})

describe('MCP tools', () => {
  it('lists the five tools', async () => {
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'swap_create_intent',
      'swap_create_offer',
      'swap_get_match',
      'swap_list_offers',
      'swap_pay_challenge',
    ])
  })

  it('the buyer and seller loop through tools, with the HTTP validation', async () => {
    const model = 'mcp-model'
    const offer = await client.callTool({
      name: 'swap_create_offer',
      arguments: {
        endpoint: 'https://seller.example/v1',
        payTo: devnet.accounts.payee2,
        model,
        mtok: 3,
        priceUsd: '0.2',
      },
    })
    expect(offer.isError).toBeFalsy()
    const listed = await client.callTool({ name: 'swap_list_offers', arguments: { model } })
    expect((listed.structuredContent as { offers: unknown[] }).offers).toHaveLength(1)

    const intent = await client.callTool({
      name: 'swap_create_intent',
      arguments: { model, mtok: 2, maxPriceUsd: '1' },
    })
    const match = (intent.structuredContent as { match: { id: string; splitAddress: string } })
      .match
    const challenge = await client.callTool({
      name: 'swap_pay_challenge',
      arguments: { matchId: match.id },
    })
    const { x402, mpp } = challenge.structuredContent as {
      x402: { accepts: Accept[] }
      mpp: string
    }
    expect(x402.accepts).toEqual([
      expect.objectContaining({
        network: 'eip155:8453',
        amount: '400000',
        payTo: match.splitAddress,
      }),
    ])
    expect(mpp).toMatch(/^Payment /)
    const read = await client.callTool({ name: 'swap_get_match', arguments: { matchId: match.id } })
    expect(read.structuredContent).toMatchObject({ id: match.id, status: 'awaiting_payment' })

    const bad = await client.callTool({
      name: 'swap_create_offer',
      arguments: {
        endpoint: 'https://10.0.0.1/v1',
        payTo: devnet.accounts.payee2,
        model,
        mtok: 1,
        priceUsd: '1',
      },
    })
    expect(bad.isError).toBe(true)
    const badPrice = await client.callTool({
      name: 'swap_create_intent',
      arguments: { model, mtok: 1, maxPriceUsd: '0.1234567' },
    })
    expect(badPrice.isError).toBe(true)
    const unknown = await client.callTool({
      name: 'swap_get_match',
      arguments: { matchId: '00000000-0000-4000-8000-000000000000' },
    })
    expect(unknown.isError).toBe(true)
  })
})
