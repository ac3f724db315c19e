import type { PublicKey } from '@solana/web3.js'

/**
 * What an sdk-deploy payload carries besides `config`: the paths of config
 * whose values the SDK types as `bigint` (JSON integers or decimal strings)
 * or, on Solana, as `PublicKey` (base58 strings). A path is dotted keys, `*`
 * for every item of an array: `pool.curves.*.shares`.
 */
export type ConvertiblePayload = {
  config: unknown
  bigints?: readonly string[]
  publicKeys?: readonly string[]
}

type Mutable<value> = value extends readonly (infer item)[]
  ? Mutable<item>[]
  : value extends object
    ? { -readonly [key in keyof value]: Mutable<value[key]> }
    : value
type Split<path extends string> = path extends `${infer head}.${infer rest}`
  ? [head, ...Split<rest>]
  : [path]
type SetAt<value, path extends readonly string[], to> = path extends readonly [
  infer head extends string,
  ...infer rest extends string[],
]
  ? head extends '*'
    ? value extends readonly (infer item)[]
      ? SetAt<item, rest, to>[]
      : value
    : value extends object
      ? { [key in keyof value]: key extends head ? SetAt<value[key], rest, to> : value[key] }
      : value
  : to
type SetAll<value, paths, to> = paths extends readonly [
  infer path extends string,
  ...infer rest extends readonly string[],
]
  ? SetAll<SetAt<value, Split<path>, to>, rest, to>
  : value
type PathsOf<payload, key extends string> = payload extends { [k in key]: infer paths } ? paths : []

/** The type `reviveConfig` returns for a payload literal (`as const`): JSON made mutable, marked paths converted. */
export type RevivedConfig<payload extends ConvertiblePayload> = SetAll<
  SetAll<Mutable<payload['config']>, PathsOf<payload, 'bigints'>, bigint>,
  PathsOf<payload, 'publicKeys'>,
  PublicKey
>

const convertAt = (value: unknown, path: string[], convert: (leaf: unknown) => unknown): void => {
  const [head, ...rest] = path
  if (head === undefined || typeof value !== 'object' || value === null) return
  const keys = head === '*' ? (Array.isArray(value) ? value.keys() : []) : [head]
  const record = value as Record<string | number, unknown>
  for (const key of keys) {
    if (!(key in record) || record[key] === undefined) continue
    if (rest.length === 0) record[key] = convert(record[key])
    else convertAt(record[key], rest, convert)
  }
}

/**
 * The documented conversion from a sign payload's JSON `config` to the SDK's
 * typed argument: BigInt(value) at every `bigints` path, toPublicKey(value)
 * (`new PublicKey(value)` from @solana/web3.js) at every `publicKeys` path;
 * an absent value stays absent. The payload itself is not changed.
 */
export const reviveConfig = <const payload extends ConvertiblePayload>(
  payload: payload,
  { toPublicKey }: { toPublicKey?: (base58: string) => PublicKey } = {},
): RevivedConfig<payload> => {
  const config = structuredClone(payload.config)
  for (const path of payload.bigints ?? [])
    convertAt(config, path.split('.'), (leaf) => BigInt(leaf as string | number))
  for (const path of payload.publicKeys ?? []) {
    if (!toPublicKey) throw new Error('this payload has publicKeys: pass toPublicKey')
    convertAt(config, path.split('.'), (leaf) => toPublicKey(leaf as string))
  }
  return config as RevivedConfig<payload>
}
