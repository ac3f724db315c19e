import { OpenAPIHono } from '@hono/zod-openapi'
import type { App } from './app-type.ts'

type ZodNode = { _zod: { def: Record<string, unknown> } }

const isZod = (value: unknown): value is ZodNode =>
  typeof value === 'object' && value !== null && '_zod' in value

/** The zod schemas directly inside a schema (object fields, items, options, wrapped types). */
const childrenOf = (schema: ZodNode): ZodNode[] => {
  const children: ZodNode[] = []
  const def = schema._zod.def
  for (const key of Object.keys(def)) {
    // Checks (min, regex) carry no schema.
    if (key === 'checks') continue
    let value: unknown
    try {
      value = def[key]
      if (key === 'getter' && typeof value === 'function') value = value()
    } catch {
      continue
    }
    if (isZod(value)) children.push(value)
    else if (Array.isArray(value)) children.push(...value.filter(isZod))
    else if (typeof value === 'object' && value !== null)
      children.push(...Object.values(value).filter(isZod))
  }
  return children
}

type Content = Record<string, { schema?: unknown }> | undefined
type Definition = {
  type: string
  schema?: unknown
  route?: {
    request?: { body?: { content?: Content } } & Record<string, unknown>
    responses?: Record<string, { content?: Content }>
  }
}

/** Every zod schema a route or component of the registry names at its top level. */
const registeredSchemas = (definitions: readonly Definition[]): unknown[] =>
  definitions.flatMap((definition) => {
    if (definition.type !== 'route') return [definition.schema]
    const { request = {}, responses = {} } = definition.route ?? {}
    const contents = [request.body?.content, ...Object.values(responses).map((r) => r?.content)]
    return [
      ...['params', 'query', 'headers', 'cookies'].map((part) => request[part]),
      ...contents.flatMap((content) => Object.values(content ?? {}).map((media) => media.schema)),
    ]
  })

/** The component a schema is generated as on its own, when it is named (`.openapi('Name')`). */
const componentOf = (schema: ZodNode) => {
  const probe = new OpenAPIHono()
  probe.openAPIRegistry.registerPath({
    method: 'get',
    path: '/',
    responses: {
      200: { description: 'probe', content: { 'application/json': { schema: schema as never } } },
    },
  })
  const document = probe.getOpenAPI31Document({
    openapi: '3.1.0',
    info: { title: 'probe', version: '0' },
  }) as {
    paths?: Record<string, { get?: { responses?: Record<string, { content?: Content }> } }>
    components?: { schemas?: Record<string, unknown> }
  }
  const answer = document.paths?.['/']?.get?.responses?.['200']?.content?.['application/json']
  const ref = (answer?.schema as { $ref?: string } | undefined)?.$ref
  if (!ref) return undefined
  const name = ref.replace('#/components/schemas/', '')
  return { name, json: JSON.stringify(document.components?.schemas?.[name]) }
}

/**
 * Every component name of `/openapi.json` that two different schemas are
 * registered under, one line each. The generator keeps the first schema it
 * meets under a name and points every other at it, so the document then
 * describes an answer with another answer's schema (a stray
 * `.openapi('PaymentChallenge')` on a 502 made it document the 402's body).
 *
 * @example expect(componentNameClashes(app)).toEqual([])
 */
export const componentNameClashes = (app: Pick<App, 'openAPIRegistry'>): string[] => {
  const seen = new Set<ZodNode>()
  const seenInside = new Set<ZodNode>()
  const forms = new Map<string, Set<string>>()
  const components = new Map<ZodNode, ReturnType<typeof componentOf>>()
  const generated = (schema: ZodNode) => {
    if (!components.has(schema)) {
      try {
        components.set(schema, componentOf(schema))
      } catch {
        // A schema the generator cannot write alone (a bare effect) names nothing here.
        components.set(schema, undefined)
      }
    }
    return components.get(schema)
  }
  // `named`: the name of the schema this one sits in. `Grant.nullable()` keeps the name
  // Grant and is written whole: the Grant inside it is not referenced on its own.
  const visit = (schema: unknown, named?: string) => {
    if (!isZod(schema) || seen.has(schema)) return
    const component = generated(schema)
    const inside = component !== undefined && component.name === named
    if (inside ? seenInside.has(schema) : seen.has(schema)) return
    ;(inside ? seenInside : seen).add(schema)
    if (component && !inside) {
      const jsons = forms.get(component.name) ?? new Set<string>()
      jsons.add(component.json)
      forms.set(component.name, jsons)
    }
    for (const child of childrenOf(schema)) visit(child, component?.name)
  }
  for (const schema of registeredSchemas(app.openAPIRegistry.definitions as Definition[]))
    visit(schema)
  return [...forms]
    .filter(([, jsons]) => jsons.size > 1)
    .map(([name, jsons]) => `${name}: registered by ${jsons.size} different schemas`)
    .sort()
}
