import fc from 'fast-check'
import { expect, test } from 'vitest'
import { CREATOR, OPERATIONS, useTestRouter } from './testing.ts'

// Hundreds of requests and new salts a minute from one address, on purpose:
// the limits are raised so the properties, not the limits, are what is tested.
const router = useTestRouter({ RATE_LIMIT_READ: '100000/60', RATE_LIMIT_MINING: '10000000/600' })

const PADS = [
  'clanker-v4',
  'zora-coin',
  'flaunch',
  'bankr',
  'flap',
  'pons-rh',
  'doppler-dynamic',
  'doppler-multicurve',
  'pumpfun',
  'nope',
]

const knobValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(
    0,
    -1,
    2001,
    10000,
    1e308,
    '',
    'WETH',
    CREATOR,
    'ipfs://x',
    'https://a.b',
    true,
    null,
  ),
)
const intentLike = fc.record(
  {
    name: fc.oneof(fc.string(), fc.jsonValue({ maxDepth: 1 })),
    symbol: fc.oneof(fc.string({ maxLength: 20 }), fc.integer()),
    chainId: fc.oneof(
      fc.constantFrom(
        1,
        56,
        8453,
        4663,
        '8453',
        'eip155:56',
        'solana:x',
        'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
      ),
      fc.jsonValue({ maxDepth: 1 }),
    ),
    pad: fc.oneof(fc.constantFrom(...PADS), fc.string()),
    creator: fc.oneof(
      fc.constant(CREATOR),
      fc.stringMatching(/^0x[0-9a-fA-F]{0,42}$/),
      // base58 of every length, valid keys (on or off the curve) among them
      fc.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{0,46}$/),
      fc.constant('9arWkU5e559ySikDWc2ydBC3H37KDa26KsRG1v1a6gGA'),
      fc.string(),
    ),
    taxRate: knobValue,
    migratorType: knobValue,
    fees: knobValue,
    rewards: knobValue,
    RH_STOCK: fc.oneof(fc.constantFrom('TSLA', 'tsla', 'AAPL'), knobValue),
    salt: knobValue,
    socials: knobValue,
    uri: knobValue,
    curves: knobValue,
    beneficiaries: knobValue,
    quoteAmt: knobValue,
  },
  { requiredKeys: [] },
)
const body = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.record({ intent: intentLike }),
  fc.record({ intent: intentLike, extra: fc.jsonValue({ maxDepth: 1 }) }),
  fc.record({ pad: fc.oneof(fc.constantFrom(...PADS), fc.jsonValue({ maxDepth: 1 })) }),
)
const rawBody = fc.oneof(
  body.map((value) => JSON.stringify(value) ?? 'null'),
  fc.string(),
  body.map((value) => (JSON.stringify(value) ?? '').slice(0, -1)),
)

test('property: no body gets a 5xx; every error is JSON with an error message', async () => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...OPERATIONS), rawBody, async (operation, text) => {
      const response = await fetch(`${router.server.url}/api/v1/${operation}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: text,
      })
      const payload = await response.json()
      expect(response.status, `${operation} ${text.slice(0, 200)}`).toBeLessThan(500)
      if (response.status >= 400) expect(typeof payload.error).toBe('string')
    }),
    { numRuns: 400 },
  )
})

const VALID_INTENTS: Record<string, unknown>[] = [
  {
    name: 'Fuzz',
    symbol: 'FZ',
    chainId: 8453,
    pad: 'clanker-v4',
    creator: CREATOR,
    image: 'https://a.b/c.png',
  },
  {
    name: 'Fuzz',
    symbol: 'FZ',
    chainId: 8453,
    pad: 'zora-coin',
    creator: CREATOR,
    metadataUri: 'ipfs://bafy',
  },
  {
    name: 'Fuzz',
    symbol: 'FZ',
    chainId: 8453,
    pad: 'flaunch',
    creator: CREATOR,
    image: 'aGVsbG8=',
  },
  { name: 'Fuzz', symbol: 'FZ', chainId: 8453, pad: 'bankr', creator: CREATOR, description: 'd' },
  { name: 'Fuzz', symbol: 'FZ', chainId: 56, pad: 'flap', creator: CREATOR, quoteAmt: '1' },
]
const KEYS = [
  'name',
  'symbol',
  'chainId',
  'pad',
  'creator',
  'image',
  'fees',
  'vault',
  'devBuy',
  'taxRate',
  'migratorType',
  'dexThresh',
  'quoteAmt',
  'quoteToken',
  'beneficiary',
  'meta',
  'feeRecipient',
  'socials',
  'flaunchAt',
  'metadataUri',
  'currency',
  'initialMarketCapUSD',
  'simulateOnly',
  'supply',
  'RH_STOCK',
  'Salt',
]
const mutation = fc.oneof(
  fc.record({ kind: fc.constant('delete' as const), key: fc.constantFrom(...KEYS) }),
  fc.record({ kind: fc.constant('set' as const), key: fc.constantFrom(...KEYS), value: knobValue }),
)

test('property: mutated valid intents get 200 or 422, never a 5xx, and payload ops agree', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...VALID_INTENTS),
      fc.array(mutation, { maxLength: 3 }),
      async (base, mutations) => {
        const intent: Record<string, unknown> = { ...base }
        for (const change of mutations) {
          if (change.kind === 'delete') delete intent[change.key]
          else intent[change.key] = change.value
        }
        const body = JSON.stringify({ intent })
        const answers = await Promise.all(
          ['draft_intent', 'get_sign_payload'].map((operation) =>
            fetch(`${router.server.url}/api/v1/${operation}`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body,
            }),
          ),
        )
        const [drafted, signed] = await Promise.all(
          answers.map(async (response) => ({
            status: response.status,
            json: await response.json(),
          })),
        )
        expect(drafted!.status, body).toBe(200)
        expect(signed!.status, body).toBe(drafted!.json.ok ? 200 : 422)
      },
    ),
    { numRuns: 300 },
  )
})
