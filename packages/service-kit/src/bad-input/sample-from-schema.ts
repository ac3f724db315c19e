import { type JsonSchema, type OpenApiDocument, resolveSchema } from './openapi-operations.ts'

/** Valid values by field name; a function gives a fresh one per request (unique handles). */
export type Samples = Record<string, unknown>

/** The sample for a field name, calling it when it is a function. */
export const sampleNamed = (samples: Samples, name: string | undefined) => {
  if (name === undefined || !(name in samples)) return undefined
  const value = samples[name]
  return { value: typeof value === 'function' ? (value as () => unknown)() : value }
}

const typesOf = (schema: JsonSchema) =>
  Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []

/**
 * A value the schema accepts as far as JSON Schema tells (refinements are
 * invisible here; `samples` fill them in): the named sample, else the
 * schema's example, default, first enum value, else the smallest value of
 * its type. Objects get their required properties and every property
 * `samples` names.
 */
export const sampleFromSchema = (
  document: OpenApiDocument,
  samples: Samples,
  given: JsonSchema | undefined,
  name?: string,
  depth = 0,
): unknown => {
  const named = sampleNamed(samples, name)
  if (named) return named.value
  const schema = resolveSchema(document, given)
  if (schema.example !== undefined) return schema.example
  if (schema.examples?.length) return schema.examples[0]
  if (schema.default !== undefined) return schema.default
  if (schema.const !== undefined) return schema.const
  if (schema.enum?.length) return schema.enum[0]
  const alternatives = schema.anyOf ?? schema.oneOf ?? schema.allOf
  if (alternatives?.length) {
    // The first alternative that gives a value (`allOf` parts may only describe).
    for (const alternative of alternatives) {
      const types = typesOf(resolveSchema(document, alternative))
      if (types.length === 1 && types[0] === 'null') continue
      const value = sampleFromSchema(document, samples, alternative, name, depth + 1)
      if (value !== null) return value
    }
    return null
  }
  const types = typesOf(schema)
  if (types.includes('object') || schema.properties) {
    const value: Record<string, unknown> = {}
    if (depth > 8) return value
    for (const [key, property] of Object.entries(schema.properties ?? {})) {
      if (schema.required?.includes(key) || key in samples)
        value[key] = sampleFromSchema(document, samples, property, key, depth + 1)
    }
    return value
  }
  if (types.includes('array')) return []
  if (types.includes('integer') || types.includes('number')) return Math.max(1, schema.minimum ?? 1)
  if (types.includes('boolean')) return true
  if (types.includes('string')) return 'x'.repeat(Math.max(1, schema.minLength ?? 1))
  return null
}
