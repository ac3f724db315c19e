import { callOperation, useTestRouter } from '@agents/launch-router/testing'
import fc from 'fast-check'
import { expect } from 'vitest'
import { withAirlockOwner } from './airlock-owner.ts'
import {
  boundaryValues,
  knobArbitrary,
  nearMisses,
  type PublishedKnob,
  sampleValue,
} from './knob-samples.ts'

export type Capabilities = {
  pad: string
  kind: string
  status: string
  chains: (number | string)[]
  knobs: PublishedKnob[]
  limits: { nameMaxLength: number; nameMaxBytes?: number; symbolMaxLength: number }
  airlockOwners?: Record<string, { address: string }>
}

export type Intent = Record<string, unknown> & {
  pad: string
  name: string
  symbol: string
  chainId: number | string
  creator: string
}

export type IntentIssue = { code: string; field: string; message: string }
export type Draft = { ok: boolean; errors: IntentIssue[]; warnings: IntentIssue[] }
export type SignPayload = Record<string, unknown> & { kind: string; pad: string }

export const CREATOR = '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045'
/** An ed25519 wallet key (on the curve), base58: the creator on Solana chains. */
export const SOLANA_CREATOR = '9arWkU5e559ySikDWc2ydBC3H37KDa26KsRG1v1a6gGA'

/** The creator an intent on `chainId` carries: base58 on Solana, EIP-55 elsewhere. */
export const creatorFor = (chainId: number | string) =>
  typeof chainId === 'string' && chainId.startsWith('solana:') ? SOLANA_CREATOR : CREATOR

/** The real router on an ephemeral port for one test file, with typed calls to its operations. */
export const useConformanceRouter = () => {
  const handle = useTestRouter()
  const call = async (operation: string, body: unknown) => {
    const { status, json } = await callOperation(handle.server, operation, body)
    return { status, json: json as Record<string, unknown> }
  }
  return {
    /** list_pads' answer. */
    list: async () => (await call('list_pads', {})).json,
    capabilities: async (pad: string) => {
      const { status, json } = await call('get_capabilities', { pad })
      expect(status).toBe(200)
      return json as unknown as Capabilities
    },
    draft: async (intent: Record<string, unknown>) =>
      (await call('draft_intent', { intent })).json as unknown as Draft,
    /** The sign payload for an intent the router must accept. */
    signPayload: async (intent: Record<string, unknown>) => {
      const { status, json } = await call('get_sign_payload', { intent })
      if (status !== 200)
        throw new Error(`router refused ${JSON.stringify(intent)}: ${JSON.stringify(json)}`)
      return json.payload as SignPayload
    },
  }
}

/** The knobs an intent may carry on a chain and that the router reports as used there. */
export const usedKnobs = (capabilities: Capabilities, chainId: number | string) =>
  capabilities.knobs.filter((knob) => knob.used && !knob.unusedOnChains?.includes(chainId))

/** A minimal intent: core fields and required knobs only. */
export const defaultIntent = (capabilities: Capabilities, chainId: number | string): Intent => {
  const intent: Intent = {
    pad: capabilities.pad,
    name: 'Conformance Token',
    symbol: 'CONF',
    chainId,
    creator: creatorFor(chainId),
  }
  for (const knob of capabilities.knobs)
    if (knob.required && knob.used) intent[knob.name] = sampleValue(knob)
  return intent
}

export type IntentCase = { label: string; intent: Intent }

/** Rules across a knob's items that get_capabilities states beside the knobs (Doppler's Airlock owner). */
const withPadRules = (capabilities: Capabilities, intent: Intent): Intent => {
  const owner = capabilities.airlockOwners?.[String(intent.chainId)]
  if (!owner || !Array.isArray(intent.beneficiaries)) return intent
  return { ...intent, beneficiaries: withAirlockOwner(owner.address, intent.beneficiaries) }
}

/**
 * Intents generated from get_capabilities: defaults on every chain, every
 * used knob at a valid value, every boundary (min, max, max length, item
 * counts, each enum value), and the longest name and symbol.
 */
export const intentCases = (capabilities: Capabilities): IntentCase[] => {
  const cases: IntentCase[] = []
  for (const chain of capabilities.chains) {
    cases.push({ label: `defaults on chain ${chain}`, intent: defaultIntent(capabilities, chain) })
  }
  const [first] = capabilities.chains
  const base = defaultIntent(capabilities, first!)
  cases.push({
    label: 'longest name and symbol',
    intent: {
      ...base,
      name: 'N'.repeat(capabilities.limits.nameMaxLength),
      symbol: 'S'.repeat(capabilities.limits.symbolMaxLength),
    },
  })
  for (const knob of usedKnobs(capabilities, first!)) {
    cases.push({ label: `${knob.name} valid`, intent: { ...base, [knob.name]: sampleValue(knob) } })
    boundaryValues(knob).forEach((value, index) => {
      cases.push({
        label: `${knob.name} boundary #${index}`,
        intent: { ...base, [knob.name]: value },
      })
    })
  }
  return cases.map(({ label, intent }) => ({ label, intent: withPadRules(capabilities, intent) }))
}

/** Random valid intents: any listed chain, any subset of the knobs used there, random values. */
export const intentArbitrary = (capabilities: Capabilities): fc.Arbitrary<Intent> =>
  fc.constantFrom(...capabilities.chains).chain((chainId) => {
    const knobs = usedKnobs(capabilities, chainId)
    const shape = Object.fromEntries(knobs.map((knob) => [knob.name, knobArbitrary(knob)]))
    const requiredKeys = knobs.filter((knob) => knob.required).map((knob) => knob.name)
    return fc
      .tuple(
        fc.record(shape, { requiredKeys }),
        fc
          .stringMatching(/^[A-Za-z][A-Za-z0-9 ]{0,30}[A-Za-z0-9]$/)
          .map((name) => name.slice(0, capabilities.limits.nameMaxLength).trim()),
        fc
          .stringMatching(/^[A-Z][A-Z0-9]{0,9}$/)
          .map((symbol) => symbol.slice(0, capabilities.limits.symbolMaxLength)),
      )
      .map(([knobValues, name, symbol]) =>
        withPadRules(capabilities, {
          ...defaultIntent(capabilities, chainId),
          name,
          symbol,
          ...knobValues,
        }),
      )
  })

/**
 * Runs `build` with every network door shut: fetch throws. A viem client
 * given to the SDK uses `offlineTransport` (see offline-client.ts).
 */
export const withoutNetwork = async <result>(build: () => Promise<result>): Promise<result> => {
  const original = globalThis.fetch
  globalThis.fetch = (async (input: unknown) => {
    throw new Error(`network call attempted: ${String(input)}`)
  }) as typeof fetch
  try {
    return await build()
  } finally {
    globalThis.fetch = original
  }
}

/** For every used knob, each value just outside its published rules. */
export const nearMissCases = (capabilities: Capabilities, chainId: number | string) =>
  usedKnobs(capabilities, chainId).flatMap((knob) =>
    nearMisses(knob).map((value) => ({ knob: knob.name, value })),
  )

/** Whether draft_intent refused a knob with `knob_invalid`. */
export const refusesKnob = (draft: Draft, knob: string) =>
  draft.errors.some(
    (error) =>
      error.code === 'knob_invalid' && (error.field === knob || error.field.startsWith(`${knob}.`)),
  )

/** fast-check runs per property: the default keeps `npm test` fast; PAD_CONFORMANCE_RUNS raises it. */
export const propertyRuns = (fallback: number) =>
  Number(process.env.PAD_CONFORMANCE_RUNS) > 0 ? Number(process.env.PAD_CONFORMANCE_RUNS) : fallback
