import { isAddress } from 'viem'
import { z } from 'zod'

/**
 * The constraint language pads use to describe a knob's value. It is data
 * (JSON in the pad files), published as-is by get_capabilities, and compiled
 * to a zod validator at start-up.
 */
export type KnobType =
  | { type: 'string'; minLength?: number; maxLength?: number; pattern?: string }
  | {
      type: 'url'
      schemes?: string[]
      maxLength?: number
      /** At most this many UTF-8 bytes (a program that counts bytes: pump.fun's URI). */
      maxBytes?: number
    }
  | {
      type: 'integer'
      min?: number
      max?: number
      /** The value must be a multiple of this (e.g. a pool's tick spacing). */
      multipleOf?: number
      /**
       * A unix time (seconds) at most this many seconds after the router's clock when the intent
       * is checked (Flaunch's flaunchAt: Flaunch.sol refuses a schedule beyond block time + 30 days).
       */
      maxFromNow?: number
    }
  | {
      type: 'number'
      min?: number
      max?: number
      exclusiveMin?: number
      /** value × integerTimes must be an integer in JavaScript arithmetic (how the pad's SDK converts it). */
      integerTimes?: number
    }
  | { type: 'boolean' }
  | { type: 'enum'; values: (string | number | boolean)[] }
  | {
      type: 'address'
      /** The zero address is refused (a contract reverts on it: Clanker's reward admin). */
      notZero?: boolean
    }
  | {
      type: 'object'
      properties: Record<string, KnobType & { required?: boolean }>
      /** Cross-field order: `field` must be strictly less than `than` (e.g. ending < starting fee). */
      lessThan?: { field: string; than: string }[]
      /** When `when.field` is one of `when.in`, `field` must also satisfy `type` (e.g. a wallet is an address). */
      conditional?: {
        when: { field: string; in: (string | number | boolean)[] }
        field: string
        type: KnobType
      }[]
    }
  | {
      type: 'array'
      items: KnobType
      minItems?: number
      maxItems?: number
      /**
       * The items' `field` must add up to `equals`, or to at most `atMost` (e.g. reward bps to
       * 10000). A string bound is a decimal integer: the fields are then decimal strings summed
       * exactly as bigints (e.g. WAD shares to 1e18).
       */
      sumOf?: { field: string; equals?: number | string; atMost?: string }
      /** No two items may share this field's value (e.g. one link per platform). */
      uniqueBy?: string
    }

export const KnobTypeSchema: z.ZodType<KnobType> = z.lazy(() =>
  z.discriminatedUnion('type', [
    z
      .object({
        type: z.literal('string'),
        minLength: z.number().int().min(0).optional(),
        maxLength: z.number().int().min(1).optional(),
        pattern: z.string().optional(),
      })
      .strict(),
    z
      .object({
        type: z.literal('url'),
        schemes: z.array(z.string()).min(1).optional(),
        maxLength: z.number().int().min(1).optional(),
        maxBytes: z.number().int().min(1).optional(),
      })
      .strict(),
    z
      .object({
        type: z.literal('integer'),
        min: z.number().int().optional(),
        max: z.number().int().optional(),
        multipleOf: z.number().int().min(1).optional(),
        maxFromNow: z.number().int().min(1).optional(),
      })
      .strict(),
    z
      .object({
        type: z.literal('number'),
        min: z.number().optional(),
        max: z.number().optional(),
        exclusiveMin: z.number().optional(),
        integerTimes: z.number().positive().optional(),
      })
      .strict(),
    z.object({ type: z.literal('boolean') }).strict(),
    z
      .object({
        type: z.literal('enum'),
        values: z.array(z.union([z.string(), z.number(), z.boolean()])).min(1),
      })
      .strict(),
    z.object({ type: z.literal('address'), notZero: z.boolean().optional() }).strict(),
    z
      .object({
        type: z.literal('object'),
        properties: z.record(
          z.string(),
          z.intersection(KnobTypeSchema, z.object({ required: z.boolean().optional() })),
        ),
        lessThan: z.array(z.object({ field: z.string(), than: z.string() }).strict()).optional(),
        conditional: z
          .array(
            z
              .object({
                when: z
                  .object({
                    field: z.string(),
                    in: z.array(z.union([z.string(), z.number(), z.boolean()])).min(1),
                  })
                  .strict(),
                field: z.string(),
                type: KnobTypeSchema,
              })
              .strict(),
          )
          .optional(),
      })
      .strict(),
    z
      .object({
        type: z.literal('array'),
        items: KnobTypeSchema,
        minItems: z.number().int().min(0).optional(),
        maxItems: z.number().int().min(1).optional(),
        sumOf: z
          .object({
            field: z.string(),
            equals: z.union([z.number(), z.string().regex(/^[0-9]{1,78}$/)]).optional(),
            atMost: z
              .string()
              .regex(/^[0-9]{1,78}$/)
              .optional(),
          })
          .strict()
          .refine((sum) => (sum.equals === undefined) !== (sum.atMost === undefined), {
            message: 'sumOf takes exactly one of equals and atMost',
          })
          .optional(),
        uniqueBy: z.string().optional(),
      })
      .strict(),
  ]),
) as z.ZodType<KnobType>

const addressValue = z
  .string()
  .refine(
    (value) => isAddress(value, { strict: true }),
    'expected a 0x address (EIP-55 checksum if mixed case)',
  )
const nonZeroAddress = addressValue.refine(
  (value) => !/^0x0{40}$/i.test(value),
  'must not be the zero address: the contract reverts on it',
)
const utf8 = new TextEncoder()

/** Compiles a knob's constraints to the validator that checks intents. */
export const knobTypeToZod = (knob: KnobType): z.ZodType => {
  switch (knob.type) {
    case 'string': {
      let schema = z.string()
      if (knob.minLength !== undefined) schema = schema.min(knob.minLength)
      if (knob.maxLength !== undefined) schema = schema.max(knob.maxLength)
      if (knob.pattern !== undefined) schema = schema.regex(new RegExp(knob.pattern))
      return schema
    }
    case 'url': {
      const schemes = knob.schemes ?? ['https']
      const { maxBytes } = knob
      return z
        .string()
        .max(knob.maxLength ?? 2048)
        .refine(
          (value) => maxBytes === undefined || utf8.encode(value).length <= maxBytes,
          `must be at most ${maxBytes} bytes in UTF-8`,
        )
        .refine(
          (value) => {
            // Literally `<scheme>://` in lowercase: SDKs test the prefix (zora: startsWith("ipfs://")).
            if (!schemes.some((scheme) => value.startsWith(`${scheme}://`))) return false
            try {
              return schemes.includes(new URL(value).protocol.slice(0, -1))
            } catch {
              return false
            }
          },
          `expected a URL with scheme ${schemes.join(' or ')}`,
        )
    }
    case 'integer': {
      let schema = z.number().int()
      if (knob.min !== undefined) schema = schema.min(knob.min)
      if (knob.max !== undefined) schema = schema.max(knob.max)
      if (knob.multipleOf !== undefined) schema = schema.multipleOf(knob.multipleOf)
      const { maxFromNow } = knob
      if (maxFromNow === undefined) return schema
      return schema.refine(
        (value) => value <= Math.floor(Date.now() / 1000) + maxFromNow,
        `must be at most ${maxFromNow} seconds after the router's clock (unix seconds)`,
      )
    }
    case 'number': {
      let schema = z.number()
      if (knob.min !== undefined) schema = schema.min(knob.min)
      if (knob.max !== undefined) schema = schema.max(knob.max)
      if (knob.exclusiveMin !== undefined) schema = schema.gt(knob.exclusiveMin)
      const { integerTimes } = knob
      if (integerTimes === undefined) return schema
      return schema.refine(
        (value) => Number.isInteger(value * integerTimes),
        `value × ${integerTimes} must be a whole number (the pad's SDK converts it so)`,
      )
    }
    case 'boolean':
      return z.boolean()
    case 'enum':
      return z.union(
        knob.values.map((value) => z.literal(value)) as [z.ZodLiteral, ...z.ZodLiteral[]],
      )
    case 'address':
      return knob.notZero ? nonZeroAddress : addressValue
    case 'object': {
      const shape = Object.fromEntries(
        Object.entries(knob.properties).map(([name, property]) => {
          const schema = knobTypeToZod(property)
          return [name, property.required ? schema : schema.optional()]
        }),
      )
      return refineObject(z.object(shape).strict(), knob)
    }
    case 'array': {
      let schema = z.array(knobTypeToZod(knob.items))
      if (knob.minItems !== undefined) schema = schema.min(knob.minItems)
      if (knob.maxItems !== undefined) schema = schema.max(knob.maxItems)
      const { sumOf, uniqueBy } = knob
      const unique = uniqueBy
        ? schema.refine(
            (items) =>
              new Set(items.map((item) => (item as Record<string, unknown>)[uniqueBy])).size ===
              items.length,
            `no two items may have the same ${uniqueBy}`,
          )
        : schema
      if (!sumOf) return unique
      return unique.refine(
        (items) => sumMeets(items as Record<string, unknown>[], sumOf),
        sumOf.atMost === undefined
          ? `the items' ${sumOf.field} must add up to ${sumOf.equals}`
          : `the items' ${sumOf.field} must add up to at most ${sumOf.atMost}`,
      )
    }
    default:
      throw new Error(`unknown knob type ${(knob as { type: string }).type}`)
  }
}

type SumOf = NonNullable<Extract<KnobType, { type: 'array' }>['sumOf']>

/** Whether the items' `field` adds up as `sumOf` asks; string bounds sum decimal strings as bigints. */
const sumMeets = (items: Record<string, unknown>[], sumOf: SumOf): boolean => {
  const bound = sumOf.atMost ?? sumOf.equals
  if (typeof bound === 'number') {
    const total = items.reduce((sum, item) => sum + Number(item[sumOf.field] ?? 0), 0)
    return total === bound
  }
  let total = 0n
  for (const item of items) {
    const value = item[sumOf.field] ?? '0'
    if (typeof value !== 'string' || !/^[0-9]{1,78}$/.test(value)) return false
    total += BigInt(value)
  }
  return sumOf.atMost === undefined ? total === BigInt(bound!) : total <= BigInt(bound!)
}

type ObjectKnobType = Extract<KnobType, { type: 'object' }>

/** Adds an object knob's cross-field rules (`lessThan`, `conditional`) to its schema. */
const refineObject = (schema: z.ZodType, knob: ObjectKnobType): z.ZodType => {
  const { lessThan = [], conditional = [] } = knob
  if (lessThan.length === 0 && conditional.length === 0) return schema
  const compiled = conditional.map((rule) => ({ ...rule, schema: knobTypeToZod(rule.type) }))
  return schema.superRefine((value, context) => {
    const record = value as Record<string, unknown>
    for (const { field, than } of lessThan) {
      const low = record[field]
      const high = record[than]
      if (typeof low === 'number' && typeof high === 'number' && !(low < high))
        context.addIssue({ code: 'custom', path: [field], message: `must be less than ${than}` })
    }
    for (const rule of compiled) {
      if (!rule.when.in.some((allowed) => allowed === record[rule.when.field])) continue
      const parsed = rule.schema.safeParse(record[rule.field])
      if (!parsed.success)
        context.addIssue({
          code: 'custom',
          path: [rule.field],
          message: `when ${rule.when.field} is ${JSON.stringify(record[rule.when.field])}: ${parsed.error.issues[0]?.message ?? 'invalid'}`,
        })
    }
  })
}
