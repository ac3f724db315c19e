import { type CreateCoinArgs, createCoinCall } from '@zoralabs/coins-sdk'
import fc from 'fast-check'
import { getAddress } from 'viem'
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
} from './conformance-router.ts'
import { installedVersion } from './installed-version.ts'
import { injectAt, knobPath } from './knob-injection.ts'
import { jsonResponse, type ScriptedRequest, withScriptedNetwork } from './scripted-network.ts'

const PAD = 'zora-coin'
const router = useConformanceRouter()
const API = 'https://api-sdk.zora.engineering/create/content'
const FACTORY = '0x777777751622c0d3258f214F9DF38E35BF45baF3'

/**
 * coins-sdk 0.6.0 builds no calldata itself: createCoinCall validates the
 * metadata it fetches, then asks Zora's API for the call. Offline, both are
 * answered by a script, and the check is what the SDK sends to the API.
 */
const answer = ({ url, method }: ScriptedRequest) => {
  if (method === 'GET' && !url.startsWith(API))
    return jsonResponse({ name: 'Conformance', description: 'd', image: 'ipfs://bafyimage' })
  if (method === 'POST' && url.startsWith(API))
    return jsonResponse({
      calls: [{ to: FACTORY, data: '0x', value: '0' }],
      predictedCoinAddress: '0x0000000000000000000000000000000000000C01',
    })
  return undefined
}

const build = async (payload: SignPayload) => {
  expect(payload).toMatchObject({ kind: 'sdk-deploy', pad: PAD })
  const { result, requests } = await withScriptedNetwork(answer, () =>
    createCoinCall(payload.config as CreateCoinArgs),
  )
  const apiRequest = requests.find((request) => request.url.startsWith(API))
  return {
    calls: (result as { calls: unknown[] }).calls,
    api: apiRequest?.body as Record<string, unknown>,
    requests,
  }
}

const expectCarries = (
  intent: Intent,
  payload: SignPayload,
  built: Awaited<ReturnType<typeof build>>,
) => {
  expect(built.calls).toHaveLength(1)
  expect(built.api).toMatchObject({
    name: intent.name.trim(),
    symbol: intent.symbol,
    creator: getAddress(intent.creator),
    chainId: intent.chainId,
    metadata: { type: 'RAW_URI', uri: intent.metadataUri },
    currency: intent.currency ?? 'ZORA',
  })
  const used = usedKnobs(capabilities, intent.chainId).map((knob) => knob.name)
  if (used.includes('platformReferrer') && intent.platformReferrer)
    expect(built.api.platformReferrer).toBe(intent.platformReferrer)
  if (used.includes('payoutRecipient') && intent.payoutRecipient)
    expect(built.api.payoutRecipientOverride).toBe(intent.payoutRecipient)
  // Nothing in the payload is dropped on the way to Zora's API.
  for (const key of Object.keys(payload.config as object)) expect(built.api).toHaveProperty(key)
}

let capabilities: Capabilities
beforeAll(async () => {
  capabilities = await router.capabilities(PAD)
})

describe('zora-coin payloads through @zoralabs/coins-sdk 0.6.0 createCoinCall, network scripted', () => {
  test('the pad names @zoralabs/coins-sdk 0.6.0, the version installed here', async () => {
    const payload = await router.signPayload(defaultIntent(capabilities, 8453))
    expect(payload.sdk).toMatchObject({
      package: '@zoralabs/coins-sdk',
      version: installedVersion('@zoralabs/coins-sdk'),
    })
  })

  test('every generated intent (defaults, each knob, each boundary) builds and reaches the API whole', async () => {
    for (const { label, intent } of intentCases(capabilities)) {
      const payload = await router.signPayload(intent)
      const built = await build(payload).catch((error: Error) => {
        throw new Error(`${label}: the SDK refused the payload: ${error.message}`)
      })
      expectCarries(intent, payload, built)
    }
  })

  test('random valid intents build and carry every used knob', async () => {
    await fc.assert(
      fc.asyncProperty(intentArbitrary(capabilities), async (intent) => {
        const payload = await router.signPayload(intent)
        expectCarries(intent, payload, await build(payload))
      }),
      { numRuns: propertyRuns(40) },
    )
  })

  test('a zero payoutRecipient reaches the API through the SDK; the coin reverts AddressZero, so draft_intent refuses it', async () => {
    const base = defaultIntent(capabilities, 8453)
    const payload = await router.signPayload(base)
    const zero = '0x0000000000000000000000000000000000000000'
    const built = await build(injectAt(payload, knobPath(PAD, 'payoutRecipient')!, zero))
    expect(built.api.payoutRecipientOverride).toBe(zero)
    expect(
      refusesKnob(await router.draft({ ...base, payoutRecipient: zero }), 'payoutRecipient'),
    ).toBe(true)
  })

  test('startingMarketCap, which createCoinCall never sends, is reported ignored', async () => {
    const draft = await router.draft({
      ...defaultIntent(capabilities, 8453),
      startingMarketCap: 'HIGH',
    })
    expect(draft.ok).toBe(true)
    expect(draft.warnings).toContainEqual(
      expect.objectContaining({ code: 'knob_ignored', field: 'startingMarketCap' }),
    )
  })

  test('whatever the SDK refuses just outside a published rule, draft_intent refuses', async () => {
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
      expect(
        refusesKnob(await router.draft({ ...base, [knob]: value }), knob),
        `${knob} = ${value}`,
      ).toBe(true)
    }
    expect(refusedBySdk).toBeGreaterThan(0)
  })
})
