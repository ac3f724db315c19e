import { base58 } from '@scure/base'
import { describe, expect, test } from 'vitest'
import { CHECKSUMMED, callOperation, useTestRouter } from '../testing.ts'

// Creators through HTTP: the same strictness and the same code (creator_invalid) on Solana as on EVM chains.
const router = useTestRouter()
const SOLANA = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'
// An ed25519 wallet key (on the curve).
const WALLET = '9arWkU5e559ySikDWc2ydBC3H37KDa26KsRG1v1a6gGA'
// pump.fun's global PDA: a real Solana address, off the curve, so it cannot sign.
const PDA = '4wTV1YmiEkRvAtNtsSGPtUrqRYQMe5SKy2uB4Jjaxnjf'

const pumpIntent = (creator: unknown) => ({
  pad: 'pumpfun',
  name: 'Moon Cat',
  symbol: 'MCAT',
  chainId: SOLANA,
  creator,
  uri: 'ipfs://bafymeta',
})
const draft = async (intent: Record<string, unknown>) =>
  (await callOperation(router.server, 'draft_intent', { intent })).json
const codes = (issues: Array<{ code: string; field: string }>) =>
  issues.map((issue) => `${issue.code}@${issue.field}`)

describe('creators on Solana chains', () => {
  test('a base58 wallet key is accepted as is and becomes creator and fee payer', async () => {
    const json = await draft(pumpIntent(WALLET))
    expect(json).toMatchObject({
      ok: true,
      errors: [],
      intent: { creator: WALLET, chainId: SOLANA },
    })
    const signed = await callOperation(router.server, 'get_sign_payload', {
      intent: pumpIntent(WALLET),
    })
    expect(signed.status).toBe(200)
    expect(signed.json.payload.config).toMatchObject({ creator: WALLET, user: WALLET })
  })

  test.each([
    ['a character outside base58 (0, O, I, l)', `${WALLET.slice(0, -2)}0l`],
    ['a 31-byte key', base58.encode(new Uint8Array(31).fill(7))],
    ['a 33-byte key', base58.encode(new Uint8Array(33).fill(7))],
    ['too long for any key', `${WALLET}A`],
    ['the zero key', '11111111111111111111111111111111'],
    ['an off-curve program-derived address', PDA],
    ['an EVM address', CHECKSUMMED],
    ['surrounding spaces', ` ${WALLET}`],
    ['a number', 12345],
    ['nothing', undefined],
  ])('%s is creator_invalid', async (_label, creator) => {
    const json = await draft(pumpIntent(creator))
    expect(json.ok).toBe(false)
    expect(codes(json.errors)).toEqual(['creator_invalid@creator'])
    const signed = await callOperation(router.server, 'get_sign_payload', {
      intent: pumpIntent(creator),
    })
    expect(signed.status).toBe(422)
    expect(codes(signed.json.errors)).toEqual(['creator_invalid@creator'])
  })

  test('an EVM address on Solana says which kind of address the chain takes', async () => {
    const json = await draft(pumpIntent(CHECKSUMMED))
    expect(json.errors[0].message).toMatch(
      /EVM address; solana:.* takes a base58 Solana public key/,
    )
  })

  test('a Solana key on an EVM pad is creator_invalid and says so', async () => {
    const json = await draft({
      pad: 'clanker-v4',
      name: 'Moon Cat',
      symbol: 'MCAT',
      chainId: 8453,
      creator: WALLET,
    })
    expect(codes(json.errors)).toEqual(['creator_invalid@creator'])
    expect(json.errors[0].message).toMatch(/looks like a Solana address/)
  })

  test('a Solana chain on an EVM pad: chain_not_listed, and the creator is judged as a Solana one', async () => {
    const json = await draft({
      pad: 'clanker-v4',
      name: 'Moon Cat',
      symbol: 'MCAT',
      chainId: SOLANA,
      creator: CHECKSUMMED,
    })
    expect(codes(json.errors).sort()).toEqual([
      'chain_not_listed@chainId',
      'creator_invalid@creator',
    ])
  })

  test('an EVM chain id on the Solana pad is chain_not_listed', async () => {
    const json = await draft({ ...pumpIntent(CHECKSUMMED), chainId: 8453 })
    expect(codes(json.errors)).toEqual(['chain_not_listed@chainId'])
  })
})
