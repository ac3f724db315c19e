import type { App } from './create-app.ts'
import { createLogger } from './logger.ts'
import { serve } from './serve.ts'

/** Starts `app` on an ephemeral loopback port for a test; call `close` in `afterAll`. */
export const startTestServer = (app: App) =>
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
export const undocumentedRoutes = (app: App, openapi: OpenApiPaths) => {
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
