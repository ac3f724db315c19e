import { isRefusal, type Refusal } from '@agents/service-kit'
import { type Abi, encodeFunctionData, type Hex } from 'viem'
import type { NormalizedIntent } from '../intent/draft-intent.ts'
import { conditionHolds } from '../matrix/condition.ts'
import { STOCK_FIELD } from '../matrix/load-matrix.ts'
import type { Pad } from '../matrix/pad.ts'
import { resolveTemplate, type TemplateContext } from '../matrix/template.ts'
import { coerceAbiValue, toJsonSafe } from './coerce-abi-args.ts'
import type { MiningCharge, SaltMiner } from './mine-salt-cached.ts'
import { saltSeed } from './salt-seed.ts'

export type SignPayload = Record<string, unknown> & { kind: Pad['kind']; pad: string }

export type BuildSignPayloadResult =
  | { ok: true; payload: SignPayload }
  | { ok: false; reason: 'iteration_cap' | 'time_budget'; tried: number }
  /** A new salt refused by the client's spent mining budget (`MiningCharge`). */
  | Refusal<429>

const templateContext = (pad: Pad, intent: NormalizedIntent, now: number): TemplateContext => {
  const { knobs, ...core } = intent
  const validFor = pad.validFor?.seconds
  const ticker = knobs[STOCK_FIELD] as string | undefined
  const address = ticker ? pad.stockAllowlist?.[ticker] : undefined
  return {
    intent: core,
    knobs,
    ...(ticker && address ? { stock: { ticker, address } } : {}),
    ...(pad.kind === 'party-factory' && pad.payload.pinned ? { pinned: pad.payload.pinned } : {}),
    ...(validFor === undefined ? {} : { time: { now, validFor, validUntil: now + validFor } }),
  }
}

/**
 * Builds the payload the user's wallet signs, per pad kind. Nothing here
 * touches a network or a key: every address and constant comes from the
 * matrix, and the salt is mined locally.
 *
 * Synchronous for the kinds that mine nothing: an await chain costs about a
 * quarter of a small request on these machines (bench/README.md).
 */
export const buildSignPayload = (
  { mineSalt }: { mineSalt: SaltMiner },
  {
    pad,
    intent,
    chargeMining,
    now,
  }: {
    pad: Pad
    intent: NormalizedIntent
    /** What a newly mined salt costs the client (a remembered one costs nothing). */
    chargeMining?: MiningCharge | undefined
    /** Unix seconds of the answer, for pads whose payload holds a time (`validFor`). */
    now: number
  },
): BuildSignPayloadResult | Promise<BuildSignPayloadResult> => {
  const context = templateContext(pad, intent, now)
  const head = { kind: pad.kind, pad: pad.id, chainId: intent.chainId }
  switch (pad.kind) {
    case 'sdk-deploy':
      return {
        ok: true,
        payload: {
          ...head,
          sdk: pad.payload.sdk,
          // Where JSON cannot carry the SDK's types: the caller converts these paths of config.
          bigints: pad.payload.bigints ?? [],
          ...(pad.payload.publicKeys ? { publicKeys: pad.payload.publicKeys } : {}),
          config: resolveTemplate(pad.payload.config, context),
        },
      }
    case 'simulate-api': {
      const { request } = pad.payload
      const body = resolveTemplate(request.body, context) as Record<string, unknown>
      // The kind's promise, whatever the pad data says: the request only simulates.
      return {
        ok: true,
        payload: { ...head, request: { ...request, body: { ...body, simulateOnly: true } } },
      }
    }
    case 'party-factory':
      return buildFactoryPayload(mineSalt, chargeMining, pad, intent, context, head)
    default:
      throw new Error(`unknown pad kind ${(pad as { kind: string }).kind}`)
  }
}

const buildFactoryPayload = async (
  mineSalt: SaltMiner,
  chargeMining: MiningCharge | undefined,
  pad: Extract<Pad, { kind: 'party-factory' }>,
  intent: NormalizedIntent,
  context: TemplateContext,
  head: { kind: Pad['kind']; pad: string; chainId: NormalizedIntent['chainId'] },
): Promise<BuildSignPayloadResult> => {
  const { salt: settings, abi, args, value, to } = pad.payload
  if (!settings || !to)
    throw new Error(`pad ${pad.id} has no salt settings; only wired pads are built`)
  const variant = settings.variants?.find((candidate) =>
    conditionHolds(candidate.when, intent.knobs),
  )
  const deployer = settings.deployer as Hex
  const initCodeHash = (variant?.initCodeHash ?? settings.initCodeHash) as Hex
  const rule = variant?.rule ?? settings.rule
  const mined = await mineSalt(
    { deployer, initCodeHash, rule, seed: saltSeed(intent) },
    chargeMining,
  )
  if (isRefusal(mined)) return mined
  if (!mined.ok) return { ok: false, reason: mined.reason, tried: mined.tried }

  const fragment = abi[0]!
  const resolved = resolveTemplate(args, { ...context, salt: mined.salt }) as unknown[]
  const typedArgs = fragment.inputs.map((input, index) =>
    coerceAbiValue(input as never, resolved[index]),
  )
  const data = encodeFunctionData({
    abi: abi as unknown as Abi,
    functionName: fragment.name,
    args: typedArgs,
  })
  return {
    ok: true,
    payload: {
      ...head,
      to,
      functionName: fragment.name,
      args: toJsonSafe(typedArgs),
      data,
      value: BigInt(resolveTemplate(value, context) as string).toString(),
      salt: {
        value: mined.salt,
        rule,
        deployer,
        initCodeHash,
        predictedAddress: mined.predictedAddress,
        iterations: mined.iterations,
      },
    },
  }
}
