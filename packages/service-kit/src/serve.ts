import { createServer, type RequestListener } from 'node:http'
import type { AddressInfo } from 'node:net'
import { serve as serveNode } from '@hono/node-server'
import type { App, NoVariables } from './app-type.ts'
import { SECURITY_HEADERS } from './http/secure-headers.ts'
import type { Logger } from './logger.ts'
import { sanitizeError } from './sanitize-error.ts'

export type ServeParameters = {
  port: number
  host?: string
  logger: Logger
  /** Run as closing begins, before draining: end long-lived responses (event streams) so the drain is quick. */
  onClosing?: () => void
  /** Run after the HTTP server stopped accepting and drained (close pools, databases). */
  onClose?: () => Promise<void> | void
  /** Install SIGTERM/SIGINT handlers that close gracefully and exit. */
  handleSignals?: boolean
  /** Longest wait for in-flight requests on shutdown before forcing exit. */
  shutdownTimeoutMs?: number
  /**
   * How long an idle keep-alive connection stays open. Longer than the
   * idle timeout of the proxies and clients in front (60 s at most AWS
   * load balancers, 4 s in undici): a server that closes first races the
   * client's next request on that socket, which then fails with ECONNRESET
   * (Node's default of 5 s lost that race in the tests whenever the event
   * loop was busy past it).
   */
  keepAliveTimeoutMs?: number
  /**
   * Puts a listener of the service's own in front of the app's on the
   * node:http server (the launch router's hot path); it calls the app's for
   * every request it does not answer.
   */
  wrapListener?: (app: RequestListener) => RequestListener
}

const INTERNAL_ERROR = JSON.stringify({ error: 'internal' })

/**
 * The last error boundary, around the node:http listener itself: the app
 * answers its own errors (`onError`), but a listener in front of it (the
 * launch router's hot path) or @hono/node-server's own code that throws
 * would otherwise end the process. The request gets 500 `internal` (with
 * the headers every answer carries) and the server keeps serving.
 */
const guardListener =
  (listener: RequestListener, logger: Logger): RequestListener =>
  (incoming, outgoing) => {
    try {
      listener(incoming, outgoing)
    } catch (error) {
      logger.error(
        { err: sanitizeError(error), method: incoming.method, path: incoming.url },
        'unhandled error',
      )
      if (outgoing.headersSent) return void outgoing.destroy()
      outgoing
        .writeHead(500, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(INTERNAL_ERROR),
          ...SECURITY_HEADERS,
        })
        .end(INTERNAL_ERROR)
    }
  }

export type RunningServer<variables extends object = NoVariables> = {
  url: string
  port: number
  close: () => Promise<void>
  /** The app being served (tests compare its registered routes with its document). */
  app: App<variables>
}

/**
 * Starts `app` on `host:port` and resolves once it listens. `close` stops
 * accepting, waits for in-flight requests, then runs `onClose`.
 */
export const serve = <variables extends object = NoVariables>(
  app: App<variables>,
  {
    port,
    host = '127.0.0.1',
    logger,
    onClosing,
    onClose,
    handleSignals = false,
    shutdownTimeoutMs = 10_000,
    keepAliveTimeoutMs = 65_000,
    wrapListener,
  }: ServeParameters,
): Promise<RunningServer<variables>> =>
  new Promise((resolve) => {
    const guarded = {
      createServer: ((options: object, listener: RequestListener) =>
        createServer(
          options,
          guardListener(wrapListener ? wrapListener(listener) : listener, logger),
        )) as typeof createServer,
    }
    const server = serveNode(
      { fetch: app.fetch, port, hostname: host, ...guarded },
      (info: AddressInfo) => {
        const shownHost = host.includes(':') ? `[${host}]` : host
        const url = `http://${shownHost}:${info.port}`
        let closing: Promise<void> | undefined
        const close = () => {
          closing ??= (async () => {
            onClosing?.()
            await new Promise<void>((done) => {
              // Keep-alive sockets would hold close() open until they time out:
              // drop each one as soon as its in-flight request has been answered.
              const reap = setInterval(() => {
                if ('closeIdleConnections' in server) server.closeIdleConnections()
              }, 25)
              server.close(() => {
                clearInterval(reap)
                done()
              })
              if ('closeIdleConnections' in server) server.closeIdleConnections()
            })
            await onClose?.()
          })()
          return closing
        }
        if (handleSignals) {
          const onSignal = (signal: NodeJS.Signals) => {
            logger.info({ signal }, 'shutting down')
            const force = setTimeout(() => process.exit(1), shutdownTimeoutMs)
            force.unref()
            close().then(
              () => process.exit(0),
              (error) => {
                logger.error({ err: error }, 'shutdown failed')
                process.exit(1)
              },
            )
          }
          process.once('SIGTERM', onSignal)
          process.once('SIGINT', onSignal)
          // A promise some request left behind that failed unobserved is a
          // bug to log, not a reason to drop every other request in flight
          // (Node's default ends the process).
          process.on('unhandledRejection', (reason) =>
            logger.error({ err: sanitizeError(reason) }, 'unhandled rejection'),
          )
        }
        resolve({ url, port: info.port, close, app })
      },
    )
    if ('keepAliveTimeout' in server) {
      server.keepAliveTimeout = keepAliveTimeoutMs
      // Headers must be allowed longer than an idle connection lasts (Node's rule).
      server.headersTimeout = keepAliveTimeoutMs + 1_000
    }
  })
