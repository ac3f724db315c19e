import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import {
  clientGroup,
  type ForwardedTrust,
  isJsonMediaType,
  type LimitDecision,
  type Limits,
  type Logger,
  limitHeaders,
  type Metrics,
  requestAddress,
  tooManyRequestsResponse,
} from '@agents/service-kit'
import { classifyRoute } from '../limits/classify-route.ts'
import type { RouterLimitName } from '../limits/limit-defaults.ts'
import {
  type AnswerOperationDeps,
  answerOperation,
  HOT_OPERATIONS,
  type HotOperation,
} from './answer-operation.ts'

export type CreateHotPathParameters = {
  deps: AnswerOperationDeps
  logger: Logger
  maxBodyBytes: number
  limits?: { limits: Limits<RouterLimitName>; trustForwardedFor: ForwardedTrust } | undefined
  metrics?: Metrics | undefined
}

type Route = { operation: HotOperation; path: string; limit: RouterLimitName | undefined }

/** The client a request counts for, as the kit's `limitRequests` keys it (no credentials here). */
const clientKey = (incoming: IncomingMessage, trust: ForwardedTrust) => {
  const address = requestAddress(
    {
      // node:http joins repeated X-Forwarded-For lines with ", " into one string.
      forwardedFor: incoming.headers['x-forwarded-for'] as string | undefined,
      remote: incoming.socket.remoteAddress,
    },
    { trustForwardedFor: trust },
  )
  return `ip:${clientGroup(address ?? 'unknown')}`
}

const JSON_HEADERS = ['content-type', 'application/json']

/**
 * The router's hot path, in front of the app on the node:http server: a
 * POST to an operation with a JSON body of known length is read here and, if
 * its answer is a 200 (`answerOperation`), answered here, with the request
 * limit taken, the request counted in `/metrics` and logged exactly as the
 * app's middleware would, and the same bytes and headers. Anything else,
 * and every other request, goes to the app (`fallback`), the body already
 * read handed over as `rawBody` (@hono/node-server reads it from there).
 */
export const createHotPath = ({
  deps,
  logger,
  maxBodyBytes,
  limits,
  metrics,
}: CreateHotPathParameters) => {
  const routes = new Map<string, Route>(
    Object.keys(HOT_OPERATIONS).map((operation) => {
      const path = `/api/v1/${operation}`
      const limit = classifyRoute({ method: 'POST', path })
      return [path, { operation: operation as HotOperation, path, limit }]
    }),
  )

  const finish = (
    route: Route,
    outgoing: ServerResponse,
    started: number,
    status: number,
    headers: string[],
    body: string | Buffer,
  ) => {
    if (status === 200) {
      headers.push('Content-Length', String(Buffer.byteLength(body)))
      outgoing.writeHead(status, headers).end(body)
    } else {
      // The app's 429 leaves its length to node:http, which writes it last.
      outgoing.statusCode = status
      for (let index = 0; index < headers.length; index += 2)
        outgoing.setHeader(headers[index]!, headers[index + 1]!)
      outgoing.end(body)
    }
    const ms = performance.now() - started
    if (metrics) {
      metrics.requests.inc({ method: 'POST', route: route.path, status })
      metrics.duration.observe({ method: 'POST', route: route.path }, ms / 1000)
    }
    logger[status === 429 ? 'debug' : 'info'](
      { method: 'POST', path: route.path, status, ms: Math.round(ms * 10) / 10 },
      'request',
    )
  }

  const refuse = async (
    route: Route,
    outgoing: ServerResponse,
    started: number,
    decision: LimitDecision,
  ) => {
    metrics?.limited.inc({ limit: decision.name })
    // The app writes this answer's headers as the kit's middleware lists them.
    const headers = [...JSON_HEADERS, ...Object.entries(limitHeaders(decision)).flat()]
    finish(route, outgoing, started, 429, headers, await tooManyRequestsResponse(decision).text())
  }

  return (fallback: RequestListener): RequestListener =>
    function hotPath(incoming, outgoing) {
      const route = incoming.method === 'POST' ? routes.get(incoming.url ?? '') : undefined
      const length = incoming.headers['content-length']
      if (
        route === undefined ||
        length === undefined ||
        incoming.headers['transfer-encoding'] !== undefined ||
        Number(length) > maxBodyBytes ||
        !isJsonMediaType(incoming.headers['content-type'])
      )
        return fallback(incoming, outgoing)
      const started = performance.now()
      const chunks: Buffer[] = []
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk))
      incoming.on('end', () => {
        const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
        const handOver = () => {
          ;(incoming as IncomingMessage & { rawBody?: Buffer }).rawBody = raw
          fallback(incoming, outgoing)
        }
        let json: unknown
        try {
          json = JSON.parse(raw.toString())
        } catch {
          return handOver()
        }
        const body = answerOperation(deps, route.operation, json)
        if (body === undefined) return handOver()
        if (!limits || route.limit === undefined)
          return finish(route, outgoing, started, 200, [...JSON_HEADERS], body)
        limits.limits.take(route.limit, clientKey(incoming, limits.trustForwardedFor)).then(
          (decision) => {
            if (!decision.allowed) return refuse(route, outgoing, started, decision)
            // As the app writes them: set on its Headers, so lower case, in name order.
            const { RateLimit, 'RateLimit-Policy': policy } = limitHeaders(decision)
            const headers = [...JSON_HEADERS, 'ratelimit', RateLimit!, 'ratelimit-policy', policy!]
            finish(route, outgoing, started, 200, headers, body)
          },
          // A store that fails (PostgreSQL down): the app takes again and answers its 503.
          handOver,
        )
      })
    }
}
