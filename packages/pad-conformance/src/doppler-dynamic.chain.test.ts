import { spawnAnvil } from '@agents/devnet'
import {
  type CreateDynamicAuctionParams,
  DopplerFactory,
  getAddresses,
} from '@whetstone-research/doppler-sdk/evm'
import fc from 'fast-check'
import { decodeErrorResult, type Hex, parseAbi, toFunctionSelector } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
  type Capabilities,
  intentArbitrary,
  intentCases,
  type SignPayload,
  useConformanceRouter,
} from './conformance-router.ts'
import {
  type Deployed,
  deployTickMath,
  deployVia,
  hookInitCode,
  hookIsToken0,
  hookStartingTime,
  initializeDopplerPool,
  type LocalChain,
  localChain,
  placePoolManager,
  tokenInitCode,
} from './execution/doppler-contracts.ts'
import { injectAt, knobPath } from './knob-injection.ts'
import { createOfflineClient } from './offline-client.ts'
import { reviveConfig } from './revive-config.ts'

/**
 * The router's doppler-dynamic payloads executed, not only built: the SDK
 * encodes the Airlock create() arguments offline, and a local anvil runs the
 * two constructors of the create path that take the intent's values, from the
 * creation code the SDK itself ships, at the addresses the SDK mined:
 * TokenFactory80's DERC2080 (name, symbol, supply, vesting to the creator,
 * token URI) and DopplerDeployer's Doppler hook (proceeds, times, ticks,
 * epochs, gamma, token order, hook-address flags); then, as the initializer
 * does, the sale goes to the hook and Uniswap v4's PoolManager (from
 * `@uniswap/v4-core`) initializes the pool, where the hook places its first
 * slugs. The Airlock and the initializer are not on npm (see
 * conditions/doppler-dynamic.md): what they check is listed there.
 */
const PAD = 'doppler-dynamic'
const router = useConformanceRouter()
const refuses = (draft: { errors: { code: string; field: string }[] }, field: string) =>
  draft.errors.some((error) => error.code === 'knob_invalid' && error.field === field)
const DOPPLER_ERRORS = parseAbi([
  'error InvalidGamma()',
  'error InvalidTimeRange()',
  'error InvalidStartTime()',
  'error InvalidTickRange()',
  'error InvalidEpochLength()',
  'error InvalidProceedLimits()',
  'error InvalidNumPDSlugs()',
  'error HookAddressNotValid(address hooks)',
])

let capabilities: Capabilities
const chains = new Map<
  number,
  {
    chain: LocalChain
    stop: () => Promise<void>
    sqrtPriceAtTick: (tick: number) => Promise<bigint>
  }
>()
beforeAll(async () => {
  capabilities = await router.capabilities(PAD)
  for (const chainId of capabilities.chains as number[]) {
    // Doppler's hook is large; Base's and Ethereum's limit is 24,576 bytes, so keep anvil's.
    const anvil = await spawnAnvil({ args: ['--chain-id', String(chainId)] })
    const chain = localChain(anvil.rpcUrl, chainId)
    await placePoolManager(chain, getAddresses(chainId as never).poolManager)
    chains.set(chainId, { chain, stop: anvil.stop, sqrtPriceAtTick: await deployTickMath(chain) })
  }
}, 60_000)
afterAll(async () => {
  for (const { stop } of chains.values()) await stop()
})

const encode = async (payload: SignPayload) => {
  const chainId = payload.chainId as number
  const factory = new DopplerFactory(createOfflineClient(), undefined, chainId as never)
  const config = reviveConfig(payload as never) as CreateDynamicAuctionParams<8453>
  return factory.encodeCreateDynamicAuctionParams(config)
}

const errorName = (deployed: Deployed) => {
  if (deployed.ok) return 'none'
  if (deployed.revert === '0x') return 'a revert without data'
  return decodeErrorResult({ abi: DOPPLER_ERRORS, data: deployed.revert as Hex }).errorName
}

/**
 * Runs the payload's token and hook constructors on the chain's anvil, each payload on the same
 * fresh state (a snapshot reverted after it): two payloads of one second with the same auction
 * would otherwise mine the same salt and meet an address already taken.
 */
const execute = async (payload: SignPayload) => {
  const chainId = payload.chainId as number
  const { chain, sqrtPriceAtTick } = chains.get(chainId)!
  const addresses = getAddresses(chainId as never)
  const built = await encode(payload)
  const { createParams } = built
  const snapshot = await chain.test.snapshot()
  try {
    // Ethereum's token factory clones an implementation the SDK does not ship: no token run there.
    const tokenCode = tokenInitCode(createParams, addresses.airlock, built.tokenAddress)
    if (chainId !== 1) expect(tokenCode, `chain ${chainId}: a token creation code`).toBeDefined()
    const token = tokenCode
      ? await deployVia(chain, createParams.tokenFactory, createParams.salt, tokenCode)
      : undefined
    const hook = await deployVia(
      chain,
      addresses.dopplerDeployer,
      createParams.salt,
      hookInitCode(createParams, chainId),
    )
    // The pool, where the token exists here: the sale handed to the hook, the pool initialized
    // at the start tick, the hook's first slugs placed.
    const pool =
      token?.ok && hook.ok
        ? await initializeDopplerPool(
            chain,
            createParams,
            built.tokenAddress,
            built.hookAddress,
            sqrtPriceAtTick,
          )
        : undefined
    return { built, token, hook, pool }
  } finally {
    await chain.test.revert({ id: snapshot })
  }
}

const POOL_ERRORS = parseAbi([
  'error WrappedError(address target, bytes4 selector, bytes reason, bytes details)',
  'error TickLiquidityOverflow(int24 tick)',
])

/** The hook's revert inside v4's `WrappedError(hook, afterInitialize, reason, details)`, decoded. */
const poolRevert = (revert: Hex) => {
  const wrapped = decodeErrorResult({ abi: POOL_ERRORS, data: revert })
  if (wrapped.errorName !== 'WrappedError') return wrapped.errorName
  // viem decodes Solidity's Error(string) too, though its types only know the ABI's errors.
  const inner = decodeErrorResult({ abi: POOL_ERRORS, data: wrapped.args[2] }) as {
    errorName: string
    args: readonly unknown[]
  }
  if (inner.errorName === 'TickLiquidityOverflow') return `TickLiquidityOverflow(${inner.args[0]})`
  return inner.errorName === 'Error' ? `Error("${inner.args[0]}")` : inner.errorName
}

const expectLaunches = async (label: string, payload: SignPayload) => {
  const { built, token, hook, pool } = await execute(payload)
  expect(hook, `${label}: ${errorName(hook)}`).toEqual({ ok: true, address: built.hookAddress })
  if (pool)
    expect(pool.ok, `${label}: the pool's initialize reverted ${JSON.stringify(pool)}`).toBe(true)
  // UniswapV4Initializer.initialize reverts InvalidTokenOrder unless the hook's isToken0 is the
  // token's order against the numeraire (d223428 UniswapV4Initializer.sol lines 100-102).
  const isToken0 = hookIsToken0(built.createParams)
  const below = BigInt(built.tokenAddress) < BigInt(built.createParams.numeraire)
  expect(isToken0, `${label}: InvalidTokenOrder`).toBe(below)
  if (token) expect(token, label).toEqual({ ok: true, address: built.tokenAddress })
}

describe('doppler-dynamic payloads run on anvil: the token and the Doppler hook are created where the SDK mined them', () => {
  test('the defaults on 8453, 130 and 1, and every generated knob value on 8453', async () => {
    let launched = 0
    for (const { label, intent } of intentCases(capabilities)) {
      // A value alone may break a rule across knobs (a high numeraire flips the ticks' order):
      // the conformance test covers those refusals; here only what the router accepts runs.
      if (!(await router.draft(intent)).ok) continue
      await expectLaunches(label, await router.signPayload(intent))
      launched += 1
    }
    expect(launched).toBeGreaterThan(15)
  }, 600_000)

  // Counts only payloads the router signed off on (fc.pre): a refused draft is skipped, not a
  // run. Before the liquidity rule (doppler-dynamic-liquidity) this found auctions the router
  // accepted and the pool's initialize reverted (TickLiquidityOverflow, or Error("liquidity
  // overflow") over uint128); FC_SEED / FC_RUNS replay or widen it.
  test('random valid intents (fast-check, bounded)', async () => {
    // Auctions inside the rules across knobs (the published knob types alone rarely are): any
    // chain and numeraire side, epochs that divide, ticks ordered and clear of the limits.
    const auction = fc
      .record({
        base: intentArbitrary(capabilities),
        chainId: fc.constantFrom(8453, 130, 1),
        numeraire: fc.constantFrom(
          '0x0000000000000000000000000000000000000000',
          '0x4200000000000000000000000000000000000006',
          '0xf33589fcd6edb6e08f4c7c32d4f71b54bda02913',
        ),
        epochLength: fc.integer({ min: 600, max: 86_400 }),
        epochs: fc.integer({ min: 1, max: 60 }),
        from: fc.integer({ min: -20_000, max: 20_000 }).map((step) => step * 30),
        span: fc.integer({ min: 1, max: 3_000 }).map((steps) => steps * 30),
        proceeds: fc.tuple(
          fc.bigInt({ min: 0n, max: 10n ** 24n }),
          fc.bigInt({ min: 0n, max: 10n ** 24n }),
        ),
      })
      .map(({ base, chainId, numeraire, epochLength, epochs, from, span, proceeds }) => {
        const high = BigInt(numeraire) > 2n ** 159n - 1n
        const [min, max] = proceeds[0] <= proceeds[1] ? proceeds : [proceeds[1], proceeds[0]]
        return {
          ...base,
          chainId,
          creator: base.creator,
          numeraire,
          epochLength,
          duration: epochLength * epochs,
          startTick: high ? from + span : from,
          endTick: high ? from : from + span,
          minProceeds: min.toString(),
          maxProceeds: max.toString(),
        }
      })
    await fc.assert(
      fc.asyncProperty(auction, async (intent) => {
        // Most random auctions are refused (gamma under a tick per epoch): skipped, not counted,
        // so that six runs are six payloads the router signed off on.
        fc.pre((await router.draft(intent)).ok)
        await expectLaunches(JSON.stringify(intent), await router.signPayload(intent))
      }),
      {
        numRuns: Number(process.env.FC_RUNS) || 6,
        endOnFailure: true,
        ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}),
      },
    )
  }, 600_000)

  test('the start time: the hook accepts a block at validUntil and reverts InvalidStartTime one second later', async () => {
    const intent = { ...intentCases(capabilities)[0]!.intent, name: 'Late Signer' }
    const payload = await router.signPayload(intent)
    const { createParams } = await encode(payload)
    const start = hookStartingTime(createParams)
    const { chain } = chains.get(payload.chainId as number)!
    const initCode = hookInitCode(createParams, payload.chainId as number)
    const deployer = getAddresses(payload.chainId as never).dopplerDeployer
    let snapshot = await chain.test.snapshot()
    try {
      // The deployment itself is mined at the start time: a block mined there first would put
      // it one block later, past the start on a slow machine (CI saw it revert after its call passed).
      await chain.test.setNextBlockTimestamp({ timestamp: start - 1n })
      await chain.test.mine({ blocks: 1 })
      await chain.test.setNextBlockTimestamp({ timestamp: start })
      expect(await deployVia(chain, deployer, createParams.salt, initCode)).toMatchObject({
        ok: true,
      })
      expect((await chain.public.getBlock()).timestamp).toBe(start)
    } finally {
      await chain.test.revert({ id: snapshot })
    }
    snapshot = await chain.test.snapshot()
    try {
      await chain.test.setNextBlockTimestamp({ timestamp: start + 1n })
      await chain.test.mine({ blocks: 1 })
      expect(errorName(await deployVia(chain, deployer, createParams.salt, initCode))).toBe(
        'InvalidStartTime',
      )
    } finally {
      await chain.test.revert({ id: snapshot })
    }
  })

  test('near misses the router refuses revert in the hook with the error it names', async () => {
    const base = await router.signPayload(intentCases(capabilities)[0]!.intent)
    const misses: { knob: string; value: unknown; error: string }[] = [
      // Default ticks over 7 days in epochs of a minute: under one tick per epoch.
      { knob: 'epochLength', value: 60, error: 'InvalidGamma' },
      { knob: 'minProceeds', value: 200000000000000000000n, error: 'InvalidProceedLimits' },
    ]
    for (const { knob, value, error } of misses) {
      const draft = await router.draft({
        ...intentCases(capabilities)[0]!.intent,
        [knob]: typeof value === 'bigint' ? value.toString() : value,
      })
      expect(draft.ok, `${knob}: the router refuses`).toBe(false)
      const payload = injectAt(
        base,
        ['config', 'auction', knob],
        typeof value === 'bigint' ? value.toString() : value,
      )
      const { hook } = await execute(payload)
      expect(errorName(hook), knob).toBe(error)
    }
  })

  test("liquidity a tick cannot hold: the router refuses it, the pool's initialize reverts as it says; a step inside launches", async () => {
    const high = '0xf33589fcd6edb6e08f4c7c32d4f71b54bda02913'
    const oneEpoch = { epochLength: 600, duration: 600 }
    const cases = [
      // One epoch: all 900M tokens in the upper slug, 30 ticks wide, at ~9e7 ETH a token.
      {
        refused: { startTick: -183_360, endTick: -183_330, ...oneEpoch },
        revert: 'TickLiquidityOverflow(-183390)',
        inside: { startTick: -183_330, endTick: -183_300, ...oneEpoch },
      },
      {
        refused: { numeraire: high, startTick: 183_360, endTick: 183_330, ...oneEpoch },
        revert: 'TickLiquidityOverflow(183360)',
        inside: { numeraire: high, startTick: 183_330, endTick: 183_300, ...oneEpoch },
      },
      // 18 epochs: each price-discovery slug fits, the tick two of them share does not.
      {
        refused: { startTick: -227_190, endTick: -226_650, epochLength: 3_600, duration: 64_800 },
        revert: 'TickLiquidityOverflow(-227340)',
        inside: { startTick: -227_160, endTick: -226_620, epochLength: 3_600, duration: 64_800 },
      },
      // A large gamma takes the last price-discovery slugs far out.
      {
        refused: { startTick: 0, endTick: 600, gamma: 417_750, epochLength: 600, duration: 3_600 },
        revert: 'TickLiquidityOverflow(-348120)',
        inside: { startTick: 0, endTick: 600, gamma: 417_720, epochLength: 600, duration: 3_600 },
      },
      // Past uint128: the hook's LiquidityAmounts refuses before the pool is asked.
      {
        refused: { startTick: -600_000, endTick: -568_050, epochLength: 615, duration: 615 },
        revert: 'Error("liquidity overflow")',
      },
    ]
    const defaults = intentCases(capabilities)[0]!.intent
    const base = await router.signPayload(defaults)
    for (const { refused, revert, inside } of cases) {
      const label = JSON.stringify(refused)
      const draft = await router.draft({ ...defaults, ...refused })
      expect(draft.errors, label).toEqual([
        {
          code: 'knob_invalid',
          field: 'startTick',
          message: expect.stringContaining('doppler-dynamic-liquidity'),
        },
      ])
      expect(draft.errors[0]!.message, label).toContain(revert)
      let payload = base
      for (const [knob, value] of Object.entries(refused))
        payload = injectAt(payload, knobPath(PAD, knob)!, value)
      const { token, hook, pool } = await execute(payload)
      expect([token?.ok, hook.ok], label).toEqual([true, true])
      expect(pool, label).toMatchObject({ ok: false })
      expect(poolRevert((pool as { revert: Hex }).revert), label).toBe(revert)
      if (inside)
        await expectLaunches(
          JSON.stringify(inside),
          await router.signPayload({ ...defaults, ...inside }),
        )
    }
  }, 300_000)

  test("start ticks the pool cannot take: the router refuses them, the pool's initialize reverts", async () => {
    const base = await router.signPayload(intentCases(capabilities)[0]!.intent)
    for (const { startTick, error } of [
      // The first slugs would pass the price limit: InvalidTick(tick) in the hook's afterInitialize.
      { startTick: -887_272, error: toFunctionSelector('InvalidTick(int24)') },
      // Off the tick spacing 30: the first slug starts there, TickMisaligned(tick, tickSpacing).
      { startTick: 126_121, error: toFunctionSelector('TickMisaligned(int24,int24)') },
    ]) {
      const intent = { ...intentCases(capabilities)[0]!.intent, startTick }
      expect(refuses(await router.draft(intent), 'startTick'), String(startTick)).toBe(true)
      const { hook, pool } = await execute(
        injectAt(base, ['config', 'auction', 'startTick'], startTick),
      )
      expect(hook.ok, String(startTick)).toBe(true) // the constructor has no such rule
      expect(pool, String(startTick)).toMatchObject({ ok: false })
      // v4 wraps it: WrappedError(hook, afterInitialize selector, reason, details).
      expect((pool as { revert: string }).revert, String(startTick)).toContain(error.slice(2))
    }
  })
})
