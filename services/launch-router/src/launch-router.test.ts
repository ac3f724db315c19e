import type { RunningServer } from '@agents/service-kit'
import { decodeFunctionData, getContractAddress, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { CHECKSUMMED, CREATOR, callOperation, startTestRouter } from './testing.ts'

let server: RunningServer
beforeAll(async () => {
  server = await startTestRouter()
})
afterAll(() => server.close())

const call = (operation: string, body: unknown) => callOperation(server, operation, body)
const intent = (overrides: Record<string, unknown> = {}) => ({
  name: 'Moon Cat',
  symbol: 'MCAT',
  chainId: 8453,
  pad: 'clanker-v4',
  creator: CREATOR,
  ...overrides,
})
const codes = (issues: Array<{ code: string; field: string }>) =>
  issues.map((issue) => `${issue.code}@${issue.field}`)

describe('list_pads and list_networks', () => {
  test('default: every pad with chains, status and notes; both statuses, all kinds, one stock pad', async () => {
    const { status, json } = await call('list_pads', {})
    expect(status).toBe(200)
    expect(json.pads.length).toBeGreaterThanOrEqual(8)
    expect(new Set(json.pads.map((pad: { kind: string }) => pad.kind))).toEqual(
      new Set(['sdk-deploy', 'simulate-api', 'party-factory']),
    )
    expect(new Set(json.pads.map((pad: { status: string }) => pad.status))).toEqual(
      new Set(['wired', 'unproven']),
    )
    expect(json.pads.find((pad: { id: string }) => pad.id === 'flap')).toMatchObject({
      kind: 'party-factory',
      chains: [56],
      status: 'wired',
    })
  })

  test('behavior: list_networks is exactly the union of the pads chains', async () => {
    const pads = (await call('list_pads', {})).json.pads as Array<{
      chains: Array<number | string>
    }>
    const union = new Set(pads.flatMap((pad) => pad.chains))
    const { status, json } = await call('list_networks', {})
    expect(status).toBe(200)
    expect(new Set(json.chains)).toEqual(union)
    expect(json.chains).toHaveLength(union.size)
    expect(json.chains).toContain('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp')
  })

  test('behavior: the list operations take exactly an empty object', async () => {
    for (const operation of ['list_pads', 'list_networks']) {
      const extra = await call(operation, { verbose: true })
      expect(extra.status).toBe(400)
      expect(extra.json.issues[0].code).toBe('unrecognized_keys')
      expect((await call(operation, [])).status).toBe(400)
      expect((await call(operation, 'null')).status).toBe(400)
    }
  })
})

describe('get_capabilities', () => {
  test('default: knobs with constraints and use, forbidden fields, chains, status, salt rule', async () => {
    const { status, json } = await call('get_capabilities', { pad: 'flap' })
    expect(status).toBe(200)
    expect(json).toMatchObject({
      pad: 'flap',
      kind: 'party-factory',
      status: 'wired',
      chains: [56],
    })
    expect(json.knobs.find((knob: { name: string }) => knob.name === 'taxRate')).toMatchObject({
      type: 'integer',
      min: 0,
      used: true,
    })
    expect(json.forbidden.map((entry: { field: string }) => entry.field)).toContain('RH_STOCK')
    expect(json.salt.rule).toEqual({ type: 'address-suffix', hex: '8888' })
  })

  test('behavior: the stock pad shows its allowlist; an unknown pad is 422 pad_unknown', async () => {
    const stock = await call('get_capabilities', { pad: 'pons-rh' })
    expect(stock.json.stockAllowlist).toEqual({
      TSLA: '0x322F0929c4625eD5bAd873c95208D54E1c003b2d',
    })
    const unknown = await call('get_capabilities', { pad: 'nope' })
    expect(unknown.status).toBe(422)
    expect(codes(unknown.json.errors)).toEqual(['pad_unknown@pad'])
  })

  test('behavior: body is exactly {pad}', async () => {
    expect((await call('get_capabilities', {})).status).toBe(400)
    expect((await call('get_capabilities', { pad: 'flap', chain: 56 })).status).toBe(400)
    expect((await call('get_capabilities', { pad: 7 })).status).toBe(400)
  })
})

describe('draft_intent', () => {
  test('default: a good intent is ok, normalised (checksummed creator, numeric chain)', async () => {
    const { status, json } = await call('draft_intent', {
      intent: intent({
        creator: CHECKSUMMED.toLowerCase(),
        chainId: 'eip155:8453',
        name: '  Moon Cat ',
      }),
    })
    expect(status).toBe(200)
    expect(json).toEqual({
      ok: true,
      errors: [],
      warnings: [],
      intent: {
        pad: 'clanker-v4',
        chainId: 8453,
        name: 'Moon Cat',
        symbol: 'MCAT',
        creator: CHECKSUMMED,
      },
    })
  })

  test.each([
    [{ pad: 'nope' }, 'pad_unknown@pad'],
    [{ pad: 'four-meme', chainId: 56 }, 'pad_unproven@pad'],
    [{ chainId: 10 }, 'chain_not_listed@chainId'],
    [{ chainId: 'ten' }, 'chain_invalid@chainId'],
    [{ RH_STOCK: 'TSLA' }, 'forbidden_stock_pair@RH_STOCK'],
    [{ rh_stock: 'TSLA' }, 'forbidden_stock_pair@rh_stock'],
    [{ supply: '1' }, 'forbidden_field@supply'],
    [{ pairedToken: '0x4200000000000000000000000000000000000006' }, 'forbidden_field@pairedToken'],
    [
      { fees: { type: 'static', clankerFee: 2001, pairedFee: 100 } },
      'knob_invalid@fees.clankerFee',
    ],
    [{ vault: { percentage: 50, lockupDuration: 3600 } }, 'knob_invalid@vault.lockupDuration'],
    [{ creator: '0x1234' }, 'creator_invalid@creator'],
    [{ creator: CHECKSUMMED.replace('d8dA', 'd8Da') }, 'creator_invalid@creator'],
    [{ name: '' }, 'name_invalid@name'],
    [{ name: 'x'.repeat(65) }, 'name_invalid@name'],
    [{ name: 'bad\u202Ename' }, 'name_invalid@name'],
    [{ symbol: 'MC AT' }, 'symbol_invalid@symbol'],
    [{ symbol: undefined }, 'symbol_invalid@symbol'],
  ])('errors: %j -> %s', async (overrides, expected) => {
    const { status, json } = await call('draft_intent', { intent: intent(overrides) })
    expect(status).toBe(200)
    expect(json.ok).toBe(false)
    expect(codes(json.errors)).toEqual([expected])
  })

  test('errors: rewards bps must add up to 10000', async () => {
    const recipient = { admin: CREATOR, recipient: CREATOR, token: 'Both' }
    const bad = await call('draft_intent', {
      intent: intent({
        rewards: {
          recipients: [
            { ...recipient, bps: 6000 },
            { ...recipient, bps: 3000 },
          ],
        },
      }),
    })
    expect(codes(bad.json.errors)).toEqual(['knob_invalid@rewards.recipients'])
    const good = await call('draft_intent', {
      intent: intent({
        rewards: {
          recipients: [
            { ...recipient, bps: 6000 },
            { ...recipient, bps: 4000 },
          ],
        },
      }),
    })
    expect(good.json.ok).toBe(true)
  })

  test('errors: a salt anywhere, at any depth, in any case', async () => {
    const { json } = await call('draft_intent', {
      intent: intent({
        salt: '0x01',
        context: { SALT: 1 },
        socials: [{ platform: 'x', url: 'https://x.com/a', Salt: 2 }],
      }),
    })
    expect(codes(json.errors).filter((code) => code.startsWith('salt_forbidden'))).toEqual([
      'salt_forbidden@salt',
      'salt_forbidden@context.SALT',
      'salt_forbidden@socials.0.Salt',
    ])
  })

  test('errors: the stock pad takes allowlisted tickers only (and is unproven)', async () => {
    const stock = { pad: 'pons-rh', chainId: 4663 }
    const known = await call('draft_intent', { intent: intent({ ...stock, RH_STOCK: 'tsla' }) })
    expect(codes(known.json.errors)).toEqual(['pad_unproven@pad'])
    expect(known.json.intent.RH_STOCK).toBe('TSLA')
    const unknown = await call('draft_intent', { intent: intent({ ...stock, RH_STOCK: 'AAPL' }) })
    expect(codes(unknown.json.errors)).toEqual(['pad_unproven@pad', 'stock_unknown@RH_STOCK'])
  })

  test('errors: a required knob, and a cross-knob rule (tax token needs the V2 migrator)', async () => {
    const zora = await call('draft_intent', { intent: intent({ pad: 'zora-coin' }) })
    expect(codes(zora.json.errors)).toEqual(['knob_invalid@metadataUri'])
    const flap = await call('draft_intent', {
      intent: intent({ pad: 'flap', chainId: 56, taxRate: 100 }),
    })
    expect(codes(flap.json.errors)).toEqual(['knob_invalid@migratorType'])
  })

  test('warnings: knob_ignored for an ignored or unknown knob; the draft stays ok', async () => {
    const { json } = await call('draft_intent', { intent: intent({ vanity: true, color: 'blue' }) })
    expect(json.ok).toBe(true)
    expect(codes(json.warnings)).toEqual(['knob_ignored@vanity', 'knob_ignored@color'])
    expect(json.intent).not.toHaveProperty('vanity')
  })

  test('behavior: several problems are all reported', async () => {
    const { json } = await call('draft_intent', {
      intent: { pad: 'flap', chainId: 8453, name: '', symbol: '!', creator: 'me', salt: 1 },
    })
    expect(codes(json.errors).sort()).toEqual(
      [
        'salt_forbidden@salt',
        'name_invalid@name',
        'symbol_invalid@symbol',
        'creator_invalid@creator',
        'chain_not_listed@chainId',
      ].sort(),
    )
    expect(json.intent).toBeNull()
  })

  test('behavior: the body is exactly {intent: object}', async () => {
    expect((await call('draft_intent', {})).status).toBe(400)
    expect((await call('draft_intent', { intent: 'x' })).status).toBe(400)
    expect((await call('draft_intent', { intent: [] })).status).toBe(400)
    expect((await call('draft_intent', { intent: intent(), extra: 1 })).status).toBe(400)
  })
})

describe('sign payloads', () => {
  test('sdk-deploy: the Clanker SDK deploy configuration', async () => {
    const { status, json } = await call('get_sign_payload', {
      intent: intent({
        image: 'ipfs://bafy',
        fees: { type: 'static', clankerFee: 50, pairedFee: 70 },
      }),
    })
    expect(status).toBe(200)
    expect(json.payload).toEqual({
      kind: 'sdk-deploy',
      pad: 'clanker-v4',
      chainId: 8453,
      sdk: { package: 'clanker-sdk', version: '4.2.18', call: 'Clanker.deploy' },
      bigints: [],
      config: {
        name: 'Moon Cat',
        symbol: 'MCAT',
        tokenAdmin: CREATOR,
        chainId: 8453,
        image: 'ipfs://bafy',
        metadata: { description: '', socialMediaUrls: [] },
        context: { interface: 'launch-router' },
        fees: { type: 'static', clankerFee: 50, pairedFee: 70 },
        vanity: false,
      },
    })
  })

  test('simulate-api: the Bankr API request, flagged simulateOnly, no key', async () => {
    const { json } = await call('get_sign_payload', {
      intent: intent({ pad: 'bankr', symbol: 'MCAT', description: 'a cat', simulateOnly: true }),
    })
    expect(json.payload.request).toEqual({
      method: 'POST',
      url: 'https://api.bankr.bot/token-launches/deploy',
      headers: { 'Content-Type': 'application/json' },
      body: {
        tokenName: 'Moon Cat',
        tokenSymbol: 'MCAT',
        description: 'a cat',
        feeRecipient: { type: 'wallet', value: CREATOR },
        simulateOnly: true,
      },
    })
    const refused = await call('draft_intent', {
      intent: intent({ pad: 'bankr', simulateOnly: false }),
    })
    expect(codes(refused.json.errors)).toEqual(['forbidden_field@simulateOnly'])
  })

  test('party-factory: calldata, mined salt and predicted address that viem confirms', async () => {
    for (const overrides of [{}, { taxRate: 250, migratorType: 1 }]) {
      const { status, json } = await call('get_sign_payload', {
        intent: intent({ pad: 'flap', chainId: 56, quoteAmt: '1000000000000000', ...overrides }),
      })
      expect(status).toBe(200)
      const { payload } = json
      const suffix = 'taxRate' in overrides ? '7777' : '8888'
      expect(payload.salt.rule).toEqual({ type: 'address-suffix', hex: suffix })
      expect(payload.salt.predictedAddress.endsWith(suffix)).toBe(true)
      expect(
        getContractAddress({
          opcode: 'CREATE2',
          from: payload.salt.deployer,
          salt: payload.salt.value,
          bytecodeHash: payload.salt.initCodeHash,
        }),
      ).toBe(payload.salt.predictedAddress)

      const abi = (await call('get_capabilities', { pad: 'flap' })).json
      expect(abi.salt.deployer).toBe(payload.to)
      const decoded = decodeFunctionData({
        abi: [
          {
            name: 'newTokenV2',
            type: 'function',
            stateMutability: 'payable',
            inputs: [
              {
                type: 'tuple',
                name: 'params',
                components: [
                  { type: 'string', name: 'name' },
                  { type: 'string', name: 'symbol' },
                  { type: 'string', name: 'meta' },
                  { type: 'uint8', name: 'dexThresh' },
                  { type: 'bytes32', name: 'salt' },
                  { type: 'uint16', name: 'taxRate' },
                  { type: 'uint8', name: 'migratorType' },
                  { type: 'address', name: 'quoteToken' },
                  { type: 'uint256', name: 'quoteAmt' },
                  { type: 'address', name: 'beneficiary' },
                  { type: 'bytes', name: 'permitData' },
                ],
              },
            ],
            outputs: [],
          },
        ],
        data: payload.data as Hex,
      })
      expect(decoded.args[0]).toMatchObject({
        name: 'Moon Cat',
        symbol: 'MCAT',
        salt: payload.salt.value,
        quoteAmt: 1000000000000000n,
        beneficiary: CREATOR,
      })
      expect(payload.value).toBe('1000000000000000')
      expect(payload.args[0].salt).toBe(payload.salt.value)
    }
  })

  test('behavior: simulate_launch and get_sign_payload answer the same bytes, every time', async () => {
    for (const body of [
      { intent: intent({ pad: 'flap', chainId: 56, name: 'Same Bytes' }) },
      { intent: intent({ pad: 'bankr' }) },
      { intent: intent() },
    ]) {
      const simulated = await call('simulate_launch', body)
      const signed = await call('get_sign_payload', body)
      const again = await call('get_sign_payload', body)
      expect(simulated.status).toBe(200)
      expect(signed.text).toBe(simulated.text)
      expect(again.text).toBe(signed.text)
    }
  })

  test('behavior: the salt depends on the intent (seeded), and restarting does not change it', async () => {
    const body = (name: string) => ({ intent: intent({ pad: 'flap', chainId: 56, name }) })
    const first = (await call('get_sign_payload', body('Alpha'))).json.payload.salt.value
    const second = (await call('get_sign_payload', body('Beta'))).json.payload.salt.value
    expect(first).not.toBe(second)
    const other = await startTestRouter({ MINER_THREADS: '1' })
    try {
      const replica = await callOperation(other, 'get_sign_payload', body('Alpha'))
      expect(replica.json.payload.salt.value).toBe(first)
    } finally {
      await other.close()
    }
  })

  test('errors: an intent with errors is 422 with the draft errors', async () => {
    const body = { intent: intent({ pad: 'doppler-multicurve', salt: '0x00' }) }
    const drafted = await call('draft_intent', body)
    for (const operation of ['simulate_launch', 'get_sign_payload']) {
      const { status, json } = await call(operation, body)
      expect(status).toBe(422)
      expect(json.error).toBe('intent has errors')
      expect(json.errors).toEqual(drafted.json.errors)
    }
  })

  test('behavior: a salt search past its time budget is a clear 503, not a hang', async () => {
    const tight = await startTestRouter({ SALT_TIME_BUDGET_MS: '10', MINER_THREADS: '1' })
    try {
      const started = performance.now()
      const { status, json } = await callOperation(tight, 'get_sign_payload', {
        intent: intent({ pad: 'flap', chainId: 56, name: 'Budget' }),
      })
      // One batch may run before the deadline is checked; a 4-hex rule needs ~65k tries.
      if (status === 200) expect(json.payload.salt.iterations).toBeLessThanOrEqual(65_536 * 2)
      else expect({ status, reason: json.reason }).toEqual({ status: 503, reason: 'time_budget' })
      expect(performance.now() - started).toBeLessThan(5_000)
    } finally {
      await tight.close()
    }
  })

  test('behavior: a salt search past its iteration cap is 422 salt_not_found', async () => {
    const capped = await startTestRouter({ SALT_MAX_ITERATIONS: '16', MINER_THREADS: '1' })
    try {
      const { status, json } = await callOperation(capped, 'get_sign_payload', {
        intent: intent({ pad: 'flap', chainId: 56, name: 'Capped' }),
      })
      expect(status).toBe(422)
      expect(json.errors[0].code).toBe('salt_not_found')
    } finally {
      await capped.close()
    }
  })
})

describe('service routes', () => {
  test('GET /llms.txt explains the flow', async () => {
    const response = await fetch(`${server.url}/llms.txt`)
    const text = await response.text()
    expect(response.headers.get('content-type')).toMatch(/text\/markdown/)
    expect(text).toMatch(
      /list_pads[\s\S]*get_capabilities[\s\S]*draft_intent[\s\S]*get_sign_payload/,
    )
    expect(text).toMatch(/never broadcasts/)
  })

  test('errors: unknown route 404, wrong method 405, non-JSON 415, too large 413', async () => {
    expect((await fetch(`${server.url}/api/v1/launch_now`, { method: 'POST' })).status).toBe(404)
    const get = await fetch(`${server.url}/api/v1/list_pads`)
    expect(get.status).toBe(405)
    expect(get.headers.get('allow')).toBe('POST')
    const text = await fetch(`${server.url}/api/v1/list_pads`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'text/plain' },
    })
    expect(text.status).toBe(415)
    const big = await call('draft_intent', { intent: intent({ description: 'x'.repeat(300_000) }) })
    expect(big.status).toBe(413)
  })
})
