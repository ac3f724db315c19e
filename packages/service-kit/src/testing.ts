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
