import { randomUUID } from 'node:crypto'
import { walkAnswerHeaders, walkBadInput, walkDeepInput } from '@agents/service-kit/bad-input'
import { testBackends } from '@agents/service-kit/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readConfig } from './config.ts'
import type { SwapRail } from './start.ts'
import { SWAP_TEST_DATABASE, startTestSwapRail, TEST_DATABASE_URL } from './testing.ts'

const PAY_TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'

const SAMPLES = {
  endpoint: 'https://seller.example/v1',
  payTo: PAY_TO,
  buyer: PAY_TO,
  model: 'fuzz-model',
  mtok: 2,
  priceUsd: '1.5',
  maxPriceUsd: '2',
  signature: `0x${'ab'.repeat(65)}`,
  id: () => randomUUID(),
}

describe.each(testBackends(TEST_DATABASE_URL, SWAP_TEST_DATABASE))(
  'bad input on every route of /openapi.json on $name',
  ({ open }) => {
    let rail: SwapRail
    let drop: () => Promise<void>
    beforeAll(async () => {
      const database = await open()
      drop = database.drop
      // The walks send hundreds of anonymous writes from one address.
      rail = await startTestSwapRail({
        databaseUrl: database.url,
        env: { RATE_LIMIT_ANONYMOUS_WRITE: '100000/60' },
      })
    }, 60_000)
    afterAll(async () => {
      await rail?.close()
      await drop?.()
    })

    it('U+0000 in any string and ids outside int4 never get a 5xx, and errors are JSON with error', async () => {
      const { operations, failures, requests } = await walkBadInput({
        runsPerPosition: 10,
        baseUrl: rail.url,
        // MCP answers in JSON-RPC, as its transport defines (mcp-errors.test.ts covers its errors).
        skip: (operation) => operation.path === '/mcp',
        samples: SAMPLES,
      })
      expect(operations).toEqual(
        expect.arrayContaining(['POST /v1/offers', 'POST /v1/matches/{id}/pay']),
      )
      expect(failures).toEqual([])
      expect(requests).toBeGreaterThan(50)
    }, 60_000)

    it('JSON nested 10,000 and 100,000 levels deep is refused with 400 on every route and MCP tool, large bodies get no 5xx, and the process keeps serving', async () => {
      const { targets, failures } = await walkDeepInput({
        baseUrl: rail.url,
        maxBodyBytes: readConfig({}).MAX_BODY_BYTES,
        samples: SAMPLES,
      })
      expect(targets).toEqual(
        expect.arrayContaining(['POST /v1/offers', 'POST /v1/intents', 'MCP swap_create_intent']),
      )
      expect(failures).toEqual([])
    }, 120_000)

    it('every answer, of every route and error, carries nosniff, DENY framing, no referrer and a policy', async () => {
      const { answers, failures } = await walkAnswerHeaders({ baseUrl: rail.url, samples: SAMPLES })
      expect(answers.length).toBeGreaterThan(10)
      expect(failures).toEqual([])
    })
  },
)
