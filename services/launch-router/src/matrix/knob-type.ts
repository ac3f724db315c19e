import { isAddress } from 'viem'
import { z } from 'zod'

/**
 * The constraint language pads use to describe a knob's value. It is data
 * (JSON in the pad files), published as-is by get_capabilities, and compiled
 * to a zod validator at start-up.
 */
export type KnobType =
  | { type: 'string'; minLength?: number; maxLength?: number; pattern?: string }
  | { type: 'url'; schemes?: string[] }
  | { type: 'integer'; min?: number; max?: number }
  | { type: 'number'; min?: number; max?: number; exclusiveMin?: number }
  | { type: 'boolean' }
  | { type: 'enum'; values: (string | number | boolean)[] }
  | { type: 'address' }
  | { type: 'object'; properties: Record<string, KnobType & { required?: boolean }> }
  | {
      type: 'array'
      items: KnobType
      minItems?: number
      maxItems?: number
      /** The items' numeric `field` must add up to `equals` (e.g. reward bps to 10000). */
      sumOf?: { field: string; equals: number }
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
    z.object({ type: z.literal('url'), schemes: z.array(z.string()).min(1).optional() }).strict(),
    z
      .object({
        type: z.literal('integer'),
        min: z.number().int().optional(),
        max: z.number().int().optional(),
      })
      .strict(),
    z
      .object({
        type: z.literal('number'),
        min: z.number().optional(),
        max: z.number().optional(),
        exclusiveMin: z.number().optional(),
      })
      .strict(),
    z.object({ type: z.literal('boolean') }).strict(),
    z
      .object({
        type: z.literal('enum'),
        values: z.array(z.union([z.string(), z.number(), z.boolean()])).min(1),
      })
      .strict(),
    z.object({ type: z.literal('address') }).strict(),
    z
      .object({
        type: z.literal('object'),
        properties: z.record(
          z.string(),
          z.intersection(KnobTypeSchema, z.object({ required: z.boolean().optional() })),
        ),
      })
      .strict(),
    z
      .object({
        type: z.literal('array'),
        items: KnobTypeSchema,
        minItems: z.number().int().min(0).optional(),
        maxItems: z.number().int().min(1).optional(),
        sumOf: z.object({ field: z.string(), equals: z.number() }).strict().optional(),
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
      return z
        .string()
        .max(2048)
        .refine(
          (value) => {
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
      return schema
    }
    case 'number': {
      let schema = z.number()
      if (knob.min !== undefined) schema = schema.min(knob.min)
      if (knob.max !== undefined) schema = schema.max(knob.max)
      if (knob.exclusiveMin !== undefined) schema = schema.gt(knob.exclusiveMin)
      return schema
    }
    case 'boolean':
      return z.boolean()
    case 'enum':
      return z.union(
        knob.values.map((value) => z.literal(value)) as [z.ZodLiteral, ...z.ZodLiteral[]],
      )
    case 'address':
      return addressValue
    case 'object': {
      const shape = Object.fromEntries(
        Object.entries(knob.properties).map(([name, property]) => {
          const schema = knobTypeToZod(property)
          return [name, property.required ? schema : schema.optional()]
        }),
      )
      return z.object(shape).strict()
    }
    case 'array': {
      let schema = z.array(knobTypeToZod(knob.items))
      if (knob.minItems !== undefined) schema = schema.min(knob.minItems)
      if (knob.maxItems !== undefined) schema = schema.max(knob.maxItems)
      const { sumOf } = knob
      if (!sumOf) return schema
      return schema.refine(
        (items) =>
          items.reduce<number>(
            (total, item) => total + Number((item as Record<string, unknown>)[sumOf.field] ?? 0),
            0,
          ) === sumOf.equals,
        `the items' ${sumOf.field} must add up to ${sumOf.equals}`,
      )
    }
    default:
      throw new Error(`unknown knob type ${(knob as { type: string }).type}`)
  }
}
