import {
  type CreateDynamicAuctionParams,
  computeOptimalGamma,
  DOPPLER_FLAGS,
  DopplerFactory,
  FLAG_MASK,
  getAddresses,
  isToken0Expected,
} from '@whetstone-research/doppler-sdk/evm'
import fc from 'fast-check'
import { createPublicClient, decodeAbiParameters, getAddress, http, zeroAddress } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
  type Capabilities,
  defaultIntent,
  type Intent,
  intentCases,
  nearMissCases,
  propertyRuns,
  refusesKnob,
  type SignPayload,
  useConformanceRouter,
} from './conformance-router.ts'
import { fakeBlock, startFakeRpcServer } from './fake-rpc-server.ts'
import { installedVersion } from './installed-version.ts'
import { injectAt, knobPath } from './knob-injection.ts'
import { reviveConfig } from './revive-config.ts'

const PAD = 'doppler-dynamic'
const router = useConformanceRouter()
const BLOCK_TIMESTAMP = 1_790_000_000
// The pad's validFor: the auction starts this long after the answer (InvalidStartTime otherwise).
const VALID_FOR = 600
const WAD = 10n ** 18n
// PAD_CONFORMANCE_RUNS builds every generated intent (each mines a hook salt, 0.1-0.9 s).
const DEEP = Number(process.env.PAD_CONFORMANCE_RUNS) > 0
const DEFAULTS = {
  numeraire: zeroAddress,
  tokenURI: '',
  duration: 604800,
  epochLength: 43200,
  startTick: 126120,
  endTick: 172170,
  minProceeds: '0',
  maxProceeds: '100000000000000000000',
}
// An address above 2^159 - 1: the token sorts as currency0 against it.
const HIGH_NUMERAIRE = '0xf33589fcd6edb6e08f4c7c32d4f71b54bda02913'

const TOKEN_FACTORY_DATA = [
  { type: 'string' },
  { type: 'string' },
  { type: 'uint256' },
  { type: 'uint256' },
  { type: 'address[]' },
  { type: 'uint256[]' },
  { type: 'string' },
] as const
// The Doppler hook's initializer data, as the SDK's mineHookAddress encodes it.
const POOL_INITIALIZER_DATA = [
  { type: 'uint256', name: 'minimumProceeds' },
  { type: 'uint256', name: 'maximumProceeds' },
  { type: 'uint256', name: 'startingTime' },
  { type: 'uint256', name: 'endingTime' },
  { type: 'int24', name: 'startingTick' },
  { type: 'int24', name: 'endingTick' },
  { type: 'uint256', name: 'epochLength' },
  { type: 'int24', name: 'gamma' },
  { type: 'bool', name: 'isToken0' },
  { type: 'uint256', name: 'numPDSlugs' },
  { type: 'uint24', name: 'fee' },
  { type: 'int24', name: 'tickSpacing' },
] as const

let rpc: Awaited<ReturnType<typeof startFakeRpcServer>>
let capabilities: Capabilities
beforeAll(async () => {
  // The SDK's one possible read: the latest block, for the start time. The payload pins
  // blockTimestamp, so the node must see no call at all; it answers one only to tell.
  rpc = await startFakeRpcServer(({ method, params }) =>
    method === 'eth_getBlockByNumber' && params[0] === 'latest'
      ? { result: fakeBlock(30_000_000, BLOCK_TIMESTAMP) }
      : undefined,
  )
  capabilities = await router.capabilities(PAD)
})
afterAll(async () => rpc?.close())

const factoryFor = (chainId: number) =>
  new DopplerFactory(createPublicClient({ transport: http(rpc.url) }), undefined, chainId as never)
const configOf = (payload: SignPayload) =>
  reviveConfig(payload as never) as CreateDynamicAuctionParams<8453>

/** The SDK's own validation alone (validateDynamicAuctionParams), no mining and no read. */
const sdkValidates = (payload: SignPayload) => {
  const factory = factoryFor(payload.chainId as number) as unknown as {
    validateDynamicAuctionParams: (params: unknown) => void
  }
  try {
    factory.validateDynamicAuctionParams(configOf(payload))
    return true
  } catch {
    return false
  }
}

/** encodeCreateDynamicAuctionParams, the offline step of createDynamicAuction, answered by the fake node. */
const build = async (payload: SignPayload) => {
  expect(payload).toMatchObject({ kind: 'sdk-deploy', pad: PAD })
  const before = rpc.calls.length
  const built = await factoryFor(payload.chainId as number).encodeCreateDynamicAuctionParams(
    configOf(payload),
  )
  expect(rpc.calls.slice(before).map((call) => call.method)).toEqual([])
  const { createParams } = built
  const [name, symbol, , vestingDuration, recipients, amounts, tokenURI] = decodeAbiParameters(
    TOKEN_FACTORY_DATA,
    createParams.tokenFactoryData,
  )
  const hook = decodeAbiParameters(POOL_INITIALIZER_DATA, createParams.poolInitializerData)
  const config = payload.config as { blockTimestamp: number; startTimeOffset: number }
  expect(config.startTimeOffset).toBe(VALID_FOR)
  return {
    ...built,
    blockTimestamp: config.blockTimestamp,
    token: { name, symbol, vestingDuration, recipients, amounts, tokenURI },
    hook: Object.fromEntries(
      POOL_INITIALIZER_DATA.map((field, index) => [field.name, hook[index]]),
    ),
  }
}

const effective = (intent: Intent) =>
  ({ ...DEFAULTS, ...intent }) as typeof DEFAULTS & Intent & { gamma?: number }

const expectCarries = (intent: Intent, built: Awaited<ReturnType<typeof build>>) => {
  const knobs = effective(intent)
  const chainId = intent.chainId as number
  const addresses = getAddresses(chainId)
  expect(built.createParams).toMatchObject({
    initialSupply: 10n ** 27n,
    numTokensToSell: 9n * 10n ** 26n,
    tokenFactory: addresses.tokenFactory,
    poolInitializer: addresses.v4Initializer,
    liquidityMigrator: addresses.v2Migrator,
    governanceFactory: addresses.noOpGovernanceFactory,
    governanceFactoryData: '0x',
    integrator: zeroAddress,
  })
  expect(getAddress(built.createParams.numeraire)).toBe(getAddress(knobs.numeraire))
  expect(built.token).toEqual({
    name: intent.name.trim(),
    symbol: intent.symbol,
    vestingDuration: 31_536_000n,
    recipients: [getAddress(intent.creator)],
    amounts: [10n ** 26n],
    tokenURI: knobs.tokenURI,
  })
  // The answer's clock plus validFor: the start the hook requires to be no earlier than the block.
  const start = BigInt(built.blockTimestamp + VALID_FOR)
  expect(built.blockTimestamp).toBeGreaterThan(Date.now() / 1000 - 300)
  expect(built.blockTimestamp).toBeLessThanOrEqual(Date.now() / 1000)
  expect(built.hook).toEqual({
    minimumProceeds: BigInt(knobs.minProceeds),
    maximumProceeds: BigInt(knobs.maxProceeds),
    startingTime: start,
    endingTime: start + BigInt(knobs.duration),
    startingTick: knobs.startTick,
    endingTick: knobs.endTick,
    epochLength: BigInt(knobs.epochLength),
    gamma:
      knobs.gamma ??
      computeOptimalGamma(knobs.startTick, knobs.endTick, knobs.duration, knobs.epochLength, 30),
    isToken0: isToken0Expected(knobs.numeraire as `0x${string}`),
    numPDSlugs: 5n,
    fee: 10000,
    tickSpacing: 30,
  })
  // The mined salt puts the Doppler permission flags in the hook address's low bits.
  expect(BigInt(built.hookAddress) & FLAG_MASK).toBe(DOPPLER_FLAGS)
}

/** The Doppler hook constructor's rules that the SDK does not check before building. */
const hookAccepts = (knobs: ReturnType<typeof effective>) => {
  const gamma =
    knobs.gamma ??
    computeOptimalGamma(knobs.startTick, knobs.endTick, knobs.duration, knobs.epochLength, 30)
  const perEpoch = (BigInt(knobs.epochLength) * WAD) / BigInt(knobs.duration)
  // The first slugs reach startTick ± gamma (plus a spacing per slug, kept free by the router):
  // past ±887272 the pool's initialize reverts (doppler-dynamic.chain.test.ts shows it).
  const reach = gamma + 30 * 7
  const far = isToken0Expected(knobs.numeraire as `0x${string}`)
    ? knobs.startTick + reach
    : knobs.startTick - reach
  const ordered = isToken0Expected(knobs.numeraire as `0x${string}`)
    ? knobs.startTick > knobs.endTick
    : knobs.startTick < knobs.endTick
  return (
    (perEpoch * BigInt(gamma)) / WAD > 0n &&
    BigInt(knobs.minProceeds) <= BigInt(knobs.maxProceeds) &&
    Math.abs(far) <= 887_272 &&
    knobs.startTick % 30 === 0 &&
    // Only an auction the constructor takes gets to the pool's initialize.
    (!ordered || knobs.duration % knobs.epochLength !== 0 || firstSlugsFit(knobs, gamma) !== false)
  )
}

// v4-core's maxLiquidityPerTick for tick spacing 30: 59,152 ticks share uint128.
const MAX_PER_TICK = (2 ** 128 - 1) / 59_152

/**
 * Whether the hook's first slugs fit each tick, read independently of the
 * router (which computes it in integers): Doppler.sol@d223428's
 * unlockCallback at its first epoch, the upper slug from the start tick
 * holding one epoch of the sale, then up to 5 price-discovery slugs of one
 * epoch each towards startTick ± gamma, each tick's liquidity summed, in
 * float64 against v4's per-tick cap. Undefined within 1e-6 of the cap, where
 * float64 cannot tell.
 */
const firstSlugsFit = (knobs: ReturnType<typeof effective>, gamma: number) => {
  const isToken0 = isToken0Expected(knobs.numeraire as `0x${string}`)
  const side = isToken0 ? 1 : -1
  const align = (tick: number) => (isToken0 ? Math.floor(tick / 30) : Math.ceil(tick / 30)) * 30
  const sqrt = (tick: number) => 1.0001 ** (tick / 2)
  // LiquidityAmounts without its Q96 scaling, which cancels out.
  const liquidity = (from: number, to: number, amount: number) => {
    const [low, high] = [sqrt(Math.min(from, to)), sqrt(Math.max(from, to))]
    return isToken0 ? (amount * low * high) / (high - low) : amount / (high - low)
  }
  const epochs = knobs.duration / knobs.epochLength
  const sale = 9e26
  const share =
    (((BigInt(knobs.epochLength) * WAD) / BigInt(knobs.duration)) * 9n * 10n ** 26n) / WAD
  const perEpoch = Number(share)
  // The constructor's upperSlugRange, in the hook's integers (floors decide a tick).
  const upperRange = Number(
    (((BigInt(knobs.epochLength) * WAD) / BigInt(knobs.duration)) * BigInt(gamma)) / WAD,
  )
  const slugs: [number, number, number][] = []
  const upperEnd = align(knobs.startTick + side * Math.max(upperRange, 30))
  slugs.push([knobs.startTick, upperEnd, liquidity(knobs.startTick, upperEnd, perEpoch)])
  if (epochs > 1) {
    const count = Math.min(5, epochs - 1)
    let step = Math.trunc((knobs.startTick + side * gamma - upperEnd) / count)
    step = isToken0 ? Math.max(step, 30) : Math.min(step, -30)
    const each = Math.min(perEpoch, (sale - perEpoch) / count)
    for (let i = 0, tick = upperEnd; i < count; i++) {
      const next = align(tick + step)
      slugs.push([tick, next, liquidity(tick, next, each)])
      tick = next
    }
  }
  const byTick = new Map<number, number>()
  for (const [from, to, amount] of slugs)
    for (const tick of [from, to]) byTick.set(tick, (byTick.get(tick) ?? 0) + amount)
  const worst = Math.max(...byTick.values()) / MAX_PER_TICK
  return Math.abs(worst - 1) < 1e-6 ? undefined : worst < 1
}

/** Random auctions inside every rule: epochs that divide, ticks ordered for the numeraire, proceeds ordered. */
const validAuction = fc
  .record({
    chainId: fc.constantFrom(8453, 130, 1),
    numeraire: fc.constantFrom(
      zeroAddress,
      '0x4200000000000000000000000000000000000006',
      HIGH_NUMERAIRE,
    ),
    epochLength: fc.integer({ min: 60, max: 86_400 }),
    epochs: fc.integer({ min: 1, max: 200 }),
    // Start ticks on the tick spacing 30, as the pool requires.
    from: fc.integer({ min: -26_666, max: 26_666 }).map((step) => step * 30),
    span: fc.integer({ min: 30, max: 80_000 }),
    proceeds: fc.tuple(
      fc.bigInt({ min: 0n, max: 10n ** 30n }),
      fc.bigInt({ min: 0n, max: 10n ** 30n }),
    ),
    tokenURI: fc.constantFrom(undefined, 'ipfs://bafy', 'https://example.com/t.json'),
  })
  .map(({ chainId, numeraire, epochLength, epochs, from, span, proceeds, tokenURI }) => {
    const [low, high] = proceeds[0] <= proceeds[1] ? proceeds : [proceeds[1], proceeds[0]]
    const currency0 = isToken0Expected(numeraire as `0x${string}`)
    // At least one tick per epoch, as the hook requires: gamma above the epoch count.
    const width = Math.ceil(Math.max(span, epochs * (epochs + 30)) / 30) * 30
    return {
      ...defaultIntent(capabilities, chainId),
      numeraire,
      epochLength,
      duration: epochLength * epochs,
      startTick: currency0 ? from + width : from,
      endTick: currency0 ? from : from + width,
      minProceeds: String(low),
      maxProceeds: String(high),
      ...(tokenURI ? { tokenURI } : {}),
    } as Intent
  })
  // Narrow auctions at absurd prices put more liquidity on a tick than the pool allows.
  .filter((intent) => hookAccepts(effective(intent)))

describe('doppler-dynamic payloads through @whetstone-research/doppler-sdk 1.0.30 encodeCreateDynamicAuctionParams', () => {
  test('the pad names @whetstone-research/doppler-sdk 1.0.30, the version installed here', async () => {
    const payload = await router.signPayload(defaultIntent(capabilities, 8453))
    expect(payload.sdk).toMatchObject({
      package: '@whetstone-research/doppler-sdk',
      version: installedVersion(
        '@whetstone-research/doppler-sdk',
        '@whetstone-research/doppler-sdk/evm',
      ),
    })
  })

  test('defaults on every listed chain build, read no block, and carry the intent', async () => {
    expect(capabilities.chains).toEqual([8453, 130, 1])
    for (const chainId of capabilities.chains) {
      const intent = defaultIntent(capabilities, chainId)
      expectCarries(intent, await build(await router.signPayload(intent)))
    }
  })

  test('every knob set at once builds and is carried', async () => {
    const intent = {
      ...defaultIntent(capabilities, 8453),
      tokenURI: 'ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi',
      numeraire: HIGH_NUMERAIRE,
      startTick: -126_000,
      endTick: -172_200,
      duration: 86_400,
      epochLength: 3_600,
      gamma: 1_950,
      minProceeds: '1000000000000000000',
      maxProceeds: '5000000000000000000',
    }
    expectCarries(intent, await build(await router.signPayload(intent)))
  })

  test('every generated intent (each knob, each boundary) the router accepts passes the SDK; what it refuses breaks a rule across knobs', async () => {
    let accepted = 0
    for (const { label, intent } of intentCases(capabilities)) {
      const draft = await router.draft(intent)
      if (!draft.ok) {
        // Single-knob values are each valid here: only the arithmetic across knobs may refuse.
        expect(
          draft.errors.every((error) => error.code === 'knob_invalid'),
          label,
        ).toBe(true)
        expect(
          hookAccepts(effective(intent)) && sdkValidates(await payloadFor(intent)),
          label,
        ).toBe(false)
        continue
      }
      accepted += 1
      const payload = await router.signPayload(intent)
      expect(sdkValidates(payload), label).toBe(true)
      if (DEEP) expectCarries(intent, await build(payload))
    }
    expect(accepted).toBeGreaterThan(10)
  })

  test('random valid auctions build and carry every knob', async () => {
    await fc.assert(
      fc.asyncProperty(validAuction, async (intent) => {
        expectCarries(intent, await build(await router.signPayload(intent)))
      }),
      { numRuns: propertyRuns(2) },
    )
  })

  test('random knob combinations: the router accepts exactly what the SDK and the hook accept', async () => {
    const knobs = fc.record(
      {
        numeraire: fc.constantFrom(zeroAddress, HIGH_NUMERAIRE),
        startTick: fc.integer({ min: -300_000, max: 300_000 }).map((tick) => tick - (tick % 30)),
        endTick: fc.integer({ min: -300_000, max: 300_000 }).map((tick) => tick - (tick % 30)),
        duration: fc.constantFrom(3_600, 86_400, 604_800, 604_801, 1_000_000),
        epochLength: fc.constantFrom(1, 60, 400, 3_600, 43_200, 86_400),
        gamma: fc.integer({ min: 1, max: 2_000 }).map((multiple) => multiple * 30),
        minProceeds: fc.bigInt({ min: 0n, max: 10n ** 21n }).map(String),
        maxProceeds: fc.bigInt({ min: 0n, max: 10n ** 21n }).map(String),
      },
      { requiredKeys: [] },
    )
    await fc.assert(
      fc.asyncProperty(knobs, async (values) => {
        const intent = { ...defaultIntent(capabilities, 8453), ...values } as Intent
        const draft = await router.draft(intent)
        const expected = sdkValidates(await payloadFor(intent)) && hookAccepts(effective(intent))
        expect(draft.ok, JSON.stringify(draft.errors)).toBe(expected)
        if (!draft.ok)
          expect(draft.errors.every((error) => error.code === 'knob_invalid')).toBe(true)
      }),
      { numRuns: propertyRuns(150) },
    )
  })

  test('whatever the SDK refuses just outside a published rule, draft_intent refuses', async () => {
    const base = defaultIntent(capabilities, 8453)
    const payload = await router.signPayload(base)
    let refusedBySdk = 0
    for (const { knob, value } of nearMissCases(capabilities, 8453)) {
      const path = knobPath(PAD, knob)!
      const injected = injectAt(payload, path, value)
      let sdkRefuses = !sdkValidates(injected)
      // Past int24 or uint256 the SDK's ABI encoding refuses (the only near misses that mine).
      if (
        !sdkRefuses &&
        ['startTick', 'endTick', 'gamma', 'minProceeds', 'maxProceeds'].includes(knob)
      )
        sdkRefuses = await build(injected).then(
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
    ['epochLength does not divide duration', { duration: 604_801 }, 'sdk'],
    ['start tick equal to the end tick', { startTick: 172_170 }, 'sdk'],
    [
      'ticks in ETH order against a numeraire above the token',
      { numeraire: HIGH_NUMERAIRE },
      'sdk',
    ],
    ['a gamma one short of a multiple of 30', { gamma: 3_299 }, 'sdk'],
    ['under one tick per epoch (computed gamma)', { epochLength: 60 }, 'hook'],
    ['under one tick per epoch (given gamma)', { gamma: 30, epochLength: 3_600 }, 'hook'],
    ['minProceeds one above maxProceeds', { minProceeds: '100000000000000000001' }, 'hook'],
  ])('just outside the rule (%s): knob_invalid, and the %s refuses', async (_, knobs, by) => {
    const intent = { ...defaultIntent(capabilities, 8453), ...knobs } as Intent
    const draft = await router.draft(intent)
    expect(draft.ok).toBe(false)
    expect(draft.errors.map((error) => error.code)).toEqual(['knob_invalid'])
    const payload = await payloadFor(intent)
    if (by === 'sdk') expect(sdkValidates(payload)).toBe(false)
    else expect([sdkValidates(payload), hookAccepts(effective(intent))]).toEqual([true, false])
  })
})

/** The payload the router would build had it accepted the intent: the defaults' payload with the knobs injected. */
const payloadFor = async (intent: Intent) => {
  let payload = await router.signPayload(defaultIntent(capabilities, intent.chainId))
  for (const [knob, value] of Object.entries(intent)) {
    const path = knobPath(PAD, knob)
    if (path) payload = injectAt(payload, path, value)
  }
  return payload
}
