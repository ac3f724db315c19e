import {
  type CreateMulticurveParams,
  DopplerFactory,
  getAddresses,
  getMaxLiquiditySafeMulticurveTickUpper,
  WAD,
} from '@whetstone-research/doppler-sdk/evm'
import fc from 'fast-check'
import { decodeAbiParameters, getAddress } from 'viem'
import { beforeAll, describe, expect, test } from 'vitest'
import {
  type Capabilities,
  defaultIntent,
  type Intent,
  intentArbitrary,
  intentCases,
  nearMissCases,
  propertyRuns,
  refusesKnob,
  type SignPayload,
  useConformanceRouter,
  usedKnobs,
  withoutNetwork,
} from './conformance-router.ts'
import { installedVersion } from './installed-version.ts'
import { injectAt, knobPath } from './knob-injection.ts'
import { createOfflineClient } from './offline-client.ts'
import { reviveConfig } from './revive-config.ts'

const PAD = 'doppler-multicurve'
const BASE = 8453
const router = useConformanceRouter()
const addresses = getAddresses(BASE)
const WETH = '0x4200000000000000000000000000000000000006'
// The SDK's preset curves (MulticurveBuilder.withMarketCapPresets()), the pad's default.
const PRESET_CURVES = [
  { tickLower: -887200, tickUpper: -142200, numPositions: 11, shares: 500000000000000000n },
  { tickLower: -222200, tickUpper: -116300, numPositions: 11, shares: 250000000000000000n },
  { tickLower: -176200, tickUpper: -84100, numPositions: 11, shares: 240000000000000000n },
  { tickLower: -84100, tickUpper: -83990, numPositions: 11, shares: 10000000000000000n },
]

const TOKEN_FACTORY_DATA = [
  { type: 'string' },
  { type: 'string' },
  { type: 'uint256' },
  { type: 'uint256' },
  { type: 'address[]' },
  { type: 'uint256[]' },
  { type: 'string' },
] as const
const POOL_INITIALIZER_DATA = [
  {
    type: 'tuple',
    components: [
      { type: 'uint24', name: 'fee' },
      { type: 'int24', name: 'tickSpacing' },
      {
        type: 'tuple[]',
        name: 'curves',
        components: [
          { type: 'int24', name: 'tickLower' },
          { type: 'int24', name: 'tickUpper' },
          { type: 'uint16', name: 'numPositions' },
          { type: 'uint256', name: 'shares' },
        ],
      },
      {
        type: 'tuple[]',
        name: 'beneficiaries',
        components: [
          { type: 'address', name: 'beneficiary' },
          { type: 'uint96', name: 'shares' },
        ],
      },
    ],
  },
] as const

/**
 * encodeCreateMulticurveParams is the offline step of createMulticurve: it
 * validates, normalises the curves and encodes the Airlock create() arguments
 * from the SDK's own address book. It reads nothing: the public client's every
 * RPC throws and fetch throws.
 */
const build = async (payload: SignPayload) => {
  expect(payload).toMatchObject({ kind: 'sdk-deploy', pad: PAD, chainId: BASE })
  const factory = new DopplerFactory(createOfflineClient(), undefined, BASE)
  const config = reviveConfig(payload as never) as CreateMulticurveParams<typeof BASE>
  const create = await withoutNetwork(async () => factory.encodeCreateMulticurveParams(config))
  const [name, symbol, , vestingDuration, recipients, amounts, tokenURI] = decodeAbiParameters(
    TOKEN_FACTORY_DATA,
    create.tokenFactoryData,
  )
  const [pool] = decodeAbiParameters(POOL_INITIALIZER_DATA, create.poolInitializerData)
  return {
    create,
    token: { name, symbol, vestingDuration, recipients, amounts, tokenURI },
    pool,
  }
}

type Curve = { tickLower: number; tickUpper: number; numPositions: number; shares: string }
type Beneficiary = { beneficiary: string; shares: string }

const expectCarries = (intent: Intent, built: Awaited<ReturnType<typeof build>>) => {
  const { create, token, pool } = built
  const used = new Set(usedKnobs(capabilities, intent.chainId).map((knob) => knob.name))
  const knob = <value>(name: string) => (used.has(name) ? (intent[name] as value) : undefined)
  expect(intent.chainId).toBe(BASE)
  expect(create).toMatchObject({
    initialSupply: 10n ** 27n,
    numTokensToSell: 9n * 10n ** 26n,
    numeraire: getAddress(knob<string>('numeraire') ?? WETH),
    tokenFactory: addresses.tokenFactory,
    poolInitializer: addresses.v4MulticurveInitializer,
    // With beneficiaries the SDK locks the fees and never migrates (its no-op migrator).
    liquidityMigrator: knob<unknown[]>('beneficiaries')
      ? addresses.noOpMigrator
      : addresses.v2Migrator,
    governanceFactory: addresses.noOpGovernanceFactory,
    governanceFactoryData: '0x',
  })
  expect(token).toEqual({
    name: intent.name.trim(),
    symbol: intent.symbol,
    vestingDuration: BigInt(knob<number>('vestingDuration') ?? 31_536_000),
    recipients: [getAddress(intent.creator)],
    amounts: [10n ** 26n],
    tokenURI: knob<string>('tokenURI') ?? '',
  })
  expect(pool.fee).toBe(500)
  expect(pool.tickSpacing).toBe(10)
  const curves =
    knob<Curve[]>('curves')?.map((curve) => ({ ...curve, shares: BigInt(curve.shares) })) ??
    PRESET_CURVES
  // The intent's curves come first, in order; the SDK adds one curve for shares short of 1e18.
  expect(pool.curves.slice(0, curves.length)).toEqual(curves)
  const total = curves.reduce((sum, curve) => sum + curve.shares, 0n)
  expect(pool.curves).toHaveLength(total === WAD ? curves.length : curves.length + 1)
  expect(pool.curves.reduce((sum, curve) => sum + curve.shares, 0n)).toBe(WAD)
  const beneficiaries = knob<Beneficiary[]>('beneficiaries') ?? []
  // The SDK sorts beneficiaries by address, as the initializer requires.
  const expected = beneficiaries
    .map(({ beneficiary, shares }) => ({
      beneficiary: getAddress(beneficiary),
      shares: BigInt(shares),
    }))
    .sort((a, b) => (a.beneficiary.toLowerCase() < b.beneficiary.toLowerCase() ? -1 : 1))
  expect(pool.beneficiaries).toEqual(expected)
}

/**
 * SDK 1.0.30's own rule for a curve's liquidity (getMaxLiquiditySafeMulticurveTickUpper: every
 * position's liquidity, per tick, within maxLiquidityPerTick, for both sides of the pool), which
 * it applies only to the curve it adds itself. The router applies it to every curve.
 */
const sdkFindsSafe = (curve: Curve) => {
  try {
    return (
      getMaxLiquiditySafeMulticurveTickUpper({
        tickLower: curve.tickLower,
        tickUpper: curve.tickUpper,
        tickSpacing: 10,
        numPositions: curve.numPositions,
        curveSupply: (9n * 10n ** 26n * BigInt(curve.shares)) / WAD,
      }) === curve.tickUpper
    )
  } catch {
    return false
  }
}

/** True when draft_intent refuses the intent's curves, which must then break the SDK's liquidity rule. */
const refusedForLiquidity = async (label: string, intent: Intent) => {
  const draft = await router.draft(intent)
  if (draft.ok) return false
  const curves = (intent.curves as Curve[] | undefined) ?? []
  expect(
    draft.errors.every((error) => error.field === 'curves' || error.field.startsWith('curves.')),
    `${label}: ${JSON.stringify(draft.errors)}`,
  ).toBe(true)
  const total = curves.reduce((sum, curve) => sum + curve.numPositions, 0)
  // One curve over the SDK's bound, or more positions than one transaction holds; several curves
  // may also overflow only together (the router adds them up on shared ticks, as the pool does).
  if (total <= 2_000 && curves.length === 1)
    expect(sdkFindsSafe(curves[0]!), `${label}: the SDK finds it safe`).toBe(false)
  return true
}

let capabilities: Capabilities
beforeAll(async () => {
  capabilities = await router.capabilities(PAD)
})

describe('doppler-multicurve payloads through @whetstone-research/doppler-sdk 1.0.30 encodeCreateMulticurveParams, offline', () => {
  test('the pad names @whetstone-research/doppler-sdk 1.0.30, the version installed here', async () => {
    const payload = await router.signPayload(defaultIntent(capabilities, BASE))
    expect(payload.sdk).toMatchObject({
      package: '@whetstone-research/doppler-sdk',
      version: installedVersion(
        '@whetstone-research/doppler-sdk',
        '@whetstone-research/doppler-sdk/evm',
      ),
    })
  })

  test('every generated intent (defaults, each knob, each boundary) builds and carries the intent, or the SDK finds its liquidity unsafe', async () => {
    let built = 0
    for (const { label, intent } of intentCases(capabilities)) {
      if (!(await refusedForLiquidity(label, intent))) {
        const payload = await router.signPayload(intent)
        const result = await build(payload).catch((error: Error) => {
          throw new Error(`${label}: the SDK refused the payload: ${error.message}`)
        })
        expectCarries(intent, result)
        built += 1
      }
    }
    expect(built).toBeGreaterThan(10)
  })

  test('random valid intents build and carry every used knob, or the SDK finds their liquidity unsafe', async () => {
    await fc.assert(
      fc.asyncProperty(intentArbitrary(capabilities), async (intent) => {
        if (await refusedForLiquidity(JSON.stringify(intent), intent)) return
        expectCarries(intent, await build(await router.signPayload(intent)))
      }),
      { numRuns: propertyRuns(40) },
    )
  })

  test("curves: the router refuses exactly what the SDK's own liquidity rule finds unsafe (one curve, random)", async () => {
    const curve = fc
      .record({
        from: fc.integer({ min: -88_727, max: 88_726 }),
        span: fc.integer({ min: 1, max: 20_000 }),
        numPositions: fc.integer({ min: 1, max: 200 }),
      })
      .map(({ from, span, numPositions }) => ({
        tickLower: from * 10,
        tickUpper: Math.min(from * 10 + span * 10, 887_270),
        numPositions,
        shares: '1000000000000000000',
      }))
      .filter((candidate) => candidate.tickLower < candidate.tickUpper)
    let refused = 0
    await fc.assert(
      fc.asyncProperty(curve, async (one) => {
        const draft = await router.draft({ ...defaultIntent(capabilities, BASE), curves: [one] })
        const unsafe = !sdkFindsSafe(one)
        expect(draft.ok, JSON.stringify(one)).toBe(!unsafe)
        if (unsafe) refused += 1
      }),
      { numRuns: propertyRuns(150) },
    )
    expect(refused).toBeGreaterThan(0)
    // 150 drafts, each checked against the SDK: 10-20 s alone, past 30 s beside a loaded suite.
  }, 90_000)

  test('whatever the SDK refuses just outside a published rule, draft_intent refuses', async () => {
    const base = defaultIntent(capabilities, BASE)
    const payload = await router.signPayload(base)
    let refusedBySdk = 0
    for (const { knob, value } of nearMissCases(capabilities, BASE)) {
      const path = knobPath(PAD, knob)
      if (!path) continue
      const sdkRefuses = await build(injectAt(payload, path, value)).then(
        () => false,
        () => true,
      )
      if (!sdkRefuses) continue
      refusedBySdk += 1
      expect(
        refusesKnob(await router.draft({ ...base, [knob]: value }), knob),
        `${knob} = ${JSON.stringify(value)}`,
      ).toBe(true)
    }
    expect(refusedBySdk).toBeGreaterThan(0)
  })

  test.each([
    ['curves', [{ tickLower: 0, tickUpper: 0, numPositions: 1, shares: '1' }]],
    ['curves', [{ tickLower: -100, tickUpper: 100, numPositions: 1, shares: '0' }]],
    [
      'curves',
      [{ tickLower: -100, tickUpper: 100, numPositions: 65536, shares: '1000000000000000000' }],
    ],
    [
      'curves',
      [
        { tickLower: -100, tickUpper: 100, numPositions: 1, shares: '600000000000000000' },
        { tickLower: 100, tickUpper: 200, numPositions: 1, shares: '400000000000000001' },
      ],
    ],
    ['beneficiaries', [{ beneficiary: WETH, shares: '999999999999999999' }]],
  ])('the SDK and draft_intent both refuse %s = %j', async (knob, value) => {
    const base = defaultIntent(capabilities, BASE)
    const payload = await router.signPayload(base)
    const injected = injectAt(payload, knobPath(PAD, knob)!, value)
    await expect(build(injected)).rejects.toThrow()
    expect(refusesKnob(await router.draft({ ...base, [knob]: value }), knob)).toBe(true)
  })

  test.each([1, 143, 4663])(
    'chain %i, which SDK 1.0.30 cannot build a multicurve on, is not listed',
    async (chainId) => {
      const factory = new DopplerFactory(createOfflineClient(), undefined, chainId as never)
      const payload = await router.signPayload(defaultIntent(capabilities, BASE))
      expect(() =>
        factory.encodeCreateMulticurveParams(reviveConfig(payload as never) as never),
      ).toThrow(/not configured/)
      const draft = await router.draft({ ...defaultIntent(capabilities, BASE), chainId })
      expect(draft.errors).toContainEqual(expect.objectContaining({ code: 'chain_not_listed' }))
    },
  )
})
