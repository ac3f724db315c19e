import { type JsonSchema, type OpenApiDocument, resolveSchema } from './openapi-operations.ts'

/** A place in a JSON body where a string or an integer goes. */
export type Position = {
  kind: 'string' | 'integer'
  /** Keys from the body's root; array items are index 0. */
  pointer: Array<string | number>
  /** The schema of each container on the way (index i: the value at pointer[0..i]). */
  schemas: JsonSchema[]
  /** The property name the value sits under (samples are looked up by it). */
  name: string | undefined
}

const MAX_DEPTH = 8

/**
 * Every string and integer position of a body schema, through objects,
 * arrays and each alternative of a union (a `string | object` field gives
 * the string position and every position inside the object).
 */
export const listPositions = (document: OpenApiDocument, root: JsonSchema | undefined) => {
  const positions = new Map<string, Position>()
  const walk = (
    given: JsonSchema | undefined,
    pointer: Array<string | number>,
    schemas: JsonSchema[],
  ) => {
    if (pointer.length > MAX_DEPTH) return
    const schema = resolveSchema(document, given)
    for (const alternative of [
      ...(schema.anyOf ?? []),
      ...(schema.oneOf ?? []),
      ...(schema.allOf ?? []),
    ])
      walk(alternative, pointer, schemas)
    const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []
    const add = (kind: Position['kind']) => {
      const key = `${kind}:${JSON.stringify(pointer)}`
      const name = [...pointer].reverse().find((step) => typeof step === 'string')
      if (!positions.has(key))
        positions.set(key, { kind, pointer, schemas: [...schemas, schema], name })
    }
    if (types.includes('string') || (schema.enum ?? []).some((v) => typeof v === 'string'))
      add('string')
    if (types.includes('integer') || types.includes('number')) add('integer')
    for (const [key, property] of Object.entries(schema.properties ?? {}))
      walk(property, [...pointer, key], [...schemas, schema])
    if (schema.items) walk(schema.items, [...pointer, 0], [...schemas, schema])
  }
  walk(root, [], [])
  // The body itself is not a position: a whole-body string is a different test.
  return [...positions.values()].filter((position) => position.pointer.length > 0)
}
