import { request as httpRequest } from 'node:http'
import { listOperations, type OpenApiDocument, type WalkedOperation } from './openapi-operations.ts'
import type { Samples } from './sample-from-schema.ts'
import { type Credential, credentialHeaders, draftTarget, validDraft } from './valid-request.ts'

/** The host a hostile client names: it must appear in no answer. */
export const FOREIGN_HOST = 'evil.example'

/** One request besides the document's operations (an MCP tool call, a page it leaves out). */
export type ForeignHostRequest = {
  /** How failures name it; `METHOD path` by default. */
  label?: string
  method: string
  path: string
  headers?: Record<string, string>
  body?: string
}

export type WalkForeignHostParameters = {
  /** The running server; its `/openapi.json` says what to walk. */
  baseUrl: string
  /** The host every request claims (`Host`, `X-Forwarded-Host`, `Forwarded: host=`). */
  host?: string
  /** Valid values by field or param name, so that requests get as far as their answer. */
  samples?: Samples
  /** Samples for one operation (`'POST /v1/matches/{id}/pay'`), over `samples`. */
  operationSamples?: Record<string, Samples>
  /** A valid credential per security scheme the document names: each operation is sent with each. */
  credentials?: Record<string, Credential>
  /** Requests besides the operations: MCP tool calls, pages the document leaves out. */
  requests?: ForeignHostRequest[]
  skip?: (operation: WalkedOperation) => boolean
  /** Per request (an answer that streams is cut here, and searched as far as it came). */
  timeoutMs?: number
  /** Each answer as it comes, by label: for what a test checks beyond the search. */
  onAnswer?: (label: string, answer: HostAnswer) => void
}

export type WalkForeignHostReturnType = {
  /** `METHOD /path` of every operation walked. */
  operations: string[]
  /** The status of each request (`'POST /v1/pay [no credential]': 402`): shows how far each got. */
  statuses: Record<string, number>
  /** One line per answer that names the host anywhere: where, and what it said around it. */
  leaks: string[]
}

export type HostAnswer = { status: number; rawHeaders: string[]; text: string }

/**
 * Sends one request to the server at `baseUrl` with `headers` as given,
 * `Host` included: node:http, since fetch (undici) will not set `Host`.
 */
export const sendRaw = (
  baseUrl: string,
  { method, path, headers = {}, body }: Omit<ForeignHostRequest, 'label'>,
  timeoutMs = 10_000,
): Promise<HostAnswer> => {
  const url = new URL(baseUrl)
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port,
        method,
        path,
        headers: {
          ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
          ...headers,
        },
      },
      (response) => {
        const chunks: Buffer[] = []
        const done = () =>
          resolve({
            status: response.statusCode ?? 0,
            rawHeaders: response.rawHeaders,
            text: Buffer.concat(chunks).toString('utf8'),
          })
        // A stream (server-sent events) is read for a while, then searched as far as it came.
        const cut = setTimeout(() => {
          response.destroy()
          done()
        }, timeoutMs)
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () => {
          clearTimeout(cut)
          done()
        })
        response.on('error', () => {
          clearTimeout(cut)
          done()
        })
      },
    )
    request.setTimeout(timeoutMs, () => request.destroy(new Error(`no answer in ${timeoutMs} ms`)))
    request.on('error', reject)
    request.end(body)
  })
}

const TOKEN = /[A-Za-z0-9+/_-]{12,}={0,2}/g

/** Every base64 or base64url token of `text`, decoded (what is not text decodes to noise). */
const decodedTokens = (text: string) =>
  [...text.matchAll(TOKEN)].map(([token]) => Buffer.from(token, 'base64').toString('utf8'))

/**
 * Everything an answer says, for a search: its headers and body, and each
 * base64 or base64url token in them decoded, twice over (`PAYMENT-REQUIRED`
 * is base64 JSON, MPP's `WWW-Authenticate` carries a base64url `request`, a
 * JWT base64url parts, and a body may quote any of them).
 */
export const answerText = ({ rawHeaders, text }: Pick<HostAnswer, 'rawHeaders' | 'text'>) => {
  const headers = rawHeaders.map((part, index) => (index % 2 ? `${part}\n` : `${part}: `)).join('')
  const plain = `${headers}\n${text}`
  const once = decodedTokens(plain).join('\n')
  return [plain, once, decodedTokens(once).join('\n')].join('\n')
}

/** Where `host` appears in what the answer says, with what is around it; undefined if nowhere. */
export const hostNamed = (answer: Pick<HostAnswer, 'rawHeaders' | 'text'>, host: string) => {
  const said = answerText(answer)
  const at = said.toLowerCase().indexOf(host.toLowerCase())
  if (at < 0) return undefined
  return said.slice(Math.max(0, at - 80), at + host.length + 80).replace(/\s+/g, ' ')
}

/**
 * An MCP `tools/call` as a request (JSON-RPC over Streamable HTTP), for
 * `requests`: the tools answer what their routes answer, and may write URLs too.
 */
export const mcpToolCall = (
  tool: string,
  args: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): ForeignHostRequest => ({
  label: `MCP ${tool}`,
  method: 'POST',
  path: '/mcp',
  headers: {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...headers,
  },
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: tool, arguments: args },
  }),
})

/**
 * Sends every operation of a running server's `/openapi.json` (its valid
 * request, from `samples`, without a credential and with each one its
 * `security` names), and each of `requests`, claiming to be for another
 * host: `Host`, `X-Forwarded-Host` and `Forwarded: host=` all name `host`.
 * A service that builds its absolute URLs (402 resources, documents, links)
 * on its configured base URL names that host nowhere in its answers:
 * headers, body, and base64 inside either. Each answer that does is a leak.
 *
 * @example
 * const { leaks } = await walkForeignHost({ baseUrl: server.url, requests: [mcpToolCall('skill')] })
 * expect(leaks).toEqual([])
 */
export const walkForeignHost = async ({
  baseUrl,
  host = FOREIGN_HOST,
  samples = {},
  operationSamples = {},
  credentials = {},
  requests = [],
  skip = () => false,
  timeoutMs = 10_000,
  onAnswer,
}: WalkForeignHostParameters): Promise<WalkForeignHostReturnType> => {
  const document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as OpenApiDocument
  const operations = listOperations(document).filter((operation) => !skip(operation))
  const foreign = { host, 'x-forwarded-host': host, forwarded: `host=${host};proto=https` }
  const statuses: Record<string, number> = {}
  const leaks: string[] = []
  const send = async (label: string, request: Omit<ForeignHostRequest, 'label'>) => {
    let answer: HostAnswer
    try {
      answer = await sendRaw(
        baseUrl,
        { ...request, headers: { ...request.headers, ...foreign } },
        timeoutMs,
      )
    } catch (error) {
      leaks.push(`${label}: no answer (${(error as Error).message})`)
      return
    }
    statuses[label] = answer.status
    onAnswer?.(label, answer)
    const named = hostNamed(answer, host)
    if (named) leaks.push(`${label} -> ${answer.status} names ${host}: ...${named}...`)
  }

  for (const operation of operations) {
    const label = `${operation.method} ${operation.path}`
    const named = { ...samples, ...operationSamples[label] }
    for (const scheme of operation.schemes.filter((name) => name === '' || credentials[name])) {
      const draft = validDraft(document, operation, named)
      const path = draftTarget(operation, draft)
      const body = operation.body === undefined ? undefined : JSON.stringify(draft.body)
      const proof = await credentialHeaders(scheme ? credentials[scheme] : undefined, {
        method: operation.method,
        path,
        body,
      })
      await send(`${label} [${scheme || 'no credential'}]`, {
        method: operation.method,
        path,
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...proof,
        },
        ...(body === undefined ? {} : { body }),
      })
    }
  }
  for (const { label, ...request } of requests)
    await send(label ?? `${request.method} ${request.path}`, request)
  return {
    operations: operations.map((operation) => `${operation.method} ${operation.path}`),
    statuses,
    leaks,
  }
}
