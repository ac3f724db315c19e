import { createFlaunchCalldata, decodeCallData } from '@flaunch/sdk'
import { FlaunchZapAbi } from '@flaunch/sdk/abi'
import axios, { type AxiosAdapter } from 'axios'
import fc from 'fast-check'
import {
  createPublicClient,
  custom,
  decodeFunctionData,
  encodeAbiParameters,
  encodeFunctionResult,
  getAddress,
  parseUnits,
  toFunctionSelector,
} from 'viem'
import { base } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
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
import { reviveConfig } from './revive-config.ts'

const PAD = 'flaunch'
const router = useConformanceRouter()
const ZAP = '0xe52dE1801C10cF709cc8e62d43D783AFe984b510'
const FEE = 123_456_789n
const CALCULATE_FEE = toFunctionSelector('calculateFee(uint256,uint256,bytes)')

/**
 * The SDK's own calldata mode (createFlaunchCalldata: a wallet client that
 * encodes instead of broadcasting). Its one chain read, FlaunchZap.calculateFee
 * (the ETH to send), is answered with a fixed fee; every other RPC throws.
 */
const publicClient = createPublicClient({
  chain: base,
  transport: custom({
    request: async ({ method, params }: { method: string; params?: unknown[] }) => {
      if (method === 'eth_chainId') return '0x2105'
      const call = params?.[0] as { to?: string; data?: string } | undefined
      if (
        method === 'eth_call' &&
        call?.to?.toLowerCase() === ZAP.toLowerCase() &&
        call.data?.startsWith(CALCULATE_FEE)
      )
        return encodeFunctionResult({
          abi: FlaunchZapAbi,
          functionName: 'calculateFee',
          result: FEE,
        })
      throw new Error(`RPC call attempted offline: ${method}`)
    },
  }),
})

// flaunchIPFS pins the image and metadata through Flaunch's web API with axios; offline, a script answers.
let uploads: { url: string; body: Record<string, unknown> }[] = []
const scriptedAdapter: AxiosAdapter = async (config) => {
  const body = JSON.parse(String(config.data))
  uploads.push({ url: String(config.url), body })
  const ipfsHash = String(config.url).endsWith('/upload-image') ? 'QmImage' : 'QmMetadata'
  if (!String(config.url).startsWith('https://web2-api.flaunch.gg/'))
    throw new Error(`network call attempted: ${config.url}`)
  return { data: { ipfsHash }, status: 200, statusText: 'OK', headers: {}, config }
}
const originalAdapter = axios.defaults.adapter
beforeAll(() => {
  axios.defaults.adapter = scriptedAdapter
})
afterAll(() => {
  axios.defaults.adapter = originalAdapter
})

const build = async (payload: SignPayload) => {
  expect(payload).toMatchObject({ kind: 'sdk-deploy', pad: PAD })
  uploads = []
  const sdk = createFlaunchCalldata({
    publicClient: publicClient as never,
    walletAddress: CREATOR_OF(payload),
  })
  // The documented conversion: flaunchAt, a bigint in the SDK's type, is marked in payload.bigints.
  const params = reviveConfig(payload as never) as Parameters<typeof sdk.flaunchIPFS>[0]
  const encoded = await withoutNetwork(() => sdk.flaunchIPFS(params))
  const call = decodeCallData(encoded)
  const decoded = decodeFunctionData({ abi: FlaunchZapAbi, data: call.data })
  return { call, decoded, uploads: [...uploads] }
}

const CREATOR_OF = (payload: SignPayload) => (payload.config as { creator: `0x${string}` }).creator

const SOCIAL_FIELDS = {
  website: 'websiteUrl',
  x: 'twitterUrl',
  telegram: 'telegramUrl',
  discord: 'discordUrl',
} as const

const expectCarries = (intent: Intent, built: Awaited<ReturnType<typeof build>>) => {
  const { call, decoded } = built
  expect(getAddress(call.to)).toBe(ZAP)
  expect(call.value).toBe(FEE)
  expect(decoded.functionName).toBe('flaunch')
  const [flaunchParams] = decoded.args as unknown as [Record<string, unknown>]
  const used = new Set(usedKnobs(capabilities, intent.chainId).map((knob) => knob.name))
  const mcap = (used.has('initialMarketCapUSD') && intent.initialMarketCapUSD) || 10_000
  const creatorFee = used.has('creatorFeeAllocationPercent')
    ? (intent.creatorFeeAllocationPercent ?? 80)
    : 80
  expect(flaunchParams).toMatchObject({
    name: intent.name.trim(),
    symbol: intent.symbol,
    tokenUri: 'ipfs://QmMetadata',
    creator: getAddress(intent.creator),
    initialTokenFairLaunch: 0n,
    creatorFeeAllocation: Math.round((creatorFee as number) * 100),
    flaunchAt: BigInt((intent.flaunchAt as number | undefined) ?? 0),
    initialPriceParams: encodeAbiParameters([{ type: 'uint256' }], [parseUnits(String(mcap), 6)]),
  })
  // The chain: calldata for Base's FlaunchZap, the only chain the pad lists.
  expect(intent.chainId).toBe(base.id)
  const [image, metadata] = built.uploads
  expect(image?.body.base64Image).toBe(intent.image)
  expect(metadata?.body).toMatchObject({
    name: intent.name.trim(),
    symbol: intent.symbol,
    description: intent.description ?? '',
    imageIpfs: 'QmImage',
  })
  const socials = (intent.socials as { platform: keyof typeof SOCIAL_FIELDS; url: string }[]) ?? []
  for (const { platform, url } of socials) expect(metadata?.body[SOCIAL_FIELDS[platform]]).toBe(url)
}

let capabilities: Capabilities
beforeAll(async () => {
  capabilities = await router.capabilities(PAD)
})

describe('flaunch payloads through @flaunch/sdk 0.9.16 flaunchIPFS in createFlaunchCalldata mode', () => {
  test('the pad names @flaunch/sdk 0.9.16, the version installed here', async () => {
    const payload = await router.signPayload(defaultIntent(capabilities, 8453))
    expect(payload.sdk).toMatchObject({
      package: '@flaunch/sdk',
      version: installedVersion('@flaunch/sdk'),
    })
  })

  test('every generated intent (defaults, each knob, each boundary) builds and carries the intent', async () => {
    for (const { label, intent } of intentCases(capabilities)) {
      const payload = await router.signPayload(intent)
      const built = await build(payload).catch((error: Error) => {
        throw new Error(`${label}: the SDK refused the payload: ${error.message}`)
      })
      expectCarries(intent, built)
    }
  })

  test('random valid intents build and carry every used knob', async () => {
    await fc.assert(
      fc.asyncProperty(intentArbitrary(capabilities), async (intent) => {
        expectCarries(intent, await build(await router.signPayload(intent)))
      }),
      { numRuns: propertyRuns(40) },
    )
  })

  test('whatever the SDK refuses just outside a published rule, draft_intent refuses', async () => {
    const baseIntent = defaultIntent(capabilities, 8453)
    const payload = await router.signPayload(baseIntent)
    let refusedBySdk = 0
    for (const { knob, value } of nearMissCases(capabilities, 8453)) {
      const path = knobPath(PAD, knob)
      if (!path) continue
      const sdkRefuses = await build(injectAt(payload, path, value)).then(
        () => false,
        () => true,
      )
      if (!sdkRefuses) continue
      refusedBySdk += 1
      const draft = await router.draft({ ...baseIntent, [knob]: value })
      expect(refusesKnob(draft, knob), `${knob} = ${JSON.stringify(value)}`).toBe(true)
    }
    expect(refusedBySdk).toBeGreaterThan(0)
  })

  const DAY = 86_400
  const now = () => Math.floor(Date.now() / 1000)
  test.each([
    // MarketCappedPrice: MarketCapTooSmall below 1e6 (1 USD in USDC units).
    ['initialMarketCapUSD', () => 0.5],
    // Flaunch.sol: InvalidFlaunchSchedule beyond block time + 30 days.
    ['flaunchAt', () => now() + 31 * DAY],
  ])('%s: the SDK builds it, the chain reverts, draft_intent refuses', async (knob, value) => {
    const baseIntent = defaultIntent(capabilities, 8453)
    const payload = await router.signPayload(baseIntent)
    await build(injectAt(payload, knobPath(PAD, knob)!, value()))
    expect(refusesKnob(await router.draft({ ...baseIntent, [knob]: value() }), knob)).toBe(true)
  })

  test('a launch scheduled 29 days ahead and a market cap of 1 USD, just inside, build', async () => {
    const intent = {
      ...defaultIntent(capabilities, 8453),
      flaunchAt: now() + 29 * DAY,
      initialMarketCapUSD: 1,
    }
    expectCarries(intent, await build(await router.signPayload(intent)))
  })

  test.each([
    ['creatorFeeAllocationPercent', 0.29],
    ['initialMarketCapUSD', 1e-7],
  ])('the SDK and draft_intent both refuse %s = %s', async (knob, value) => {
    const baseIntent = defaultIntent(capabilities, 8453)
    const payload = await router.signPayload(baseIntent)
    await expect(build(injectAt(payload, knobPath(PAD, knob)!, value))).rejects.toThrow()
    expect(refusesKnob(await router.draft({ ...baseIntent, [knob]: value }), knob)).toBe(true)
  })
})
