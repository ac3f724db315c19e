import { Clanker } from 'clanker-sdk/v4'
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

const PAD = 'clanker-v4'
const CREATOR_B = getAddress('0x00000000000000000000000000000000000000b2')
const CREATOR_C = getAddress('0x00000000000000000000000000000000000000c3')
const router = useConformanceRouter()
// getDeployTransaction is the offline half of Clanker.deploy: parse, encode, predict the address.
const clanker = new Clanker({ publicClient: createOfflineClient() as never })

type DeployArgs = {
  tokenConfig: Record<string, unknown>
  lockerConfig: Record<string, readonly unknown[]>
  poolConfig: { pairedToken: string; poolData: `0x${string}` }
  mevModuleConfig: { mevModuleData: `0x${string}` }
  extensionConfigs: { extensionBps: number; msgValue: bigint; extensionData: `0x${string}` }[]
}

const build = async (payload: SignPayload) => {
  const config = payload.config as Parameters<Clanker['getDeployTransaction']>[0]
  expect(payload).toMatchObject({ kind: 'sdk-deploy', pad: PAD })
  const tx = await withoutNetwork(() => clanker.getDeployTransaction(config))
  const [args] = tx.args as unknown as [DeployArgs]
  return { tx, args }
}

/** Everything the intent asked for, read back out of the encoded deployToken arguments. */
const expectCarries = (intent: Intent, built: Awaited<ReturnType<typeof build>>) => {
  const { tx, args } = built
  expect(tx.functionName).toBe('deployToken')
  expect(tx.chainId).toBe(intent.chainId)
  expect(args.tokenConfig).toMatchObject({
    name: intent.name.trim(),
    symbol: intent.symbol,
    tokenAdmin: getAddress(intent.creator),
    originatingChainId: BigInt(intent.chainId),
  })
  const used = new Set(usedKnobs(capabilities, intent.chainId).map((knob) => knob.name))
  const knob = (name: string) => (used.has(name) ? intent[name] : undefined)
  if (knob('image') !== undefined) expect(args.tokenConfig.image).toBe(intent.image)
  const metadata = JSON.parse((args.tokenConfig.metadata as string) || '{}')
  if (knob('description') !== undefined) expect(metadata.description).toBe(intent.description)
  if (knob('socials') !== undefined) expect(metadata.socialMediaUrls).toEqual(intent.socials)
  if (knob('context') !== undefined)
    expect(JSON.parse(args.tokenConfig.context as string)).toMatchObject(intent.context as object)
  const fees = knob('fees') as { clankerFee: number; pairedFee: number } | undefined
  if (fees) {
    // Chains with a v4.1 static-fee hook wrap the fee data in (extension, extensionData, feeData).
    const poolData = args.poolConfig.poolData
    const feeData =
      poolData.length === 2 + 64 * 2
        ? poolData
        : (
            decodeAbiParameters(
              [
                {
                  type: 'tuple',
                  components: [{ type: 'address' }, { type: 'bytes' }, { type: 'bytes' }],
                },
              ],
              poolData,
            ) as unknown as [[string, string, `0x${string}`]]
          )[0][2]
    expect(decodeAbiParameters([{ type: 'uint24' }, { type: 'uint24' }], feeData)).toEqual([
      fees.clankerFee * 100,
      fees.pairedFee * 100,
    ])
  }
  const rewards = knob('rewards') as
    | { recipients: { admin: string; recipient: string; bps: number }[] }
    | undefined
  if (rewards) {
    expect(args.lockerConfig.rewardAdmins).toEqual(
      rewards.recipients.map((r) => getAddress(r.admin)),
    )
    expect(args.lockerConfig.rewardRecipients).toEqual(
      rewards.recipients.map((r) => getAddress(r.recipient)),
    )
    expect(args.lockerConfig.rewardBps).toEqual(rewards.recipients.map((r) => r.bps))
  }
  const sniper = knob('sniperFees') as
    | { startingFee: number; endingFee: number; secondsToDecay: number }
    | undefined
  if (sniper) {
    const [decoded] = decodeAbiParameters(
      [
        {
          type: 'tuple',
          components: [{ type: 'uint24' }, { type: 'uint24' }, { type: 'uint256' }],
        },
      ],
      args.mevModuleConfig.mevModuleData,
    ) as unknown as [[number, number, bigint]]
    expect(decoded).toEqual([sniper.startingFee, sniper.endingFee, BigInt(sniper.secondsToDecay)])
  }
  const vault = knob('vault') as
    | { percentage: number; lockupDuration: number; vestingDuration?: number; recipient?: string }
    | undefined
  const devBuy = knob('devBuy') as { ethAmount: number } | undefined
  expect(args.extensionConfigs).toHaveLength((vault ? 1 : 0) + (devBuy ? 1 : 0))
  if (vault) {
    const [extension] = args.extensionConfigs
    expect(extension!.extensionBps).toBe(vault.percentage * 100)
    expect(
      decodeAbiParameters(
        [{ type: 'address' }, { type: 'uint256' }, { type: 'uint256' }],
        extension!.extensionData,
      ),
    ).toEqual([
      getAddress(vault.recipient ?? intent.creator),
      BigInt(vault.lockupDuration),
      BigInt(vault.vestingDuration ?? 0),
    ])
  }
  expect(tx.value).toBe(devBuy ? BigInt(devBuy.ethAmount * 1e18) : 0n)
  if (devBuy) expect(args.extensionConfigs.at(-1)!.msgValue).toBe(tx.value)
}

let capabilities: Capabilities
beforeAll(async () => {
  capabilities = await router.capabilities(PAD)
})

describe('clanker-v4 payloads through clanker-sdk 4.2.18 Clanker.getDeployTransaction, offline', () => {
  test('the pad names clanker-sdk 4.2.18, the version installed here', async () => {
    const payload = await router.signPayload(defaultIntent(capabilities, 8453))
    expect(payload.sdk).toMatchObject({
      package: 'clanker-sdk',
      version: installedVersion('clanker-sdk'),
    })
  })

  test('every generated intent (defaults per chain, each knob, each boundary) builds and carries the intent', async () => {
    const cases = intentCases(capabilities)
    expect(cases.length).toBeGreaterThan(30)
    for (const { label, intent } of cases) {
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
      { numRuns: propertyRuns(60) },
    )
  })
})

describe('clanker-v4: what the chain refuses and the SDK builds, draft_intent refuses (pads/conditions/clanker-v4.md)', () => {
  const ZERO = '0x0000000000000000000000000000000000000000'
  const recipient = (admin: string, bps: number) => ({
    admin,
    recipient: admin,
    bps,
    token: 'Both',
  })
  test.each([
    // ClankerHookStaticFeeV2 (Base): ClankerFeeTooHigh above 100_000 uni-bps.
    ['fees', { type: 'static', clankerFee: 1001, pairedFee: 100 }],
    // ClankerLpLockerFeeConversion: ZeroRewardAmount, ZeroRewardAddress.
    ['rewards', { recipients: [recipient(CREATOR_B, 10_000), recipient(CREATOR_C, 0)] }],
    ['rewards', { recipients: [{ ...recipient(CREATOR_B, 10_000), admin: ZERO }] }],
    // ClankerVault: InvalidVaultAdmin.
    ['vault', { percentage: 10, lockupDuration: 604_800, recipient: ZERO }],
  ])('%s %j: the SDK builds it, the chain reverts, draft_intent refuses', async (knob, value) => {
    const base = defaultIntent(capabilities, 8453)
    const payload = await router.signPayload(base)
    await build(injectAt(payload, knobPath(PAD, knob)!, value))
    expect(refusesKnob(await router.draft({ ...base, [knob]: value }), knob)).toBe(true)
  })

  test('fees of 1000 bps and a 1-bps recipient, just inside, build', async () => {
    const intent = {
      ...defaultIntent(capabilities, 8453),
      fees: { type: 'static', clankerFee: 1000, pairedFee: 1000 },
      rewards: { recipients: [recipient(CREATOR_B, 9_999), recipient(CREATOR_C, 1)] },
    }
    expectCarries(intent, await build(await router.signPayload(intent)))
  })
})

describe('clanker-v4: what clanker-sdk refuses, draft_intent refuses', () => {
  test('every value just outside a published rule that the SDK refuses is knob_invalid', async () => {
    const base = defaultIntent(capabilities, 8453)
    const payload = await router.signPayload(base)
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
      const draft = await router.draft({ ...base, [knob]: value })
      expect(refusesKnob(draft, knob), `${knob} = ${JSON.stringify(value)}`).toBe(true)
    }
    expect(refusedBySdk).toBeGreaterThan(5)
  })

  test.each([
    ['sniperFees', { startingFee: 29_999, endingFee: 29_000, secondsToDecay: 15 }],
    ['sniperFees', { startingFee: 666_777, endingFee: 666_777, secondsToDecay: 15 }],
    ['sniperFees', { startingFee: 666_777, endingFee: 41_673, secondsToDecay: 121 }],
    ['devBuy', { ethAmount: 1e-19 }],
    ['devBuy', { ethAmount: 2.5e-18 }],
  ])('the SDK and draft_intent both refuse %s %j', async (knob, value) => {
    const base = defaultIntent(capabilities, 8453)
    const payload = await router.signPayload(base)
    await expect(build(injectAt(payload, knobPath(PAD, knob)!, value))).rejects.toThrow()
    expect(refusesKnob(await router.draft({ ...base, [knob]: value }), knob)).toBe(true)
  })

  test('a zero-address creator is refused: the SDK refuses a zero token admin', async () => {
    const base = defaultIntent(capabilities, 8453)
    const payload = await router.signPayload(base)
    const zero = '0x0000000000000000000000000000000000000000'
    await expect(build(injectAt(payload, ['config', 'tokenAdmin'], zero))).rejects.toThrow()
    const draft = await router.draft({ ...base, creator: zero })
    expect(draft.errors.map((error) => error.code)).toContain('creator_invalid')
  })

  test('sniperFees is reported ignored on Arbitrum and Unichain, whose deployments drop it', async () => {
    for (const chainId of [42161, 130]) {
      // The SDK lists no sniper-auction or descending-fee module there and sends the MEV module no data.
      const sniperFees = { startingFee: 500_000, endingFee: 40_000, secondsToDecay: 30 }
      const payload = await router.signPayload(defaultIntent(capabilities, chainId))
      const { args } = await build(injectAt(payload, ['config', 'sniperFees'], sniperFees))
      expect(args.mevModuleConfig.mevModuleData).toBe('0x')
      const intent = {
        ...defaultIntent(capabilities, chainId),
        sniperFees: { startingFee: 500_000, endingFee: 40_000, secondsToDecay: 30 },
      }
      const draft = await router.draft(intent)
      expect(draft.ok).toBe(true)
      expect(draft.warnings).toContainEqual(
        expect.objectContaining({ code: 'knob_ignored', field: 'sniperFees' }),
      )
    }
  })
})
