/** A JSON Schema as `/openapi.json` (3.1) writes it; read loosely, only what the walk needs. */
export type JsonSchema = {
  $ref?: string
  type?: string | string[]
  properties?: Record<string, JsonSchema>
  required?: string[]
  items?: JsonSchema
  anyOf?: JsonSchema[]
  oneOf?: JsonSchema[]
  allOf?: JsonSchema[]
  enum?: unknown[]
  const?: unknown
  example?: unknown
  examples?: unknown[]
  default?: unknown
  minimum?: number
  minLength?: number
}

type Parameter = { name: string; in: string; required?: boolean; schema?: JsonSchema }
type Operation = {
  parameters?: Parameter[]
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> }
  security?: Array<Record<string, string[]>>
}
export type OpenApiDocument = {
  paths?: Record<string, Record<string, Operation>>
  components?: { schemas?: Record<string, JsonSchema> }
  security?: Array<Record<string, string[]>>
}

/** One operation of the document, with what a request to it is made of. */
export type WalkedOperation = {
  method: string
  /** The path template, `/api/boards/{board}`. */
  path: string
  pathParams: Array<{ name: string; schema: JsonSchema }>
  queryParams: Array<{ name: string; schema: JsonSchema; required: boolean }>
  /** The JSON body's schema, when the operation takes one. */
  body: JsonSchema | undefined
  /** The security scheme names it accepts; `''` stands for "no credential". */
  schemes: string[]
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch']

/** Follows `#/components/schemas/...` references. */
export const resolveSchema = (document: OpenApiDocument, schema: JsonSchema | undefined) => {
  let current = schema ?? {}
  for (let hops = 0; current.$ref && hops < 20; hops++) {
    const name = current.$ref.replace('#/components/schemas/', '')
    current = document.components?.schemas?.[name] ?? {}
  }
  return current
}

/**
 * Every operation of an OpenAPI document. Path params named in the template
 * but not declared are walked too, as strings.
 */
export const listOperations = (document: OpenApiDocument): WalkedOperation[] =>
  Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => {
        const parameters = operation.parameters ?? []
        const declared = parameters.filter((p) => p.in === 'path')
        const templated = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!)
        const requirements = operation.security ?? document.security ?? [{}]
        return {
          method: method.toUpperCase(),
          path,
          pathParams: templated.map((name) => ({
            name,
            schema: declared.find((p) => p.name === name)?.schema ?? { type: 'string' },
          })),
          queryParams: parameters
            .filter((p) => p.in === 'query')
            .map((p) => ({ name: p.name, schema: p.schema ?? {}, required: p.required === true })),
          body: operation.requestBody?.content?.['application/json']?.schema,
          schemes: [
            ...new Set(['', ...requirements.flatMap((requirement) => Object.keys(requirement))]),
          ],
        }
      }),
  )
