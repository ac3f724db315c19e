import { randomUUID } from 'node:crypto'
import { NUL_MESSAGE } from '@agents/service-kit'
import { testBackends } from '@agents/service-kit/db'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SwapRail } from './start.ts'
import { SWAP_TEST_DATABASE, startTestSwapRail, TEST_DATABASE_URL } from './testing.ts'

const PAY_TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const offer = {
  endpoint: 'https://seller.example/v1',
  payTo: PAY_TO,
  model: 'mcp-model',
  mtok: 2,
  priceUsd: '1.5',
}

describe.each(testBackends(TEST_DATABASE_URL, SWAP_TEST_DATABASE))(
  'MCP tool errors on $name',
  ({ open }) => {
    let rail: SwapRail
    let client: Client
    let drop: () => Promise<void>
    beforeAll(async () => {
      const database = await open()
      drop = database.drop
      rail = await startTestSwapRail({
        databaseUrl: database.url,
        env: { SWAP_DEV_ENDPOINT_HOSTS: '' },
      })
      client = new Client({ name: 'swap-rail-errors', version: '1.0.0' })
      await client.connect(new StreamableHTTPClientTransport(new URL(`${rail.url}/mcp`)))
    }, 60_000)
    afterAll(async () => {
      await client?.close()
      await rail?.close()
      await drop?.()
    })

    const call = async (name: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: args })
      expect(result.isError).toBe(true)
      return JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as unknown
    }
    const http = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${rail.url}${path}`, {
        method,
        ...(body === undefined
          ? {}
          : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      })
      return { status: response.status, json: (await response.json()) as unknown }
    }

    it('bad arguments carry the route’s 400 body: its message and the same zod issues', async () => {
      const bad = { ...offer, endpoint: 'https://seller.example/v1\u0000', mtok: 2 ** 31 }
      const route = await http('POST', '/v1/offers', bad)
      expect(route.status).toBe(400)
      expect(route.json).toMatchObject({ error: 'invalid offer' })
      expect(await call('swap_create_offer', bad)).toEqual(route.json)
      const intent = { model: 'mcp model', mtok: 0, maxPriceUsd: '1' }
      expect(await call('swap_create_intent', intent)).toEqual(
        (await http('POST', '/v1/intents', intent)).json,
      )
    })

    it('a refusal carries its message, as the route says it', async () => {
      const id = randomUUID()
      const route = await http('GET', `/v1/matches/${id}`)
      expect(route).toEqual({ status: 404, json: { error: 'no such match' } })
      expect(await call('swap_get_match', { matchId: id })).toEqual(route.json)
      // An id no row could have (not a uuid): the same 404 from the route and both tools.
      const madeUp = await http('GET', '/v1/matches/not-a-match')
      expect(madeUp).toEqual({ status: 404, json: { error: 'no such match' } })
      expect(await call('swap_get_match', { matchId: 'not-a-match' })).toEqual(madeUp.json)
      expect(await call('swap_pay_challenge', { matchId: 'not-a-match' })).toEqual(madeUp.json)
      const nul = await http('GET', '/v1/matches/x%00')
      expect(nul.status).toBe(400)
      expect(nul.json).toMatchObject({ error: 'invalid id', issues: [{ message: NUL_MESSAGE }] })
      // The same message; the issue names the tool's argument.
      expect(await call('swap_pay_challenge', { matchId: 'x\u0000' })).toMatchObject({
        error: 'invalid id',
        issues: [{ path: ['matchId'], message: NUL_MESSAGE }],
      })
    })

    it('a match past its payment: the challenge tool refuses 409, the read tool still answers', async () => {
      const model = 'mcp-expired-model'
      expect((await http('POST', '/v1/offers', { ...offer, model })).status).toBe(201)
      const intent = await http('POST', '/v1/intents', { model, mtok: 2, maxPriceUsd: '2' })
      const { id } = (intent.json as { match: { id: string } }).match
      await rail.deps.database.client.query(
        "UPDATE swap_matches SET status = 'expired' WHERE id = $1",
        [id],
      )
      expect(await call('swap_pay_challenge', { matchId: id })).toEqual({
        error: 'match is expired: nothing to pay',
      })
      const read = await client.callTool({ name: 'swap_get_match', arguments: { matchId: id } })
      expect(read.structuredContent).toMatchObject({ id, status: 'expired' })
    })

    it('a fault is `internal`, never the driver’s text', async () => {
      // Last: the table is gone for the rest of this database's life.
      await rail.deps.database.client.query('DROP TABLE swap_offers CASCADE')
      const route = await http('GET', '/v1/offers')
      expect(route).toEqual({ status: 500, json: { error: 'internal' } })
      const result = await client.callTool({ name: 'swap_list_offers', arguments: {} })
      expect(result).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: '{"error":"internal"}' }],
      })
      expect(JSON.stringify(result)).not.toMatch(/Failed query|swap_offers/)
    })
  },
)
