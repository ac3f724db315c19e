import { createServer } from 'node:net'
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest'
import { createIdpClient } from './idp-client.ts'
import { createLocalIdp, type LocalIdp } from './testing/local-idp.ts'

let idp: LocalIdp
beforeAll(async () => {
  idp = await createLocalIdp({ apiKey: 'test-key' })
})
afterEach(() => idp.misbehave(undefined))
afterAll(() => idp.close())

const clientFor = (overrides: Partial<Parameters<typeof createIdpClient>[0]> = {}) =>
  createIdpClient({
    baseUrl: idp.url,
    apiKey: 'test-key',
    workflowId: 'wf-adult-check',
    callbackUrl: 'https://venue.example/identity/done',
    ...overrides,
  })

test('default', async () => {
  const session = await clientFor().createSession({ vendorData: '42', metadata: { couple: 7 } })
  expect(session).toEqual({
    ok: true,
    sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    url: expect.stringMatching(/\/verify\/[0-9a-f-]{36}$/),
  })
  if (!session.ok) return
  // v3 by default; the callback is the page the human's browser returns to.
  expect(idp.sessions.get(session.sessionId)).toEqual({
    sessionId: session.sessionId,
    apiVersion: 'v3',
    workflowId: 'wf-adult-check',
    vendorData: '42',
    callback: 'https://venue.example/identity/done',
    metadata: { couple: 7 },
    status: 'Not Started',
  })
  const page = await fetch(session.url)
  expect(await page.text()).toContain(`Identity check for session ${session.sessionId}`)
})

test('behavior: each API version posts to its own path with the same fields', async () => {
  for (const apiVersion of ['v3', 'v2'] as const) {
    const session = await clientFor({ baseUrl: `${idp.url}/`, apiVersion }).createSession({
      vendorData: `43-${apiVersion}`,
    })
    if (!session.ok) throw new Error(session.detail)
    expect(idp.sessions.get(session.sessionId)).toMatchObject({
      apiVersion,
      vendorData: `43-${apiVersion}`,
      callback: 'https://venue.example/identity/done',
    })
  }
})

test('behavior: a wrong API key', async () => {
  const session = await clientFor({ apiKey: 'nope' }).createSession({ vendorData: '42' })
  expect(session).toEqual({
    ok: false,
    reason: 'http_error',
    detail: 'identity provider answered 403',
    status: 403,
  })
})

test('behavior: timeout', async () => {
  idp.misbehave({ delayMs: 1000 })
  const session = await clientFor({ timeoutMs: 100 }).createSession({ vendorData: '42' })
  expect(session).toMatchObject({ ok: false, reason: 'timeout' })
})

test('behavior: server error and redirects', async () => {
  for (const status of [500, 302]) {
    idp.misbehave({ status })
    expect(await clientFor().createSession({ vendorData: '42' })).toMatchObject({
      ok: false,
      reason: 'http_error',
      status,
    })
  }
})

test('behavior: malformed answers', async () => {
  const answers = [
    'not json',
    '{"session_id": "abc"}',
    '{"session_id": "abc", "url": "javascript:alert(1)"}',
    '{"url": "https://verify.example/s/1"}',
  ]
  for (const body of answers) {
    idp.misbehave({ status: 201, body })
    expect(await clientFor().createSession({ vendorData: '42' })).toMatchObject({
      ok: false,
      reason: 'bad_response',
      status: 201,
    })
  }
})

test('behavior: nothing listening', async () => {
  const port = await new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
  const session = await clientFor({ baseUrl: `http://127.0.0.1:${port}` }).createSession({
    vendorData: '42',
  })
  expect(session).toMatchObject({ ok: false, reason: 'network' })
})
