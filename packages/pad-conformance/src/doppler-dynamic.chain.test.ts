import { spawnAnvil } from '@agents/devnet'
import {
  type CreateDynamicAuctionParams,
  DopplerFactory,
  getAddresses,
} from '@whetstone-research/doppler-sdk/evm'
import fc from 'fast-check'
import { decodeErrorResult, type Hex, parseAbi } from 'viem'
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
  deployVia,
  hookInitCode,
  hookIsToken0,
  hookStartingTime,
  type LocalChain,
  localChain,
  tokenInitCode,
} from './execution/doppler-contracts.ts'
import { injectAt } from './knob-injection.ts'
import { createOfflineClient } from './offline-client.ts'
import { reviveConfig } from './revive-config.ts'

/**
 * The router's doppler-dynamic payloads executed, not only built: the SDK
 * encodes the Airlock create() arguments offline, and a local anvil runs the
 * two constructors of the create path that take the intent's values, from the
 * creation code the SDK itself ships, at the addresses the SDK mined:
 * TokenFactory80's DERC2080 (name, symbol, supply, vesting to the creator,
 * token URI) and DopplerDeployer's Doppler hook (proceeds, times, ticks,
 * epochs, gamma, token order, hook-address flags). The Airlock, the
 * initializer and the v4 pool manager are not on npm (see
 * conditions/doppler-dynamic.md): what they check is listed there.
 */
const PAD = 'doppler-dynamic'
const router = useConformanceRouter()
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
const chains = new Map<number, { chain: LocalChain; stop: () => Promise<void> }>()
beforeAll(async () => {
  capabilities = await router.capabilities(PAD)
  for (const chainId of capabilities.chains as number[]) {
    // Doppler's hook is large; Base's and Ethereum's limit is 24,576 bytes, so keep anvil's.
    const anvil = await spawnAnvil({ args: ['--chain-id', String(chainId)] })
    chains.set(chainId, { chain: localChain(anvil.rpcUrl, chainId), stop: anvil.stop })
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
  const { chain } = chains.get(chainId)!
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
    return { built, token, hook }
  } finally {
    await chain.test.revert({ id: snapshot })
  }
}

const expectLaunches = async (label: string, payload: SignPayload) => {
  const { built, token, hook } = await execute(payload)
  expect(hook, `${label}: ${errorName(hook)}`).toEqual({ ok: true, address: built.hookAddress })
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
    expect(launched).toBeGreaterThan(20)
  }, 600_000)

  test('random valid intents (fast-check, bounded)', async () => {
    await fc.assert(
      fc.asyncProperty(intentArbitrary(capabilities), async (intent) => {
        const answer = await router.draft(intent)
        fc.pre(answer.ok) // the generator knows each knob, not the rules across them
        await expectLaunches(JSON.stringify(intent), await router.signPayload(intent))
      }),
      { numRuns: 5 },
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
      await chain.test.setNextBlockTimestamp({ timestamp: start })
      await chain.test.mine({ blocks: 1 })
      expect(await deployVia(chain, deployer, createParams.salt, initCode)).toMatchObject({
        ok: true,
      })
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
})
