import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { CHECKSUMMED, callOperation, useTestRouter } from '../testing.ts'

// Doppler's rules on-chain that its SDK does not check offline (issue 39), through real HTTP.
const router = useTestRouter()
const OWNER = '0x21E2ce70511e4FE542a97708e89520471DAa7A66'
const LOW = '0x0000000000000000000000000000000000000B0b'
const HIGH = '0xFFfFfFffFFfffFFfFFfFFFFFffFFFffffFfFFFfF'
const multicurve = (beneficiaries?: unknown) => ({
  pad: 'doppler-multicurve',
  name: 'Owner Rules',
  symbol: 'OWN',
  chainId: 8453,
  creator: CHECKSUMMED,
  ...(beneficiaries === undefined ? {} : { beneficiaries }),
})
const call = (operation: string, body: unknown) => callOperation(router.server, operation, body)
const draft = async (intent: unknown) =>
  (await call('draft_intent', { intent })).json as {
    ok: boolean
    errors: { code: string; field: string; message: string }[]
  }

describe('doppler-multicurve beneficiaries: the Airlock owner with at least 5 %', () => {
  test('get_capabilities names the owner per chain, with its source', async () => {
    const { json } = await call('get_capabilities', { pad: 'doppler-multicurve' })
    expect(json.airlockOwners['8453'].address).toBe(OWNER)
    expect(json.airlockOwners['8453'].source).toMatch(/deployments\.config\.toml/)
  })

  test('without beneficiaries nothing is required (the pool is not locked)', async () => {
    expect((await draft(multicurve())).ok).toBe(true)
  })

  test('beneficiaries without the owner: knob_invalid naming InvalidProtocolOwnerBeneficiary', async () => {
    const result = await draft(
      multicurve([
        { beneficiary: LOW, shares: '500000000000000000' },
        { beneficiary: HIGH, shares: '500000000000000000' },
      ]),
    )
    expect(result.ok).toBe(false)
    expect(result.errors).toEqual([
      expect.objectContaining({ code: 'knob_invalid', field: 'beneficiaries' }),
    ])
    expect(result.errors[0]!.message).toContain(OWNER)
    expect(result.errors[0]!.message).toContain('InvalidProtocolOwnerBeneficiary')
  })

  test('the owner one wei under 5 %: knob_invalid on its shares, naming InvalidProtocolOwnerShares', async () => {
    const result = await draft(
      multicurve([
        { beneficiary: OWNER, shares: '49999999999999999' },
        { beneficiary: HIGH, shares: '950000000000000001' },
      ]),
    )
    expect(result.errors).toEqual([
      expect.objectContaining({ code: 'knob_invalid', field: 'beneficiaries.0.shares' }),
    ])
    expect(result.errors[0]!.message).toContain('InvalidProtocolOwnerShares')
  })

  test('one address twice in two spellings: knob_invalid (UnorderedBeneficiaries on-chain)', async () => {
    const result = await draft(
      multicurve([
        { beneficiary: OWNER, shares: '500000000000000000' },
        { beneficiary: OWNER.toLowerCase(), shares: '500000000000000000' },
      ]),
    )
    expect(result.errors).toEqual([
      expect.objectContaining({ code: 'knob_invalid', field: 'beneficiaries.1.beneficiary' }),
    ])
    expect(result.errors[0]!.message).toContain('UnorderedBeneficiaries')
  })

  test('exactly 5 % for the owner, any order given: the payload lists them in ascending address order', async () => {
    const given = [
      { beneficiary: HIGH, shares: '900000000000000000' },
      { beneficiary: OWNER, shares: '50000000000000000' },
      { beneficiary: LOW, shares: '50000000000000000' },
    ]
    const { status, json } = await call('get_sign_payload', { intent: multicurve(given) })
    expect(status).toBe(200)
    expect(json.payload.config.pool.beneficiaries).toEqual([given[2], given[1], given[0]])
    expect(json.validUntil).toBeUndefined()
  })
})

describe('doppler-multicurve curves: the liquidity the pool can hold on a tick', () => {
  const curves = (first: Record<string, unknown>) => ({
    ...multicurve(),
    curves: [
      first,
      { tickLower: -887200, tickUpper: -142200, numPositions: 11, shares: '500000000000000000' },
    ],
  })

  test('a narrow curve near the top tick with half the sale: knob_invalid naming TickLiquidityOverflow', async () => {
    const result = await draft(
      curves({
        tickLower: 800000,
        tickUpper: 887270,
        numPositions: 11,
        shares: '500000000000000000',
      }),
    )
    expect(result.errors).toEqual([
      expect.objectContaining({ code: 'knob_invalid', field: 'curves.0' }),
    ])
    expect(result.errors[0]!.message).toContain('TickLiquidityOverflow')
  })

  test('the same share over a wider, lower range passes; over 2000 positions in all does not', async () => {
    const wide = {
      tickLower: -142200,
      tickUpper: -84000,
      numPositions: 11,
      shares: '500000000000000000',
    }
    expect((await draft(curves(wide))).ok).toBe(true)
    const many = await draft(curves({ ...wide, numPositions: 2000 }))
    expect(many.errors).toEqual([
      expect.objectContaining({ code: 'knob_invalid', field: 'curves' }),
    ])
    expect(many.errors[0]!.message).toContain('2000')
  })
})

describe('doppler-dynamic times: validUntil and the start time that survives signing', () => {
  const dynamic = {
    pad: 'doppler-dynamic',
    name: 'Timed Auction',
    symbol: 'TIME',
    chainId: 8453,
    creator: CHECKSUMMED,
  }
  let client: Client
  beforeAll(async () => {
    client = new Client({ name: 'validity-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${router.server.url}/mcp`)))
  })
  afterAll(async () => client.close())

  test('get_sign_payload answers validUntil = the auction start, 600 s after the answer', async () => {
    const before = Math.floor(Date.now() / 1000)
    const { status, json } = await call('get_sign_payload', { intent: dynamic })
    const after = Math.floor(Date.now() / 1000)
    expect(status).toBe(200)
    const { blockTimestamp, startTimeOffset } = json.payload.config
    expect(blockTimestamp).toBeGreaterThanOrEqual(before)
    expect(blockTimestamp).toBeLessThanOrEqual(after)
    expect(startTimeOffset).toBe(600)
    expect(json.validUntil).toBe(blockTimestamp + startTimeOffset)
  })

  test('the MCP tool and simulate_launch carry validUntil too; get_capabilities states the rule', async () => {
    const result = await client.callTool({
      name: 'get_sign_payload',
      arguments: { intent: dynamic },
    })
    const answer = JSON.parse((result.content as { text: string }[])[0]!.text)
    expect(answer.validUntil).toBe(answer.payload.config.blockTimestamp + 600)
    const simulated = await call('simulate_launch', { intent: dynamic })
    expect(simulated.json.validUntil).toBe(simulated.json.payload.config.blockTimestamp + 600)
    const { json } = await call('get_capabilities', { pad: 'doppler-dynamic' })
    expect(json.validFor.seconds).toBe(600)
    expect(json.validFor.rule).toContain('InvalidStartTime')
  })

  test('the OpenAPI document describes validUntil on the sign payload answer', async () => {
    const response = await fetch(`${router.server.url}/openapi.json`)
    const document = (await response.json()) as {
      components: { schemas: Record<string, { properties: Record<string, unknown> }> }
    }
    expect(document.components.schemas.SignPayloadResponse!.properties.validUntil).toMatchObject({
      type: 'integer',
    })
  })
})
