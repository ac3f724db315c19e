import { createRequire } from 'node:module'
import type { BorshInstructionCoder as Coder } from '@coral-xyz/anchor'
import type * as PumpSdk from '@pump-fun/pump-sdk'
import type * as Web3 from '@solana/web3.js'
import fc from 'fast-check'
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
import { reviveConfig } from './revive-config.ts'

// pump-sdk 2.0.0's ESM entry fails under Node 20 (a dependency imports a named BN from
// @coral-xyz/anchor, a CommonJS module): the CommonJS entry, as the SDK's own tests use it.
const require = createRequire(import.meta.url)
const { PUMP_SDK, PUMP_PROGRAM_ID, pumpIdl } = require('@pump-fun/pump-sdk') as typeof PumpSdk
const { Keypair, PublicKey, TransactionMessage, VersionedTransaction } =
  require('@solana/web3.js') as typeof Web3
const { BorshInstructionCoder } = require('@coral-xyz/anchor') as {
  BorshInstructionCoder: typeof Coder
}

const PAD = 'pumpfun'
const MAINNET = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'
const router = useConformanceRouter()
const coder = new BorshInstructionCoder(pumpIdl as never)
// A Solana transaction is at most 1232 bytes (PACKET_DATA_SIZE).
const PACKET_DATA_SIZE = 1232

/**
 * PUMP_SDK is the SDK's offline instance: createV2Instruction builds the
 * create_v2 instruction from its IDL with no connection. The caller's part is
 * the mint: a fresh keypair, which signs the transaction too.
 */
const build = async (payload: SignPayload) => {
  expect(payload).toMatchObject({ kind: 'sdk-deploy', pad: PAD })
  const mint = Keypair.generate().publicKey
  const config = reviveConfig(payload as never, { toPublicKey: (key) => new PublicKey(key) })
  const instruction = await withoutNetwork(() =>
    PUMP_SDK.createV2Instruction({
      ...(config as Parameters<typeof PUMP_SDK.createV2Instruction>[0]),
      mint,
    }),
  )
  const decoded = coder.decode(instruction.data)
  if (!decoded) throw new Error('the instruction does not decode with the pump IDL')
  // The whole create fits one transaction (v0 message, a placeholder blockhash, two signatures).
  const message = new TransactionMessage({
    payerKey: new PublicKey((payload.config as { user: string }).user),
    recentBlockhash: PublicKey.default.toBase58(),
    instructions: [instruction],
  }).compileToV0Message()
  const size = new VersionedTransaction(message).serialize().length
  return { instruction, decoded, mint, size }
}

const expectCarries = (intent: Intent, built: Awaited<ReturnType<typeof build>>) => {
  const { instruction, decoded, mint, size } = built
  expect(instruction.programId.equals(PUMP_PROGRAM_ID)).toBe(true)
  expect(intent.chainId).toBe(MAINNET)
  expect(decoded.name).toBe('create_v2')
  const data = decoded.data as Record<string, unknown>
  const used = new Set(usedKnobs(capabilities, intent.chainId).map((knob) => knob.name))
  expect(data.name).toBe(intent.name.trim())
  expect(data.symbol).toBe(intent.symbol)
  expect(data.uri).toBe(intent.uri)
  expect((data.creator as Web3.PublicKey).toBase58()).toBe(intent.creator)
  expect(data.is_mayhem_mode).toBe(used.has('mayhemMode') ? (intent.mayhemMode ?? false) : false)
  // The IDL's one-field tuple structs decode as { 0: value }.
  expect(Object.values(data.is_cashback_enabled as object)).toEqual([false])
  expect(Object.values(data.is_holder_reward as object)).toEqual([false])
  expect(Object.values(data.creator_fee_bps as object).map(String)).toEqual(['0'])
  // The creator signs and pays (user); the mint signs.
  const signers = instruction.keys.filter((key) => key.isSigner).map((key) => key.pubkey.toBase58())
  expect(signers.sort()).toEqual([intent.creator, mint.toBase58()].sort())
  expect(size).toBeLessThanOrEqual(PACKET_DATA_SIZE)
}

let capabilities: Capabilities
beforeAll(async () => {
  capabilities = await router.capabilities(PAD)
})

describe('pumpfun payloads through @pump-fun/pump-sdk 2.0.0 PUMP_SDK.createV2Instruction, offline', () => {
  test('the pad names @pump-fun/pump-sdk 2.0.0, the version installed here', async () => {
    const payload = await router.signPayload(defaultIntent(capabilities, MAINNET))
    expect(payload.sdk).toMatchObject({
      package: '@pump-fun/pump-sdk',
      version: installedVersion('@pump-fun/pump-sdk'),
    })
    expect(payload).toMatchObject({
      chainId: MAINNET,
      bigints: [],
      publicKeys: ['creator', 'user'],
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

  test('the longest name in four-byte characters (32 bytes), symbol and URI still fit one transaction', async () => {
    const base = defaultIntent(capabilities, MAINNET)
    expect(capabilities.limits.nameMaxBytes).toBe(32)
    const intent = {
      ...base,
      name: '\u{1F680}'.repeat(32 / 4),
      symbol: 'S'.repeat(capabilities.limits.symbolMaxLength),
      uri: `https://example.com/${'x'.repeat(200 - 'https://example.com/'.length)}`,
      mayhemMode: true,
    }
    expectCarries(intent, await build(await router.signPayload(intent)))
  })

  test('random valid intents build and carry every used knob', async () => {
    await fc.assert(
      fc.asyncProperty(intentArbitrary(capabilities), async (intent) => {
        expectCarries(intent, await build(await router.signPayload(intent)))
      }),
      { numRuns: propertyRuns(40) },
    )
  })

  test('whatever breaks the SDK or the transaction just outside a published rule, draft_intent refuses', async () => {
    const base = defaultIntent(capabilities, MAINNET)
    const payload = await router.signPayload(base)
    for (const { knob, value } of nearMissCases(capabilities, MAINNET)) {
      const path = knobPath(PAD, knob)
      if (!path) continue
      const built = await build(injectAt(payload, path, value)).then(
        (result) => result,
        () => undefined,
      )
      // The SDK encodes any string; past the rules it either fails or no longer fits a transaction.
      if (built && built.size <= PACKET_DATA_SIZE && knob !== 'uri') continue
      expect(
        refusesKnob(await router.draft({ ...base, [knob]: value }), knob),
        `${knob} = ${value}`,
      ).toBe(true)
    }
  })

  test('a name over 32 bytes is name_invalid though the SDK encodes it: create_v2 fails NameTooLong (6043)', async () => {
    const base = defaultIntent(capabilities, MAINNET)
    const payload = await router.signPayload(base)
    const name = '\u{1F680}'.repeat(9) // 9 characters, 36 bytes
    const built = await build(injectAt(payload, ['config', 'name'], name))
    expect((built.decoded.data as { name: string }).name).toBe(name)
    const draft = await router.draft({ ...base, name })
    expect(draft.errors).toEqual([
      expect.objectContaining({
        code: 'name_invalid',
        field: 'name',
        message: expect.stringMatching(/32 bytes/),
      }),
    ])
    expect((await router.draft({ ...base, name: 'n'.repeat(32) })).errors).toEqual([])
  })

  test('a URI over 200 bytes in fewer characters is knob_invalid though the SDK encodes it: UriTooLong (6045)', async () => {
    const base = defaultIntent(capabilities, MAINNET)
    const payload = await router.signPayload(base)
    const uri = `https://example.com/${'\u00e9'.repeat(100)}` // 120 characters, 220 bytes
    await build(injectAt(payload, ['config', 'uri'], uri))
    expect(refusesKnob(await router.draft({ ...base, uri }), 'uri')).toBe(true)
  })

  test('creatorFeeBps, which a SOL-quoted create_v2 ignores, is reported ignored', async () => {
    const draft = await router.draft({
      ...defaultIntent(capabilities, MAINNET),
      creatorFeeBps: 100,
    })
    expect(draft.ok).toBe(true)
    expect(draft.warnings).toContainEqual(
      expect.objectContaining({ code: 'knob_ignored', field: 'creatorFeeBps' }),
    )
  })
})
