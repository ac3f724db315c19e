import { MAX_JSON_DEPTH } from '../http/json-depth.ts'
import { listOperations, type OpenApiDocument, type WalkedOperation } from './openapi-operations.ts'
import { type Samples, sampleFromSchema } from './sample-from-schema.ts'
import type { Credential } from './walk-bad-input.ts'

export type WalkDeepInputParameters = {
  /** The running server; its `/openapi.json` says what to walk. */
  baseUrl: string
  /** The server's body limit (`MAX_BODY_BYTES`): deep bodies are sent up to it, large ones near it. */
  maxBodyBytes: number
  /** Valid values by field or param name, so that the bodies around the nesting are plausible. */
  samples?: Samples
  /** A valid credential per security scheme: each operation is sent with its first one. */
  credentials?: Record<string, Credential>
  /** Also call every tool `tools/list` names on `POST /mcp` (default true). */
  mcp?: boolean
  skip?: (operation: WalkedOperation) => boolean
}

export type WalkDeepInputReturnType = {
  /** `METHOD /path` of every operation sent a body, and `MCP <tool>` of every tool called. */
  targets: string[]
  requests: number
  /** One line per request answered otherwise than it must be, or after which `/health` failed. */
  failures: string[]
}

type Shape = { label: string; open: string; close: string }
const SHAPES: Shape[] = [
  { label: 'arrays', open: '[', close: ']' },
  { label: 'objects', open: '{"a":', close: '}' },
]
const LEVELS = [10_000, 100_000]

/** `levels` containers of one shape around a 0: built as text (a value this deep cannot be stringified). */
const nested = ({ open, close }: Shape, levels: number) =>
  `${open.repeat(levels)}0${close.repeat(levels)}`

/** A body of the operation with one more field, `deep`, holding `value` (JSON text). */
const withField = (sample: unknown, text: string) => {
  const base = JSON.stringify(
    sample !== null && typeof sample === 'object' && !Array.isArray(sample) ? sample : {},
  )
  return base === '{}' ? `{"deep":${text}}` : `${base.slice(0, -1)},"deep":${text}}`
}

/**
 * Sends every operation of a running server's `/openapi.json` that takes a
 * JSON body, and every MCP tool, the bodies a hostile client would: one
 * extra field nested 10,000 and 100,000 levels deep (arrays, then objects;
 * where that is over the body limit, also as deep as fits), which must be
 * refused with 400 and a string `error` (413 for what is over the limit);
 * and large bodies within the limit (a long string, a wide array), which
 * must get no 5xx. After every request `GET /health` must answer 200: the
 * process that served it is still serving.
 *
 * @example
 * const { failures } = await walkDeepInput({ baseUrl: server.url, maxBodyBytes: 64 * 1024 })
 * expect(failures).toEqual([])
 */
export const walkDeepInput = async ({
  baseUrl,
  maxBodyBytes,
  samples = {},
  credentials = {},
  mcp = true,
  skip = () => false,
}: WalkDeepInputParameters): Promise<WalkDeepInputReturnType> => {
  const document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as OpenApiDocument
  const failures: string[] = []
  const targets: string[] = []
  let requests = 0

  type Target = {
    label: string
    method: string
    path: string
    headers: (body: string) => Promise<Record<string, string>>
    /** The request's body with `text` (JSON) put in it. */
    body: (text: string) => string
  }

  const send = async (target: Target, what: string, body: string, allowed: number[] | 'no 5xx') => {
    requests++
    const response = await fetch(`${baseUrl}${target.path}`, {
      method: target.method,
      headers: { 'content-type': 'application/json', ...(await target.headers(body)) },
      body,
    })
    const text = await response.text()
    const fail = (problem: string) =>
      failures.push(
        `${target.label} ${what} (${body.length} bytes) -> ${response.status} ${problem}: ${text.slice(0, 200)}`,
      )
    if (allowed === 'no 5xx' ? response.status >= 500 : !allowed.includes(response.status))
      fail(allowed === 'no 5xx' ? 'server error' : `expected ${allowed.join(' or ')}`)
    else if (response.status >= 400) {
      let json: unknown
      try {
        json = JSON.parse(text)
      } catch {
        json = undefined
      }
      if (typeof (json as { error?: unknown } | undefined)?.error !== 'string')
        fail('error body without a string `error`')
    }
    const health = await fetch(`${baseUrl}/health`).catch((error: Error) => error)
    if (health instanceof Error || health.status !== 200)
      failures.push(
        `${target.label} ${what}: /health then answered ${health instanceof Error ? health.message : health.status}`,
      )
    else await health.body?.cancel()
  }

  const walk = async (target: Target) => {
    targets.push(target.label)
    const overhead = target.body('0').length - 1
    for (const shape of SHAPES) {
      for (const levels of LEVELS) {
        const body = target.body(nested(shape, levels))
        if (body.length <= maxBodyBytes) {
          await send(target, `${levels} nested ${shape.label}`, body, [400])
          continue
        }
        await send(target, `${levels} nested ${shape.label}`, body, [413])
        const fits = Math.floor((maxBodyBytes - overhead - 1) / (shape.open.length + 1))
        if (fits > MAX_JSON_DEPTH)
          await send(
            target,
            `${fits} nested ${shape.label}`,
            target.body(nested(shape, fits)),
            [400],
          )
      }
    }
    const room = maxBodyBytes - overhead - 16
    await send(target, 'a long string', target.body(JSON.stringify('x'.repeat(room))), 'no 5xx')
    await send(target, 'a wide array', target.body(`[${'0,'.repeat(room / 2 - 1)}0]`), 'no 5xx')
  }

  for (const operation of listOperations(document)) {
    if (!operation.body || operation.path === '/mcp' || skip(operation)) continue
    const scheme = operation.schemes.find((name) => name !== '' && credentials[name]) ?? ''
    const credential = scheme ? credentials[scheme] : undefined
    const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const param = operation.pathParams.find((candidate) => candidate.name === name)
      return encodeURIComponent(String(sampleFromSchema(document, samples, param?.schema, name)))
    })
    const sample = sampleFromSchema(document, samples, operation.body)
    await walk({
      label: `${operation.method} ${operation.path}`,
      method: operation.method,
      path,
      headers: async (body) =>
        typeof credential === 'function'
          ? credential({ method: operation.method, path, body })
          : (credential ?? {}),
      body: (text) => withField(sample, text),
    })
  }

  if (mcp && document.paths?.['/mcp']) {
    const headers = async (_body?: string) => ({ accept: 'application/json, text/event-stream' })
    const listed = await fetch(`${baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(await headers()) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    const { result } = (await listed.json()) as { result?: { tools?: Array<{ name: string }> } }
    if (!result?.tools?.length) failures.push(`MCP tools/list -> ${listed.status}: no tools`)
    for (const { name } of result?.tools ?? [])
      await walk({
        label: `MCP ${name}`,
        method: 'POST',
        path: '/mcp',
        headers,
        body: (text) =>
          `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":${withField({}, text)}}}`,
      })
  }
  return { targets, requests, failures }
}
