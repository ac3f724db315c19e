import { describe, expect, test } from 'vitest'
import { CREATOR, callOperation, useTestRouter } from '../testing.ts'

const router = useTestRouter()
const HIGH_NUMERAIRE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'.replace('0x8', '0xF')
const draft = async (knobs: Record<string, unknown>) =>
  (
    await callOperation(router.server, 'draft_intent', {
      intent: {
        pad: 'doppler-dynamic',
        name: 'Moon Cat',
        symbol: 'MCAT',
        chainId: 8453,
        creator: CREATOR,
        ...knobs,
      },
    })
  ).json as { ok: boolean; errors: { code: string; field: string; message: string }[] }

describe('doppler-dynamic: arithmetic across knobs is knob_invalid at draft_intent', () => {
  test('the defaults pass every rule', async () => {
    expect((await draft({})).errors).toEqual([])
  })

  test.each([
    [{ duration: 604801 }, 'duration', /epochLength \(43200\) must divide duration/],
    [{ epochLength: 43201 }, 'epochLength', /must divide duration/],
    [{ startTick: 172170 }, 'startTick', /startTick \(172170\) must be less than endTick/],
    [{ endTick: 126120 }, 'endTick', /sorts below the token/],
    [{ numeraire: HIGH_NUMERAIRE.toLowerCase() }, 'startTick', /must be greater than endTick/],
    [{ duration: 604800, epochLength: 60 }, 'epochLength', /InvalidGamma/],
    [{ gamma: 30, epochLength: 60 }, 'gamma', /InvalidGamma/],
    [{ minProceeds: '100000000000000000001' }, 'minProceeds', /must not exceed maxProceeds/],
  ])('%j is knob_invalid on %s', async (knobs, field, message) => {
    const json = await draft(knobs)
    expect(json.ok).toBe(false)
    expect(json.errors).toEqual([
      { code: 'knob_invalid', field, message: expect.stringMatching(message) },
    ])
  })

  test.each([
    [{ duration: 604800 + 43200 }],
    [{ numeraire: HIGH_NUMERAIRE.toLowerCase(), startTick: -126120, endTick: -172170 }],
    [{ minProceeds: '100000000000000000000' }],
    [{ gamma: 3300 }],
  ])('%j, just inside, passes', async (knobs) => {
    expect((await draft(knobs)).errors).toEqual([])
  })

  test('a knob that fails its own rule is reported alone, without arithmetic on it', async () => {
    const json = await draft({ epochLength: 0 })
    expect(json.errors.map((error) => error.field)).toEqual(['epochLength'])
  })
})

describe('doppler-dynamic: the first slugs must fit a tick (doppler-dynamic-liquidity)', () => {
  const signPayload = (knobs: Record<string, unknown>) =>
    callOperation(router.server, 'get_sign_payload', {
      intent: {
        pad: 'doppler-dynamic',
        name: 'Moon Cat',
        symbol: 'MCAT',
        chainId: 8453,
        creator: CREATOR,
        ...knobs,
      },
    })
  const oneEpoch = { epochLength: 600, duration: 600 }

  // The ticks are where v4's PoolManager reverts on anvil (doppler-dynamic.chain.test.ts).
  test.each([
    [
      'one epoch: all 900M tokens in 30 ticks at about 9e7 ETH a token',
      { startTick: -183360, endTick: -183330, ...oneEpoch },
      /TickLiquidityOverflow\(-183390\): the upper slug put liquidity 5753225157306514742135444235085714 on tick -183390, over the 5752677287681540158631569641462135/,
    ],
    [
      'the token as currency0, mirrored',
      { numeraire: HIGH_NUMERAIRE.toLowerCase(), startTick: 183360, endTick: 183330, ...oneEpoch },
      /TickLiquidityOverflow\(183360\)/,
    ],
    [
      'a tick two price-discovery slugs share, each fitting alone',
      { startTick: -227190, endTick: -226650, epochLength: 3600, duration: 64800 },
      /TickLiquidityOverflow\(-227340\): the price-discovery slug 4 and the price-discovery slug 5/,
    ],
    [
      'a gamma that takes the last slugs far out',
      { startTick: 0, endTick: 600, gamma: 417750, epochLength: 600, duration: 3600 },
      /TickLiquidityOverflow\(-348120\)[\s\S]*or a smaller gamma/,
    ],
    [
      'a slug over uint128',
      { startTick: -600000, endTick: -568050, epochLength: 615, duration: 615 },
      /LiquidityAmounts reverts Error\("liquidity overflow"\): the upper slug \(ticks -631950 to -600000\)/,
    ],
  ])('%s: knob_invalid on startTick, and get_sign_payload refuses', async (_, knobs, message) => {
    const json = await draft(knobs)
    expect(json.errors).toEqual([
      {
        code: 'knob_invalid',
        field: 'startTick',
        message: expect.stringMatching(/rule doppler-dynamic-liquidity/),
      },
    ])
    expect(json.errors[0]!.message).toMatch(message)
    const signed = await signPayload(knobs)
    expect(signed.status).toBe(422)
    expect(JSON.stringify(signed.json)).toContain('doppler-dynamic-liquidity')
  })

  test.each([
    [{ startTick: -183330, endTick: -183300, ...oneEpoch }],
    [{ numeraire: HIGH_NUMERAIRE.toLowerCase(), startTick: 183330, endTick: 183300, ...oneEpoch }],
    [{ startTick: -227160, endTick: -226620, epochLength: 3600, duration: 64800 }],
    [{ startTick: 0, endTick: 600, gamma: 417720, epochLength: 600, duration: 3600 }],
  ])('%j, one step inside, passes and is signed', async (knobs) => {
    expect((await draft(knobs)).errors).toEqual([])
    expect((await signPayload(knobs)).status).toBe(200)
  })

  test('an auction another rule refuses gets that rule alone, not this one', async () => {
    const json = await draft({
      startTick: -183360,
      endTick: -183330,
      ...oneEpoch,
      minProceeds: '100000000000000000001',
    })
    expect(json.errors.map((error) => error.message)).toEqual([
      expect.stringMatching(/must not exceed maxProceeds/),
    ])
  })
})
