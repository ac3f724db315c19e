import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import {
  type App,
  classOf,
  clientGroup,
  declaredRoutes,
  type ForwardedTrust,
  isJsonMediaType,
  jsonDepthExceeds,
  type LimitDecision,
  type Logger,
  limitOfRoute,
  MAX_JSON_DEPTH,
  type Metrics,
  type RequestLimits,
  recordRequest,
  requestAddress,
  SECURITY_HEADERS,
  tooManyRequestsResponse,
} from '@agents/service-kit'
import type { RouterLimitName } from '../limits/limit-defaults.ts'
import {
  type AnswerOperationDeps,
  answerOperation,
  HOT_OPERATIONS,
  type HotOperation,
} from './answer-operation.ts'

export type CreateHotPathParameters = {
  deps: AnswerOperationDeps
  /** The app behind: each operation's limit is the one its route declared there. */
  app: App
  logger: Logger
  maxBodyBytes: number
  /** The app's JSON depth limit: a deeper body goes to the app, which refuses it. */
  maxJsonDepth?: number
  limits?: RequestLimits<RouterLimitName> | undefined
  metrics?: Metrics | undefined
}

type Route = {
  operation: HotOperation
  route: { method: 'POST'; path: string }
  limit: RouterLimitName | undefined
}

/** The client a request counts for, as the kit's `limitRequests` keys it (no credentials here). */
const clientKey = (incoming: IncomingMessage, trust: ForwardedTrust | undefined) => {
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
 * its answer is a 200 (`answerOperation`), answered here, with the limit
 * its route declares taken, and the request recorded (RateLimit headers,
 * `/metrics`, the log line) by the app's own `recordRequest`, so with the
 * same bytes and headers. Anything else,
 * and every other request, goes to the app (`fallback`), the body already
 * read handed over as `rawBody` (@hono/node-server reads it from there).
 */
export const createHotPath = ({
  deps,
  app,
  logger,
  maxBodyBytes,
  maxJsonDepth = MAX_JSON_DEPTH,
  limits,
  metrics,
}: CreateHotPathParameters) => {
  const declared = declaredRoutes(app)
  const routes = new Map<string, Route>(
    Object.keys(HOT_OPERATIONS).flatMap((operation): Array<[string, Route]> => {
      const route = { method: 'POST' as const, path: `/api/v1/${operation}` }
      const limit = limits && limitOfRoute(declared, limits.unlisted, route)
      // A route that counts credentials is keyed by them: the app's to answer.
      if (limit && limit.credentials.length > 0) return []
      const name = limit && (classOf(limit, false) as RouterLimitName | undefined)
      return [[route.path, { operation: operation as HotOperation, route, limit: name }]]
    }),
  )

  const finish = (
    { route }: Route,
    outgoing: ServerResponse,
    started: number,
    status: number,
    headerRecord: Record<string, string>,
    body: string | Buffer,
    limit?: LimitDecision,
  ) => {
    const headers = { ...headerRecord }
    recordRequest(
      { logger, metrics },
      { method: route.method, path: route.path, route, status, started, limit },
      { has: (header) => header in headers, set: (header, value) => (headers[header] = value) },
    )
    outgoing
      .writeHead(status, [
        ...headerLines(headers),
        'Content-Length',
        String(Buffer.byteLength(body)),
      ])
      .end(body)
  }

  const refuse = async (
    route: Route,
    outgoing: ServerResponse,
    started: number,
    decision: LimitDecision,
  ) => {
    metrics?.limited.inc({ limit: decision.name })
    const body = await tooManyRequestsResponse(decision).text()
    finish(route, outgoing, started, 429, JSON_HEADERS, body, decision)
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
        finish(route, outgoing, started, 200, JSON_HEADERS, body, decision)
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
        logger.error({ err: error, method: 'POST', path: route.route.path }, 'unhandled error')
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
