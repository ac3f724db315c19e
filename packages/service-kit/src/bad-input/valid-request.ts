import type { OpenApiDocument, WalkedOperation } from './openapi-operations.ts'
import { type Samples, sampleFromSchema } from './sample-from-schema.ts'

/** What a request is made of before it is sent. */
export type Draft = { params: Record<string, string>; query: Record<string, string>; body: unknown }

/** Headers proving a security scheme; a function gets the request (to sign its body). */
export type Credential =
  | Record<string, string>
  | ((request: {
      method: string
      path: string
      body: string | undefined
    }) => Record<string, string> | Promise<Record<string, string>>)

export const clone = <value>(value: value): value =>
  value === undefined ? value : (JSON.parse(JSON.stringify(value)) as value)

/**
 * An operation's valid request as far as the document and `samples` tell:
 * every path param, the required query params and those `samples` names,
 * the JSON body.
 */
export const validDraft = (
  document: OpenApiDocument,
  operation: WalkedOperation,
  samples: Samples,
): Draft => ({
  params: Object.fromEntries(
    operation.pathParams.map((p) => [
      p.name,
      String(sampleFromSchema(document, samples, p.schema, p.name)),
    ]),
  ),
  query: Object.fromEntries(
    operation.queryParams
      .filter((p) => p.required || p.name in samples)
      .map((p) => [p.name, String(sampleFromSchema(document, samples, p.schema, p.name))]),
  ),
  body: operation.body ? clone(sampleFromSchema(document, samples, operation.body)) : undefined,
})

/** The path and query a draft of the operation is sent to. */
export const draftTarget = (operation: WalkedOperation, draft: Draft) => {
  const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(draft.params[name] ?? ''),
  )
  const search = new URLSearchParams(draft.query).toString()
  return search ? `${path}?${search}` : path
}

/** The headers of a credential for this request (a function signs it). */
export const credentialHeaders = async (
  credential: Credential | undefined,
  request: { method: string; path: string; body: string | undefined },
): Promise<Record<string, string>> =>
  typeof credential === 'function' ? await credential(request) : (credential ?? {})
