import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { startTestVenue } from '../testing.ts'

// Agents learn what the venue sells from /skill, /llms-full.txt and the MCP tools: each names
// every paid item with its route and price, and the refund rule with the configured address.

let venue: Venue
let client: Client
beforeAll(async () => {
  venue = await startTestVenue({ env: { VENUE_REFUNDS_EMAIL: 'refunds@venue.example' } })
  client = new Client({ name: 'paid-items', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${venue.url}/mcp`)))
}, 60_000)
afterAll(async () => {
  await client?.close()
  await venue?.close()
})

// The spec's prices (its "Prices (USDC)" line), every route that sells one.
const ITEMS = [
  ['doc_submit', 'POST /api/intake/heart-file', '1.00 USDC'],
  ['doc_submit', 'POST /api/chat/submit-doc', '1.00 USDC'],
  ['compatibility_report', 'POST /api/premium/compatibility-report', '5.00 USDC'],
  ['featured_slot', 'POST /api/featured/post', '50.00 USDC'],
  ['agent_ask', 'POST /api/chat/ask', '0.10 USDC'],
  ['chat_topup', 'POST /api/chat/topup', '2.00 USDC'],
] as const

it.each(['/skill', '/llms-full.txt'])(
  '%s lists every paid item, its price and the refund rule',
  async (path) => {
    const text = await (await fetch(`${venue.url}${path}`)).text()
    for (const [kind, route, price] of ITEMS)
      expect(text).toContain(`| \`${kind}\` | \`${route}\` | ${price} |`)
    expect(text).toContain(
      'by e-mail to refunds@venue.example with the order id or transaction hash',
    )
    expect(text).toContain('X-Venue-Credential')
  },
)

it('the MCP tool compatibility_report_info describes the real route, price, body and answer', async () => {
  const result = await client.callTool({ name: 'compatibility_report_info', arguments: {} })
  const info = JSON.parse((result.content as Array<{ text: string }>)[0]!.text)
  expect(info).toMatchObject({
    route: 'POST /api/premium/compatibility-report',
    price: { kind: 'compatibility_report', amount: '5000000', display: '5.00 USDC' },
    body: { ownerId: 'integer > 0' },
    orderId: 'cr:<ownerId>:<coupleId or 0>:<utc_day>',
  })
  expect(info.refunds).toContain('refunds@venue.example')
  // The route it names exists and asks exactly that price.
  const document = await (await fetch(`${venue.url}/openapi.json`)).json()
  expect(document.paths['/api/premium/compatibility-report'].post.summary).toContain('5.00 USDC')
  expect(document.paths['/api/featured/post'].post.summary).toContain('50.00 USDC')
})
