import type { KnobType } from '@agents/launch-router/testing'
import fc from 'fast-check'
import { getAddress, toHex } from 'viem'

/** A knob as get_capabilities publishes it. */
export type PublishedKnob = KnobType & {
  name: string
  used: boolean
  required?: boolean
  unusedOnChains?: (number | string)[]
}

type ObjectType = Extract<KnobType, { type: 'object' }>
type Value = unknown

const SAMPLE_ADDRESS = '0x00000000000000000000000000000000000000b2'

const urlFor = (schemes: string[] | undefined, path = 'token') => {
  const scheme = schemes?.[0] ?? 'https'
  return scheme === 'ipfs' ? `ipfs://bafy${path}` : `${scheme}://example.com/${path}`
}

/** A URL of exactly `length` characters in the knob's first scheme. */
const longestUrl = (schemes: string[] | undefined, length: number) => {
  const head = urlFor(schemes, '')
  return head + 'x'.repeat(Math.max(length - head.length, 1))
}

type IntegerType = Extract<KnobType, { type: 'integer' }>

/** An integer knob's upper bound now: `max`, or `maxFromNow` seconds after this clock if lower. */
const integerMax = (knob: IntegerType) =>
  knob.maxFromNow === undefined
    ? knob.max
    : Math.min(knob.max ?? Number.MAX_SAFE_INTEGER, Math.floor(Date.now() / 1000) + knob.maxFromNow)

/** The lowest and highest values an integer knob accepts (multiples of `multipleOf` inside min..max). */
const integerBounds = (knob: IntegerType): [number, number] => {
  const step = knob.multipleOf ?? 1
  const lowest = Math.ceil((knob.min ?? 0) / step) * step
  const max = integerMax(knob)
  const highest = max === undefined ? lowest : Math.floor(max / step) * step
  return [lowest + 0, highest + 0]
}

/** Smallest value in a number knob's range that its own rules accept. */
const lowestNumber = (knob: Extract<KnobType, { type: 'number' }>) => {
  const step = knob.integerTimes ? 1 / knob.integerTimes : 1e-6
  if (knob.min !== undefined) return knob.min
  if (knob.exclusiveMin !== undefined) return knob.exclusiveMin + step
  return 0
}

/** Whether an object value meets its knob's cross-field rules (`lessThan`, `conditional`). */
const meetsObjectRules = (knob: ObjectType, value: Record<string, unknown>) =>
  (knob.lessThan ?? []).every(
    ({ field, than }) =>
      typeof value[field] !== 'number' ||
      typeof value[than] !== 'number' ||
      (value[field] as number) < (value[than] as number),
  )

/** A deterministic string that matches a knob's pattern (fast-check, fixed seed). */
const matching = (pattern: string, seed = 1) =>
  fc.sample(fc.stringMatching(new RegExp(pattern)), { numRuns: 1, seed })[0]!

/** One valid value, deterministic: required fields only, each at its simplest. */
export const sampleValue = (knob: KnobType): Value => {
  switch (knob.type) {
    case 'string':
      if (knob.pattern) return matching(knob.pattern)
      return 'x'.repeat(Math.max(knob.minLength ?? 0, 1))
    case 'url':
      return urlFor(knob.schemes)
    case 'integer':
      return integerBounds(knob)[0]
    case 'number':
      return lowestNumber(knob) + (knob.max !== undefined ? 0 : 1)
    case 'boolean':
      return true
    case 'enum':
      return knob.values[0]
    case 'address':
      return SAMPLE_ADDRESS
    case 'object': {
      const value: Record<string, unknown> = {}
      for (const [name, property] of Object.entries(knob.properties))
        if (property.required) value[name] = sampleValue(property)
      return repairObject(knob, value, undefined)
    }
    case 'array': {
      const count = Math.max(knob.minItems ?? 0, knob.sumOf ? 1 : 0)
      const items = Array.from({ length: count }, () => sampleValue(knob.items))
      return knob.sumOf ? spread(items, knob.sumOf, [1]) : items
    }
  }
}

/** Fixes cross-field rules after one property was set, never touching that property. */
const repairObject = (
  knob: ObjectType,
  value: Record<string, unknown>,
  varied: string | undefined,
): Record<string, unknown> => {
  const out = { ...value }
  for (const { field, than } of knob.lessThan ?? []) {
    if (meetsObjectRules({ ...knob, lessThan: [{ field, than }] }, out)) continue
    const highest = knob.properties[than]
    const lowest = knob.properties[field]
    if (varied !== than && highest && 'max' in highest && highest.max !== undefined)
      out[than] = highest.max
    else if (varied !== field && lowest && 'min' in lowest && lowest.min !== undefined)
      out[field] = lowest.min
  }
  for (const rule of knob.conditional ?? []) {
    if (!rule.when.in.includes(out[rule.when.field] as never)) continue
    if (varied !== rule.field) {
      out[rule.field] = sampleValue(rule.type)
      continue
    }
    // The varied field keeps its edge value: move the switch to a case the rule does not cover.
    const switchField = knob.properties[rule.when.field]
    const other =
      switchField?.type === 'enum'
        ? switchField.values.find((value) => !rule.when.in.includes(value))
        : undefined
    if (other !== undefined) out[rule.when.field] = other
  }
  return out
}

type SumOf = NonNullable<Extract<KnobType, { type: 'array' }>['sumOf']>

/**
 * Gives the items' `sumOf.field` values that add up to the bound (`equals`, or `atMost`
 * exactly), in proportion to `weights`; a string bound gives decimal strings.
 */
const spread = (items: Value[], sumOf: SumOf, weights: number[]): Value[] => {
  const bound = sumOf.atMost ?? sumOf.equals!
  const used = items.map((_, index) => BigInt(weights[index] ?? 0))
  const total = used.reduce((sum, weight) => sum + weight, 0n)
  const whole = BigInt(bound)
  // Zero shares stay out: the SDKs refuse an item with nothing (Doppler: "must be positive").
  const shares =
    total === 0n
      ? used.map((_, index) => (index === 0 ? whole : 0n))
      : used.map((weight) => (whole * weight) / total)
  const rest = whole - shares.reduce((sum, share) => sum + share, 0n)
  shares[shares.length - 1]! += rest
  return items.map((item, index) => ({
    ...(item as object),
    [sumOf.field]: typeof bound === 'string' ? shares[index]!.toString() : Number(shares[index]),
  }))
}

/** Item values that break `sumOf`: each item 1 (a wrong total), or over an `atMost` bound. */
const breakSum = (items: Value[], sumOf: SumOf): Value[] => {
  if (sumOf.atMost === undefined)
    return items.map((item) => ({
      ...(item as object),
      [sumOf.field]: typeof sumOf.equals === 'string' ? '1' : 1,
    }))
  const over = (BigInt(sumOf.atMost) + 1n).toString()
  return items.map((item, index) => ({
    ...(item as object),
    [sumOf.field]: index === 0 ? over : '1',
  }))
}

/** Every boundary of a knob: min, max, max length, min and max items, each enum value. */
export const boundaryValues = (knob: KnobType): Value[] => {
  switch (knob.type) {
    case 'string':
      if (knob.pattern) return [matching(knob.pattern, 1), matching(knob.pattern, 2)]
      return [
        'x'.repeat(Math.max(knob.minLength ?? 0, 1)),
        ...(knob.maxLength ? ['x'.repeat(knob.maxLength)] : []),
      ]
    case 'url':
      return [
        ...(knob.schemes ?? ['https']).map((scheme) => urlFor([scheme], 'edge')),
        ...(knob.maxLength ? [longestUrl(knob.schemes, knob.maxLength)] : []),
      ]
    case 'integer': {
      const [lowest, highest] = integerBounds(knob)
      return [lowest, ...(integerMax(knob) !== undefined ? [highest] : [])]
    }
    case 'number':
      return [lowestNumber(knob), ...(knob.max !== undefined ? [knob.max] : [])]
    case 'boolean':
      return [true, false]
    case 'enum':
      return knob.values
    case 'address':
      return [SAMPLE_ADDRESS, '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045']
    case 'object': {
      const base = sampleValue(knob) as Record<string, unknown>
      const out: Value[] = []
      for (const [name, property] of Object.entries(knob.properties)) {
        for (const edge of boundaryValues(property)) {
          const candidate = repairObject(knob, { ...base, [name]: edge }, name)
          if (meetsObjectRules(knob, candidate)) out.push(candidate)
        }
      }
      return out
    }
    case 'array': {
      const sizes = [...new Set([knob.minItems ?? 0, knob.maxItems ?? 3])].filter(
        (size) => !knob.sumOf || size > 0,
      )
      return sizes.map((size) => {
        const items = uniqueSamples(knob, size)
        return knob.sumOf
          ? spread(
              items,
              knob.sumOf,
              items.map(() => 1),
            )
          : items
      })
    }
  }
}

/** `size` valid items, distinct in `uniqueBy` when the knob asks for it. */
const uniqueSamples = (knob: Extract<KnobType, { type: 'array' }>, size: number): Value[] => {
  const edges = boundaryValues(knob.items)
  return Array.from({ length: size }, (_, index) => {
    const item = sampleValue(knob.items) as Record<string, unknown>
    if (!knob.uniqueBy || knob.items.type !== 'object') return edges[index % edges.length]
    const field = knob.items.properties[knob.uniqueBy]
    // Addresses have two boundary values: more items get distinct ones of their own.
    const choices =
      field?.type === 'address'
        ? Array.from({ length: size }, (_, n) =>
            getAddress(`0x${(n + 1).toString(16).padStart(40, '0')}`),
          )
        : field
          ? boundaryValues(field)
          : []
    return { ...item, [knob.uniqueBy]: choices[index % choices.length] }
  })
}

/** The least an array item's summed field may be (Clanker's reward bps: 1), as a weight. */
const itemMin = (knob: Extract<KnobType, { type: 'array' }>) => {
  const field = knob.items.type === 'object' ? knob.items.properties[knob.sumOf!.field] : undefined
  return field && 'min' in field && field.min !== undefined && field.min > 0 ? 1 : 0
}

const addressArbitrary = fc
  .uint8Array({ minLength: 20, maxLength: 20 })
  .filter((bytes) => bytes.some((byte) => byte !== 0))
  .map((bytes) => getAddress(toHex(bytes)))

const integerArbitrary = (min: number, max: number) =>
  fc.bigInt({ min: BigInt(min), max: BigInt(max) }).map(Number)

/** Random valid values of a knob, as the router's rules describe them. */
export const knobArbitrary = (knob: KnobType): fc.Arbitrary<Value> => {
  switch (knob.type) {
    case 'string':
      if (knob.pattern) return fc.stringMatching(new RegExp(knob.pattern))
      return fc.string({
        minLength: knob.minLength ?? 0,
        maxLength: Math.min(knob.maxLength ?? 64, 64),
      })
    case 'url':
      return fc
        .tuple(
          fc.constantFrom(...(knob.schemes ?? ['https'])),
          fc.stringMatching(/^[a-z0-9]{1,16}$/),
        )
        .map(([scheme, path]) => urlFor([scheme], path))
    case 'integer': {
      const step = knob.multipleOf ?? 1
      const [lowest, highest] = integerBounds({
        ...knob,
        min: knob.min ?? -(2 ** 31),
        max: integerMax(knob) ?? 2 ** 40,
      })
      return integerArbitrary(lowest / step, highest / step).map((units) => units * step)
    }
    case 'number': {
      const lowest = lowestNumber(knob)
      const highest = knob.max ?? lowest + 1e6
      const scale = Math.min(knob.integerTimes ?? 1e4, 1e4)
      return integerArbitrary(Math.ceil(lowest * scale), Math.floor(highest * scale))
        .map((units) => units / scale)
        .filter(
          (value) =>
            value >= lowest &&
            (knob.integerTimes === undefined || Number.isInteger(value * knob.integerTimes)),
        )
    }
    case 'boolean':
      return fc.boolean()
    case 'enum':
      return fc.constantFrom(...knob.values)
    case 'address':
      return addressArbitrary
    case 'object': {
      const shape = Object.fromEntries(
        Object.entries(knob.properties).map(([name, property]) => [name, knobArbitrary(property)]),
      )
      const requiredKeys = Object.entries(knob.properties)
        .filter(([, property]) => property.required)
        .map(([name]) => name)
      return fc
        .record(shape, { requiredKeys })
        .chain((value) => {
          const rule = (knob.conditional ?? []).find((candidate) =>
            candidate.when.in.includes(value[candidate.when.field] as never),
          )
          return rule
            ? knobArbitrary(rule.type).map((field) => ({ ...value, [rule.field]: field }))
            : fc.constant(value)
        })
        .filter((value) => meetsObjectRules(knob, value))
    }
    case 'array': {
      const constraints = { minLength: knob.minItems ?? 0, maxLength: knob.maxItems ?? 4 }
      const { uniqueBy, sumOf } = knob
      const items = uniqueBy
        ? fc.uniqueArray(knobArbitrary(knob.items), {
            ...constraints,
            selector: (item) => (item as Record<string, unknown>)[uniqueBy],
          })
        : fc.array(knobArbitrary(knob.items), constraints)
      if (!sumOf) return items
      return items
        .filter((list) => list.length > 0)
        .chain((list) =>
          fc
            // Decimal-string shares (WAD) are positive in the SDKs that take them: no zero weight.
            .array(
              fc.integer({ min: typeof sumOf.equals === 'number' ? itemMin(knob) : 1, max: 100 }),
              {
                minLength: list.length,
                maxLength: list.length,
              },
            )
            .map((weights) => spread(list, sumOf, weights)),
        )
    }
  }
}

/**
 * Values just outside a knob's published rules: one past each bound, the
 * exclusive minimum itself, a value the SDK cannot scale, a broken cross-field
 * rule. The router refuses all of them; the conformance tests check that
 * whatever the SDK refuses is among them.
 */
export const nearMisses = (knob: KnobType): Value[] => {
  switch (knob.type) {
    case 'string':
      return knob.maxLength ? ['x'.repeat(knob.maxLength + 1)] : []
    case 'url':
      return [
        ...(knob.schemes ?? ['https']).flatMap((scheme) => [
          `${scheme.toUpperCase()}://example.com/x`,
          `${scheme}:example.com/x`,
        ]),
        ...(knob.maxLength ? [longestUrl(knob.schemes, knob.maxLength + 1)] : []),
        // Within maxLength characters but over maxBytes: two-byte characters.
        ...(knob.maxBytes
          ? [urlFor(knob.schemes, '\u00e9'.repeat(Math.ceil(knob.maxBytes / 2)))]
          : []),
      ]
    case 'integer':
      return [
        ...(knob.min !== undefined ? [knob.min - 1] : []),
        ...(knob.max !== undefined ? [knob.max + 1] : []),
        // An hour past a bound relative to the clock: the router reads its clock a moment later.
        ...(knob.maxFromNow !== undefined ? [integerMax(knob)! + 3600] : []),
        (knob.min ?? 0) + 0.5,
        ...(knob.multipleOf && knob.multipleOf > 1 ? [integerBounds(knob)[0] + 1] : []),
      ]
    case 'number':
      return [
        ...(knob.min !== undefined ? [knob.min - 1 / (knob.integerTimes ?? 1e6)] : []),
        ...(knob.exclusiveMin !== undefined ? [knob.exclusiveMin] : []),
        ...(knob.max !== undefined ? [knob.max + 1] : []),
        ...(knob.integerTimes
          ? [
              lowestNumber(knob) + 1 / (3 * knob.integerTimes),
              Math.max(lowestNumber(knob), 0) + 0.29,
            ]
          : []),
      ]
    case 'address':
      return knob.notZero ? ['0x0000000000000000000000000000000000000000'] : []
    case 'object': {
      const base = sampleValue(knob) as Record<string, unknown>
      const out: Value[] = []
      for (const [name, property] of Object.entries(knob.properties))
        for (const miss of nearMisses(property)) out.push({ ...base, [name]: miss })
      for (const { field, than } of knob.lessThan ?? []) out.push({ ...base, [field]: base[than] })
      for (const rule of knob.conditional ?? [])
        out.push({ ...base, [rule.when.field]: rule.when.in[0], [rule.field]: 'not-valid' })
      return out
    }
    case 'array': {
      const items = boundaryValues(knob).at(-1) as Value[]
      const out: Value[] = []
      if (knob.maxItems !== undefined)
        out.push([
          ...items,
          ...Array.from({ length: knob.maxItems + 1 - items.length }, () => items[0]),
        ])
      if (knob.uniqueBy && items.length > 1) out.push([items[0], items[0]])
      if (knob.sumOf) out.push(breakSum(items, knob.sumOf))
      for (const miss of nearMisses(knob.items)) out.push([miss])
      return out
    }
    default:
      return []
  }
}
