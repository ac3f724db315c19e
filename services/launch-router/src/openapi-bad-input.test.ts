import { walkAnswerHeaders, walkBadInput, walkDeepInput } from '@agents/service-kit/bad-input'
import { expect, it } from 'vitest'
import { readConfig } from './config.ts'
import { CREATOR, useTestRouter } from './testing.ts'

const router = useTestRouter()

// Stateless: nothing stores what it is given, but a string still reaches the
// salt miner and the payload builders, so U+0000 there must not be a 5xx either.
it('U+0000 in any string and integers outside int4 never get a 5xx, and errors are JSON with error', async () => {
  const { operations, failures, baseStatuses } = await walkBadInput({
    baseUrl: router.server.url,
    runsPerPosition: 10,
    // MCP answers in JSON-RPC, as its transport defines (mcp-errors.test.ts covers its errors).
    skip: (operation) => operation.path === '/mcp',
    samples: { name: 'Walker', symbol: 'WLK', chainId: 56, pad: 'flap', creator: CREATOR },
  })
  // Its six operations plus /health, /openapi.json, /llms.txt and /metrics (/mcp is skipped above).
  expect(operations).toHaveLength(10)
  expect(failures).toEqual([])
  expect(baseStatuses['POST /api/v1/get_sign_payload [no credential]']).toBe(200)
}, 60_000)

it('JSON nested 10,000 and 100,000 levels deep is refused with 400 on every route and MCP tool, large bodies get no 5xx, and the process keeps serving', async () => {
  const { targets, failures } = await walkDeepInput({
    baseUrl: router.server.url,
    maxBodyBytes: readConfig({}).MAX_BODY_BYTES,
    samples: { name: 'Walker', symbol: 'WLK', chainId: 56, pad: 'flap', creator: CREATOR },
  })
  expect(targets).toEqual(expect.arrayContaining(['POST /api/v1/draft_intent', 'MCP draft_intent']))
  expect(failures).toEqual([])
}, 120_000)

it('every answer, of every route and error, carries nosniff, DENY framing, no referrer and a policy', async () => {
  const { answers, failures } = await walkAnswerHeaders({
    baseUrl: router.server.url,
    samples: { name: 'Walker', symbol: 'WLK', chainId: 56, pad: 'flap', creator: CREATOR },
  })
  expect(answers.length).toBeGreaterThan(10)
  expect(failures).toEqual([])
})
