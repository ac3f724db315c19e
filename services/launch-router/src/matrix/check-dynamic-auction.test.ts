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
