import { describe, expect, test } from 'vitest'
import { CREATOR, callOperation, useTestRouter } from './testing.ts'

// The bounds the pads' SDKs enforce (packages/pad-conformance checks them against the SDKs themselves).
const router = useTestRouter()
const draft = async (intent: Record<string, unknown>) =>
  (await callOperation(router.server, 'draft_intent', { intent })).json
const intent = (pad: string, knobs: Record<string, unknown> = {}, chainId = 8453) => ({
  pad,
  name: 'Moon Cat',
  symbol: 'MCAT',
  chainId,
  creator: CREATOR,
  ...knobs,
})
const codes = (issues: Array<{ code: string; field: string }>) =>
  issues.map((issue) => `${issue.code}@${issue.field}`)

describe('draft_intent refuses what the pads SDKs refuse', () => {
  test.each([
    ['sniperFees', { startingFee: 29_999, endingFee: 29_000, secondsToDecay: 15 }],
    ['sniperFees', { startingFee: 500_000, endingFee: 500_000, secondsToDecay: 15 }],
    ['sniperFees', { startingFee: 500_000, endingFee: 40_000, secondsToDecay: 121 }],
    ['devBuy', { ethAmount: 2.5e-18 }],
  ])('clanker-v4 %s %j is knob_invalid', async (knob, value) => {
    const json = await draft(intent('clanker-v4', { [knob]: value }))
    expect(json.ok).toBe(false)
    expect(codes(json.errors).some((code: string) => code.startsWith(`knob_invalid@${knob}`))).toBe(
      true,
    )
  })

  test('clanker-v4 sniperFees is knob_ignored on Arbitrum, used on Base', async () => {
    const sniperFees = { startingFee: 500_000, endingFee: 40_000, secondsToDecay: 30 }
    const arbitrum = await draft(intent('clanker-v4', { sniperFees }, 42161))
    expect(arbitrum.ok).toBe(true)
    expect(codes(arbitrum.warnings)).toEqual(['knob_ignored@sniperFees'])
    expect(arbitrum.intent.sniperFees).toBeUndefined()
    const baseChain = await draft(intent('clanker-v4', { sniperFees }))
    expect(baseChain.intent.sniperFees).toEqual(sniperFees)
  })

  test('the zero address is not a creator', async () => {
    const json = await draft({ ...intent('clanker-v4'), creator: `0x${'0'.repeat(40)}` })
    expect(codes(json.errors)).toEqual(['creator_invalid@creator'])
  })

  test.each(['IPFS://bafy', 'https:example.com/x', 'HTTPS://example.com/x'])(
    'a URL without a literal lowercase scheme:// (%s) is knob_invalid',
    async (metadataUri) => {
      const json = await draft(intent('zora-coin', { metadataUri }))
      expect(codes(json.errors)).toEqual(['knob_invalid@metadataUri'])
    },
  )

  test('zora-coin startingMarketCap is knob_ignored and left out of the payload', async () => {
    const json = await draft(
      intent('zora-coin', { metadataUri: 'ipfs://bafy', startingMarketCap: 'HIGH' }),
    )
    expect(json.ok).toBe(true)
    expect(codes(json.warnings)).toEqual(['knob_ignored@startingMarketCap'])
  })

  test.each([
    ['creatorFeeAllocationPercent', 0.29],
    ['initialMarketCapUSD', 1e-7],
  ])('flaunch %s = %s, which the SDK cannot convert, is knob_invalid', async (knob, value) => {
    const json = await draft(intent('flaunch', { image: 'aW1n', [knob]: value }))
    // 1e-7 also breaks the 1-USD minimum: two reasons, one field.
    expect([...new Set(codes(json.errors))]).toEqual([`knob_invalid@${knob}`])
  })

  test('flaunch socials: one per platform, and each lands in its flaunchIPFS metadata field', async () => {
    const twice = await draft(
      intent('flaunch', {
        image: 'aW1n',
        socials: [
          { platform: 'x', url: 'https://x.com/a' },
          { platform: 'x', url: 'https://x.com/b' },
        ],
      }),
    )
    expect(codes(twice.errors)).toEqual(['knob_invalid@socials'])
    const { json } = await callOperation(router.server, 'get_sign_payload', {
      intent: intent('flaunch', {
        image: 'aW1n',
        socials: [
          { platform: 'website', url: 'https://moon.cat' },
          { platform: 'x', url: 'https://x.com/mooncat' },
        ],
      }),
    })
    expect(json.payload.config.metadata).toEqual({
      base64Image: 'aW1n',
      description: '',
      websiteUrl: 'https://moon.cat',
      twitterUrl: 'https://x.com/mooncat',
    })
  })

  test('bankr: a wallet fee recipient must be an EVM address; handles stay free text', async () => {
    const wallet = await draft(
      intent('bankr', { feeRecipient: { type: 'wallet', value: 'alice.eth' } }),
    )
    expect(codes(wallet.errors)).toEqual(['knob_invalid@feeRecipient.value'])
    const ens = await draft(intent('bankr', { feeRecipient: { type: 'ens', value: 'alice.eth' } }))
    expect(ens.ok).toBe(true)
  })
})
