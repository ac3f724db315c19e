import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { CHECKSUMMED, CREATOR, callOperation, useTestRouter } from '../testing.ts'
import { defaultPadsDirectory } from './load-matrix.ts'

/**
 * Conditions the pads' contracts and programs revert on that their SDKs do not
 * check offline (pads/conditions/*.md): each refused at draft_intent and at
 * get_sign_payload, the value just inside accepted.
 */
const router = useTestRouter()
const ZERO = '0x0000000000000000000000000000000000000000'
const SOLANA_CREATOR = '9arWkU5e559ySikDWc2ydBC3H37KDa26KsRG1v1a6gGA'
const now = () => Math.floor(Date.now() / 1000)
const DAY = 86_400

const intents: Record<string, Record<string, unknown>> = {
  'clanker-v4': { chainId: 8453, creator: CREATOR },
  'zora-coin': { chainId: 8453, creator: CREATOR, metadataUri: 'ipfs://bafymeta' },
  flaunch: { chainId: 8453, creator: CREATOR, image: 'aGVsbG8=' },
  pumpfun: {
    chainId: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    creator: SOLANA_CREATOR,
    uri: 'https://example.com/meta.json',
  },
}

type Issue = { code: string; field: string; message: string }
const draft = async (pad: string, fields: Record<string, unknown>) =>
  (
    await callOperation(router.server, 'draft_intent', {
      intent: { pad, name: 'Moon Cat', symbol: 'MCAT', ...intents[pad], ...fields },
    })
  ).json as { ok: boolean; errors: Issue[] }

const rewards = (...recipients: [string, string, number][]) => ({
  recipients: recipients.map(([admin, recipient, bps]) => ({
    admin,
    recipient,
    bps,
    token: 'Both',
  })),
})

describe('conditions a pad reverts on are refused before a payload is built', () => {
  test.each([
    // ClankerHookStaticFeeV2: each fee at most MAX_LP_FEE (100_000 uni-bps = 1000 bps).
    [
      'clanker-v4',
      { fees: { type: 'static', clankerFee: 1001, pairedFee: 100 } },
      'fees.clankerFee',
      /1000/,
    ],
    [
      'clanker-v4',
      { fees: { type: 'static', clankerFee: 100, pairedFee: 2000 } },
      'fees.pairedFee',
      /1000/,
    ],
    // ClankerLpLockerFeeConversion: ZeroRewardAmount, ZeroRewardAddress.
    [
      'clanker-v4',
      { rewards: rewards([CREATOR, CREATOR, 10_000], [CHECKSUMMED, CHECKSUMMED, 0]) },
      'rewards.recipients.1.bps',
      /1/,
    ],
    [
      'clanker-v4',
      { rewards: rewards([ZERO, CREATOR, 10_000]) },
      'rewards.recipients.0.admin',
      /zero address/,
    ],
    [
      'clanker-v4',
      { rewards: rewards([CREATOR, ZERO, 10_000]) },
      'rewards.recipients.0.recipient',
      /zero address/,
    ],
    // ClankerVault: InvalidVaultAdmin.
    [
      'clanker-v4',
      { vault: { percentage: 10, lockupDuration: 7 * DAY, recipient: ZERO } },
      'vault.recipient',
      /zero address/,
    ],
    // ContentCoin.initialize: AddressZero.
    ['zora-coin', { payoutRecipient: ZERO }, 'payoutRecipient', /zero address/],
    // MarketCappedPrice: MarketCapTooSmall below 1e6 (1 USD in USDC units).
    ['flaunch', { initialMarketCapUSD: 0.5 }, 'initialMarketCapUSD', />=1/],
    // Flaunch.sol: InvalidFlaunchSchedule beyond block time + 30 days.
    ['flaunch', { flaunchAt: now() + 30 * DAY }, 'flaunchAt', /seconds after the router's clock/],
    // create_v2: UriTooLong (6045), counted in bytes.
    ['pumpfun', { uri: `https://example.com/${'\u00e9'.repeat(91)}` }, 'uri', /200 bytes/],
  ])('%s %j is knob_invalid on %s', async (pad, fields, field, message) => {
    const json = await draft(pad, fields)
    expect(json.ok).toBe(false)
    expect(json.errors).toEqual([
      { code: 'knob_invalid', field, message: expect.stringMatching(message) },
    ])
    const signed = await callOperation(router.server, 'get_sign_payload', {
      intent: { pad, name: 'Moon Cat', symbol: 'MCAT', ...intents[pad], ...fields },
    })
    expect(signed.status).toBe(422)
  })

  test('pump.fun: a name over 32 bytes, though 9 characters, is name_invalid (create_v2 NameTooLong)', async () => {
    const json = await draft('pumpfun', { name: '\u{1F680}'.repeat(9) })
    expect(json.errors).toEqual([
      { code: 'name_invalid', field: 'name', message: 'name must be at most 32 bytes in UTF-8' },
    ])
    expect((await draft('pumpfun', { name: '\u{1F680}'.repeat(8) })).errors).toEqual([])
  })

  test.each([
    ['clanker-v4', { fees: { type: 'static', clankerFee: 1000, pairedFee: 1000 } }],
    ['clanker-v4', { rewards: rewards([CREATOR, CREATOR, 9_999], [CHECKSUMMED, CHECKSUMMED, 1]) }],
    ['clanker-v4', { vault: { percentage: 10, lockupDuration: 7 * DAY, recipient: CHECKSUMMED } }],
    ['zora-coin', { payoutRecipient: CHECKSUMMED }],
    ['flaunch', { initialMarketCapUSD: 1 }],
    ['flaunch', { flaunchAt: now() + 30 * DAY - 600 }],
    ['flaunch', { flaunchAt: now() - DAY }],
    ['pumpfun', { uri: `https://example.com/${'\u00e9'.repeat(90)}` }],
  ])('%s %j, just inside, passes and builds', async (pad, fields) => {
    expect((await draft(pad, fields)).errors).toEqual([])
    const signed = await callOperation(router.server, 'get_sign_payload', {
      intent: { pad, name: 'Moon Cat', symbol: 'MCAT', ...intents[pad], ...fields },
    })
    expect(signed.status).toBe(200)
  })

  test('get_capabilities publishes the rules an agent needs to stay inside them', async () => {
    const capabilities = async (pad: string) =>
      (await callOperation(router.server, 'get_capabilities', { pad })).json as {
        knobs: Record<string, unknown>[]
        limits: Record<string, number>
      }
    const pump = await capabilities('pumpfun')
    expect(pump.limits).toMatchObject({ nameMaxLength: 32, nameMaxBytes: 32 })
    expect(pump.knobs.find((knob) => knob.name === 'uri')).toMatchObject({ maxBytes: 200 })
    const flaunch = await capabilities('flaunch')
    expect(flaunch.knobs.find((knob) => knob.name === 'flaunchAt')).toMatchObject({
      maxFromNow: 30 * DAY - 300,
    })
    const zora = await capabilities('zora-coin')
    expect(zora.knobs.find((knob) => knob.name === 'payoutRecipient')).toMatchObject({
      notZero: true,
    })
  })
})

test('every pad in the matrix has its line in pads/conditions/README.md', async () => {
  const index = readFileSync(join(defaultPadsDirectory, 'conditions', 'README.md'), 'utf8')
  const { pads } = (await callOperation(router.server, 'list_pads', {})).json as {
    pads: { id: string }[]
  }
  expect(pads.length).toBeGreaterThan(5)
  for (const { id } of pads) expect(index, id).toContain(`| ${id} |`)
})
