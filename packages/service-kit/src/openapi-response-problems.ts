import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js'
import addFormatsPlugin from 'ajv-formats'

type OpenApiDocument = {
  paths?: Record<string, Record<string, { responses?: Record<string, ResponseObject> }>>
  components?: Record<string, unknown>
}
type ResponseObject = { content?: Record<string, { schema?: object }> }

// ajv-formats is CommonJS: under ESM its plugin is the default export's default.
const addFormats = addFormatsPlugin as unknown as (ajv: Ajv2020) => Ajv2020

/**
 * How `body` breaks the JSON schema that an OpenAPI 3.1 document gives the
 * response (`method`, `path` as documented, `status`, JSON), as ajv's error
 * list; empty when it validates. Throws when the document has no such response.
 *
 * @example expect(openApiResponseProblems(document, { method: 'post', path: '/v1/intents', status: 201, body })).toEqual([])
 */
export const openApiResponseProblems = (
  document: OpenApiDocument,
  { method, path, status, body }: { method: string; path: string; status: number; body: unknown },
): ErrorObject[] => {
  const schema =
    document.paths?.[path]?.[method]?.responses?.[String(status)]?.content?.['application/json']
      ?.schema
  if (!schema) throw new Error(`no JSON response ${status} for ${method.toUpperCase()} ${path}`)
  // Not strict: OpenAPI adds keywords (example) that are not JSON Schema. The
  // components ride along so that `#/components/schemas/...` references resolve.
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }))
  const validate = ajv.compile({ ...schema, components: document.components })
  return validate(body) ? [] : (validate.errors ?? [])
}
