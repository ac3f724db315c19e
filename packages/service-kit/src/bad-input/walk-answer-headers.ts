import { SECURITY_HEADERS } from '../http/secure-headers.ts'
import { listOperations, type OpenApiDocument } from './openapi-operations.ts'
import { type Samples, sampleFromSchema } from './sample-from-schema.ts'

export type WalkAnswerHeadersParameters = {
  /** The running server; its `/openapi.json` says what to walk. */
  baseUrl: string
  /** HTML pages to fetch (paths, with their query), beside the document's operations. */
  pages?: string[]
  /** Valid values by field or param name, so that requests reach their routes. */
  samples?: Samples
}

export type WalkAnswerHeadersReturnType = {
  /** `METHOD /path -> status` of every request sent. */
  answers: string[]
  /** How many answers were HTML pages (their policy and script nonces checked). */
  pages: number
  /** One line per header missing or wrong, per answer. */
  failures: string[]
}

const NONCE = /script-src 'nonce-([A-Za-z0-9+/=]+)'/

/**
 * Sends every operation of a running server's `/openapi.json` (its sample
 * request, no credential), each of `pages`, an unknown path and a wrong
 * method, and checks the headers every answer must carry, whatever its
 * status: `X-Content-Type-Options: nosniff`, `X-Frame-Options: DENY`,
 * `Referrer-Policy: no-referrer`, a Content-Security-Policy with
 * `frame-ancestors 'none'`; on an HTML answer a policy whose scripts and
 * styles run only by a nonce, every `<script>` and `<style>` of the page
 * carrying that nonce, and no inline style or event attribute (which that
 * policy would block).
 *
 * @example
 * const { failures } = await walkAnswerHeaders({ baseUrl: server.url, pages: ['/'] })
 * expect(failures).toEqual([])
 */
export const walkAnswerHeaders = async ({
  baseUrl,
  pages = [],
  samples = {},
}: WalkAnswerHeadersParameters): Promise<WalkAnswerHeadersReturnType> => {
  const document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as OpenApiDocument
  const answers: string[] = []
  const failures: string[] = []
  let htmlPages = 0

  const check = async (method: string, target: string, body?: string) => {
    const response = await fetch(`${baseUrl}${target}`, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body }),
    })
    const text = await response.text()
    const label = `${method} ${target} -> ${response.status}`
    answers.push(label)
    const headers = response.headers
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
      if (name === 'content-security-policy') continue
      if (headers.get(name) !== value)
        failures.push(`${label}: ${name} is ${headers.get(name) ?? 'missing'}`)
    }
    const policy = headers.get('content-security-policy') ?? ''
    if (!policy.includes("frame-ancestors 'none'"))
      failures.push(`${label}: content-security-policy without frame-ancestors 'none': ${policy}`)
    if (!headers.get('content-type')?.startsWith('text/html')) return
    htmlPages++
    const nonce = NONCE.exec(policy)?.[1]
    for (const directive of ['script-src', 'style-src']) {
      const sources = new RegExp(`${directive}[^;]*`).exec(policy)?.[0] ?? ''
      if (!nonce || !sources.includes(`'nonce-${nonce}'`) || /unsafe-/.test(sources))
        failures.push(`${label}: a page whose ${directive} is not its nonce alone: ${policy}`)
    }
    for (const tag of text.match(/<(script|style)\b[^>]*>/gi) ?? [])
      if (!tag.includes(`nonce="${nonce}"`))
        failures.push(`${label}: an element the policy does not allow: ${tag}`)
    if (/\sstyle=|\son[a-z]+=/i.test(text))
      failures.push(`${label}: an inline style or event attribute, which the policy blocks`)
  }

  for (const operation of listOperations(document)) {
    const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const param = operation.pathParams.find((candidate) => candidate.name === name)
      return encodeURIComponent(String(sampleFromSchema(document, samples, param?.schema, name)))
    })
    const body =
      operation.body && JSON.stringify(sampleFromSchema(document, samples, operation.body))
    await check(operation.method, path, body)
  }
  for (const page of pages) await check('GET', page)
  await check('GET', '/no/such/path/at/all')
  await check('DELETE', '/health')
  return { answers, pages: htmlPages, failures }
}
