import type { App } from './app-type.ts'
import { createLogger } from './logger.ts'
import { serve } from './serve.ts'

/** Starts `app` on an ephemeral loopback port for a test; call `close` in `afterAll`. */
export const startTestServer = <variables extends object>(app: App<variables>) =>
  serve(app, { port: 0, logger: createLogger({ name: 'test', level: 'silent' }) })

/** POSTs JSON (or a raw string body) and returns the status, headers and parsed body. */
export const postJson = async (
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
) => {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  const text = await response.text()
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies by path
  return { status: response.status, headers: response.headers, json: json as any, text }
}

type OpenApiPaths = { paths?: Record<string, Record<string, unknown>> }

/**
 * Every route `app` answers that `/openapi.json` does not document, as
 * `METHOD /path` (middleware registered with `app.use` is not a route).
 *
 * @example expect(undocumentedRoutes(app, await (await app.request('/openapi.json')).json())).toEqual([])
 */
export const undocumentedRoutes = (app: Pick<App, 'routes'>, openapi: OpenApiPaths) => {
  const documented = new Set(
    Object.entries(openapi.paths ?? {}).flatMap(([path, operations]) =>
      Object.keys(operations).map(
        (method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`,
      ),
    ),
  )
  const registered = new Set(
    app.routes.filter((route) => route.method !== 'ALL').map((r) => `${r.method} ${r.path}`),
  )
  return [...registered].filter((route) => !documented.has(route)).sort()
}

type SchemaObject = {
  $ref?: string
  type?: string | string[]
  properties?: Record<string, unknown>
  additionalProperties?: boolean | SchemaObject
  items?: SchemaObject
  prefixItems?: SchemaObject[]
  oneOf?: SchemaObject[]
  anyOf?: SchemaObject[]
  allOf?: SchemaObject[]
}
type MediaTypes = Record<string, { schema?: SchemaObject }>
type Operation = {
  parameters?: Array<{ required?: boolean }>
  requestBody?: { $ref?: string; content?: MediaTypes }
  responses?: Record<string, { $ref?: string; content?: MediaTypes }>
}
type OpenApiDocument = {
  paths?: Record<string, Record<string, Operation>>
  components?: { schemas?: Record<string, SchemaObject> }
}

const isJsonMediaType = (mediaType: string) => /^application\/(?:[\w.-]+\+)?json\b/.test(mediaType)

/**
 * Whether a JSON schema says what the body holds: an object with named
 * properties (or typed values, like a record), an array of such, or a union
 * or intersection of them. `{}`, `z.unknown()` and an empty passthrough
 * object say nothing, so a reader of the document learns nothing from them.
 */
const describesBody = (
  openapi: OpenApiDocument,
  schema: SchemaObject | undefined,
  seen = new Set<string>(),
): boolean => {
  if (!schema) return false
  if (schema.$ref) {
    if (seen.has(schema.$ref)) return true
    return describesBody(
      openapi,
      schemaNamed(openapi, schema.$ref),
      new Set([...seen, schema.$ref]),
    )
  }
  if (schema.oneOf) return schema.oneOf.every((part) => describesBody(openapi, part, seen))
  if (schema.anyOf) return schema.anyOf.every((part) => describesBody(openapi, part, seen))
  if (schema.allOf) return schema.allOf.some((part) => describesBody(openapi, part, seen))
  if (schema.type === 'array') return describesBody(openapi, schema.items, seen)
  if (Object.keys(schema.properties ?? {}).length > 0) return true
  const values = schema.additionalProperties
  return typeof values === 'object' && (values.type !== undefined || values.$ref !== undefined)
}

const schemaNamed = (openapi: OpenApiDocument, ref: string) =>
  openapi.components?.schemas?.[ref.replace('#/components/schemas/', '')]

/**
 * Where inside a schema an object names no field yet accepts any
 * (`z.object({})`, passthrough or not), as JSON-pointer-like paths. A record
 * (`z.record`) is not one: it says its keys are free. `{}` (`z.unknown()`)
 * inside a described body is allowed: a field whose value is any JSON.
 */
const hollowObjects = (
  openapi: OpenApiDocument,
  schema: SchemaObject | undefined,
  at = '',
  seen = new Set<string>(),
): string[] => {
  if (!schema) return []
  if (schema.$ref) {
    if (seen.has(schema.$ref)) return []
    return hollowObjects(
      openapi,
      schemaNamed(openapi, schema.$ref),
      at,
      new Set([...seen, schema.$ref]),
    )
  }
  const hollow =
    schema.properties !== undefined &&
    Object.keys(schema.properties).length === 0 &&
    schema.additionalProperties !== false
  return [
    // The body itself is checked by describesBody.
    ...(hollow && at ? [at] : []),
    ...Object.entries(schema.properties ?? {}).flatMap(([name, property]) =>
      hollowObjects(openapi, property as SchemaObject, `${at}/${name}`, seen),
    ),
    ...hollowObjects(openapi, schema.items, `${at}/[]`, seen),
    ...(schema.prefixItems ?? []).flatMap((item, index) =>
      hollowObjects(openapi, item, `${at}/${index}`, seen),
    ),
    ...[...(schema.oneOf ?? []), ...(schema.anyOf ?? []), ...(schema.allOf ?? [])].flatMap((part) =>
      hollowObjects(openapi, part, at, seen),
    ),
    ...(typeof schema.additionalProperties === 'object'
      ? hollowObjects(openapi, schema.additionalProperties, `${at}/*`, seen)
      : []),
  ]
}

/** A strict `{}` body (`z.object({}).strict()`): the route takes no fields, and says so. */
const isStrictEmpty = (openapi: OpenApiDocument, schema: SchemaObject | undefined): boolean => {
  if (schema?.$ref) return isStrictEmpty(openapi, schemaNamed(openapi, schema.$ref))
  return (
    schema?.type === 'object' &&
    schema.additionalProperties === false &&
    Object.keys(schema.properties ?? {}).length === 0
  )
}

/**
 * What `/openapi.json` leaves unsaid, one line per gap (`METHOD /path: ...`):
 * a JSON request or answer whose schema names no field or holds an empty
 * object (`z.object({}).passthrough()`) anywhere, an answer other than
 * 204, 202 (accepted: nothing to say yet) or a redirect without content, an operation without responses, or
 * one taking a body or a required parameter without a 4xx. Non-JSON content (HTML,
 * Markdown, event streams) only needs a schema.
 *
 * @example expect(openApiGaps(await (await fetch(`${url}/openapi.json`)).json())).toEqual([])
 */
export const openApiGaps = (openapi: OpenApiDocument) => {
  const gaps: string[] = []
  for (const [path, operations] of Object.entries(openapi.paths ?? {})) {
    for (const [method, operation] of Object.entries(operations)) {
      const at = `${method.toUpperCase()} ${path}`
      const contentGaps = (where: string, content: MediaTypes, emptyAllowed: boolean) => {
        for (const [mediaType, { schema }] of Object.entries(content)) {
          if (!schema) gaps.push(`${at}: ${where} ${mediaType} has no schema`)
          if (!schema || !isJsonMediaType(mediaType)) continue
          if (!describesBody(openapi, schema) && !(emptyAllowed && isStrictEmpty(openapi, schema)))
            gaps.push(`${at}: ${where} ${mediaType} schema names no field`)
          for (const inside of hollowObjects(openapi, schema))
            gaps.push(`${at}: ${where} ${mediaType} has an empty object at ${inside}`)
        }
      }
      if (operation.requestBody?.content)
        contentGaps('request body', operation.requestBody.content, true)
      const responses = Object.entries(operation.responses ?? {})
      if (responses.length === 0) gaps.push(`${at}: no responses`)
      // A page that reads only optional query values (and shows a notice for
      // a bad one) never refuses; a body or a required parameter can be wrong.
      const takesInput =
        operation.requestBody !== undefined ||
        (operation.parameters ?? []).some((parameter) => parameter.required === true)
      if (takesInput && !responses.some(([status]) => status.startsWith('4')))
        gaps.push(`${at}: takes a body or a required parameter but documents no 4xx`)
      for (const [status, response] of responses) {
        if (status.startsWith('3')) continue
        if (!response.content) {
          if (status !== '204' && status !== '202') gaps.push(`${at}: ${status} has no content`)
          continue
        }
        contentGaps(status, response.content, false)
      }
    }
  }
  return gaps.sort()
}
