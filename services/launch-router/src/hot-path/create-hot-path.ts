import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import {
  clientGroup,
  type ForwardedTrust,
  isJsonMediaType,
  jsonDepthExceeds,
  type LimitDecision,
  type Limits,
  type Logger,
  limitHeaders,
  MAX_JSON_DEPTH,
  type Metrics,
  requestAddress,
  SECURITY_HEADERS,
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
  /** The app's JSON depth limit: a deeper body goes to the app, which refuses it. */
  maxJsonDepth?: number
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

const JSON_HEADERS = { 'content-type': 'application/json', ...SECURITY_HEADERS }

/** Header lines as the app writes them: set on its Headers, so lower case, in name order. */
const headerLines = (headers: Record<string, string>) =>
  Object.entries(headers)
    .map(([name, value]) => [name.toLowerCase(), value] as const)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .flat()
const INTERNAL_ERROR = JSON.stringify({ error: 'internal' })

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
  maxJsonDepth = MAX_JSON_DEPTH,
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
    headerRecord: Record<string, string>,
    body: string | Buffer,
  ) => {
    const headers = [
      ...headerLines(headerRecord),
      'Content-Length',
      String(Buffer.byteLength(body)),
    ]
    outgoing.writeHead(status, headers).end(body)
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
    const headers = { ...JSON_HEADERS, ...limitHeaders(decision) }
    finish(route, outgoing, started, 429, headers, await tooManyRequestsResponse(decision).text())
  }

  const answer = (
    route: Route,
    incoming: IncomingMessage,
    outgoing: ServerResponse,
    started: number,
    chunks: Buffer[],
    fallback: RequestListener,
  ) => {
    const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
    const handOver = () => {
      ;(incoming as IncomingMessage & { rawBody?: Buffer }).rawBody = raw
      fallback(incoming, outgoing)
    }
    // Too deep for any operation: the app refuses it (400) before parsing.
    if (jsonDepthExceeds(raw, maxJsonDepth)) return handOver()
    let json: unknown
    try {
      json = JSON.parse(raw.toString())
    } catch {
      return handOver()
    }
    const body = answerOperation(deps, route.operation, json)
    if (body === undefined) return handOver()
    if (!limits || route.limit === undefined)
      return finish(route, outgoing, started, 200, JSON_HEADERS, body)
    return limits.limits.take(route.limit, clientKey(incoming, limits.trustForwardedFor)).then(
      (decision) => {
        if (!decision.allowed) return refuse(route, outgoing, started, decision)
        finish(route, outgoing, started, 200, { ...JSON_HEADERS, ...limitHeaders(decision) }, body)
      },
      // A store that fails (PostgreSQL down): the app takes again and answers its 503.
      handOver,
    )
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
      // The app's error boundary does not reach here: a bug answers 500 and
      // the process keeps serving, as it would behind the app.
      const failed = (error: unknown) => {
        logger.error({ err: error, method: 'POST', path: route.path }, 'unhandled error')
        if (outgoing.headersSent) return outgoing.destroy()
        finish(route, outgoing, started, 500, JSON_HEADERS, INTERNAL_ERROR)
      }
      const chunks: Buffer[] = []
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk))
      incoming.on('end', () => {
        try {
          const pending = answer(route, incoming, outgoing, started, chunks, fallback)
          if (pending instanceof Promise) pending.catch(failed)
        } catch (error) {
          failed(error)
        }
      })
    }
}
