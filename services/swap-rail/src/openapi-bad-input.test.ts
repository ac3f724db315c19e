import { randomUUID } from 'node:crypto'
import { walkBadInput } from '@agents/service-kit/bad-input'
import { testBackends } from '@agents/service-kit/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SwapRail } from './start.ts'
import { SWAP_TEST_DATABASE, startTestSwapRail, TEST_DATABASE_URL } from './testing.ts'

const PAY_TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'

describe.each(testBackends(TEST_DATABASE_URL, SWAP_TEST_DATABASE))(
  'bad input on every route of /openapi.json on $name',
  ({ open }) => {
    let rail: SwapRail
    let drop: () => Promise<void>
    beforeAll(async () => {
      const database = await open()
      drop = database.drop
      rail = await startTestSwapRail({ databaseUrl: database.url })
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
        samples: {
          endpoint: 'https://seller.example/v1',
          payTo: PAY_TO,
          buyer: PAY_TO,
          model: 'fuzz-model',
          mtok: 2,
          priceUsd: '1.5',
          maxPriceUsd: '2',
          signature: `0x${'ab'.repeat(65)}`,
          id: () => randomUUID(),
        },
      })
      expect(operations).toEqual(
        expect.arrayContaining(['POST /v1/offers', 'POST /v1/matches/{id}/pay']),
      )
      expect(failures).toEqual([])
      expect(requests).toBeGreaterThan(50)
    }, 60_000)
  },
)
