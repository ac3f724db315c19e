import { createApp, createLogger, startTestServer } from '@agents/service-kit'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createIdpClient } from '../idp-client.ts'
import type { IdpEvent } from '../types.ts'
import { verifyWebhook } from '../webhook.ts'
import { SIGNATURE_HEADER, TIMESTAMP_HEADER } from '../webhook-signature.ts'
import { createLocalIdp, type LocalIdp } from './local-idp.ts'

// A stand-in for the venue's webhook route: verify, record, answer like the spec.
const received: IdpEvent[] = []
const secret = 'local-test-webhook-secret'
let receiver: Awaited<ReturnType<typeof startTestServer>>
let idp: LocalIdp

beforeAll(async () => {
  const app = createApp({
    name: 'receiver',
    version: '0.0.0',
    logger: createLogger({ name: 'receiver', level: 'silent' }),
  })
  app.post('/api/identity/webhook/idp', async (c) => {
    const result = verifyWebhook({
      rawBody: new Uint8Array(await c.req.arrayBuffer()),
      signature: c.req.header(SIGNATURE_HEADER),
      timestamp: c.req.header(TIMESTAMP_HEADER),
      secret,
    })
    if (!result.ok) return c.json({ error: 'webhook rejected', reason: result.reason }, 400)
    received.push(result.event)
    return c.json({ ok: true })
  })
  // The venue's callback page: where the human's browser lands, never a webhook.
  app.get('/identity/done', (c) => c.text(`done ${c.req.query('status')}`))
  receiver = await startTestServer(app)
  idp = await createLocalIdp({ apiKey: 'k', webhookSecret: secret })
})
afterAll(async () => {
  await idp.close()
  await receiver.close()
})

const startSession = async (vendorData: string, apiVersion: 'v2' | 'v3' = 'v3') => {
  const client = createIdpClient({
    baseUrl: idp.url,
    apiKey: 'k',
    workflowId: 'wf',
    callbackUrl: `${receiver.url}/identity/done`,
    apiVersion,
  })
  const session = await client.createSession({ vendorData })
  if (!session.ok) throw new Error(session.detail)
  return session
}

test('default: create, decide, receive a signed webhook', async () => {
  const { sessionId } = await startSession('owner:1')
  const answer = await idp.decide(sessionId, { status: 'Approved', age: 30 })
  expect(answer).toMatchObject({ status: 200, json: { ok: true } })
  // No webhook URL set: the stand-in is the webhook route on the callback's origin, not the callback.
  expect(idp.lastDelivery?.url).toBe(`${receiver.url}/api/identity/webhook/idp`)
  expect(received.at(-1)).toMatchObject({
    webhookType: 'status.updated',
    sessionId,
    status: 'Approved',
    vendorData: 'owner:1',
    age: 30,
  })
  expect(idp.sessions.get(sessionId)?.status).toBe('Approved')
})

test('behavior: a declined check with a date of birth', async () => {
  const { sessionId } = await startSession('owner:2')
  await idp.decide(sessionId, { status: 'Declined', dateOfBirth: '2015-01-01' })
  expect(received.at(-1)).toMatchObject({ status: 'Declined', age: expect.any(Number) })
  expect(received.at(-1)!.age!).toBeLessThan(18)
})

test('behavior: replay and forgery through sendRaw', async () => {
  const { sessionId } = await startSession('owner:3')
  await idp.decide(sessionId, { status: 'Approved', age: 25 })
  const { url, body, headers } = idp.lastDelivery!
  // A replay inside the window verifies: making it harmless is the route's job (idempotency).
  expect((await idp.sendRaw(url, body, headers)).status).toBe(200)
  const forged = body.replace('"Approved"', '"Declined"')
  expect(await idp.sendRaw(url, forged, headers)).toMatchObject({
    status: 400,
    json: { reason: 'bad signature' },
  })
  const stale = { ...headers, [TIMESTAMP_HEADER]: String(Math.floor(Date.now() / 1000) - 400) }
  expect((await idp.sendRaw(url, body, stale)).json).toMatchObject({ reason: 'stale timestamp' })
})

test('behavior: the hosted page buttons send the decision, then the browser to the callback', async () => {
  const { sessionId, url } = await startSession('owner:4')
  const page = await (await fetch(url)).text()
  expect(page).toContain('id="approve"')
  const response = await fetch(`${idp.url}/verify/${sessionId}/decision`, {
    method: 'POST',
    body: new URLSearchParams({ status: 'Approved', age: '41' }),
    redirect: 'manual',
  })
  expect(response.status).toBe(303)
  expect(response.headers.get('location')).toBe(
    `${receiver.url}/identity/done?verificationSessionId=${sessionId}&status=Approved`,
  )
  expect(await (await fetch(response.headers.get('location')!)).text()).toBe('done Approved')
  expect(received.at(-1)).toMatchObject({ sessionId, status: 'Approved', age: 41 })
})

test('behavior: without a callback the hosted page shows the decision', async () => {
  const created = await fetch(`${idp.url}/v3/session/`, {
    method: 'POST',
    headers: { 'x-api-key': 'k', 'content-type': 'application/json' },
    body: JSON.stringify({ workflow_id: 'wf', vendor_data: 'owner:6' }),
  })
  const { session_id: sessionId } = (await created.json()) as { session_id: string }
  await expect(idp.decide(sessionId, { status: 'Declined' })).rejects.toThrow(/no webhook URL/)
  idp.setWebhookUrl(`${receiver.url}/api/identity/webhook/idp`)
  try {
    const response = await fetch(`${idp.url}/verify/${sessionId}/decision`, {
      method: 'POST',
      body: new URLSearchParams({ status: 'Declined' }),
      redirect: 'manual',
    })
    expect(response.status).toBe(200)
    expect(await response.text()).toContain('<span id="webhook-status">200</span>')
  } finally {
    idp.setWebhookUrl(undefined)
  }
})

test('behavior: v3 and v2 sessions, each created on its own path', async () => {
  for (const apiVersion of ['v3', 'v2'] as const) {
    const { sessionId } = await startSession(`owner:v-${apiVersion}`, apiVersion)
    expect(idp.sessions.get(sessionId)).toMatchObject({
      apiVersion,
      callback: `${receiver.url}/identity/done`,
    })
    expect((await idp.decide(sessionId, { status: 'Approved', age: 22 })).status).toBe(200)
    expect(received.at(-1)).toMatchObject({ sessionId, vendorData: `owner:v-${apiVersion}` })
  }
  for (const path of ['/v3/session/', '/v3/session', '/v2/session/', '/v2/session']) {
    const answer = await fetch(`${idp.url}${path}`, {
      method: 'POST',
      headers: { 'x-api-key': 'k', 'content-type': 'application/json' },
      body: JSON.stringify({
        workflow_id: 'wf',
        vendor_data: 'x',
        callback: 'https://v.example/d',
      }),
    })
    expect(answer.status).toBe(201)
    expect(await answer.json()).toMatchObject({
      status: 'Not Started',
      callback: 'https://v.example/d',
    })
  }
  expect((await fetch(`${idp.url}/v1/session/`, { method: 'POST' })).status).toBe(404)
})

test('behavior: a configured webhook URL, never the session callback', async () => {
  const fixed = await createLocalIdp({
    apiKey: 'k',
    webhookSecret: secret,
    webhookUrl: `${receiver.url}/api/identity/webhook/idp`,
  })
  const client = createIdpClient({
    baseUrl: fixed.url,
    apiKey: 'k',
    workflowId: 'wf',
    callbackUrl: 'https://venue.example/identity/done',
  })
  const session = await client.createSession({ vendorData: 'owner:5' })
  if (!session.ok) throw new Error(session.detail)
  expect((await fixed.decide(session.sessionId, { status: 'Approved', age: 19 })).status).toBe(200)
  expect(fixed.lastDelivery?.url).toBe(`${receiver.url}/api/identity/webhook/idp`)
  // Set later, as in Didit's console.
  fixed.setWebhookUrl(`${receiver.url}/elsewhere`)
  expect((await fixed.decide(session.sessionId, { status: 'Declined' })).status).toBe(404)
  expect(fixed.lastDelivery?.url).toBe(`${receiver.url}/elsewhere`)
  await fixed.close()
})

test('behavior: session creation checks the API key and the body', async () => {
  const post = (headers: Record<string, string>, body: string) =>
    fetch(`${idp.url}/v2/session/`, { method: 'POST', headers, body })
  expect((await post({ 'content-type': 'application/json' }, '{"workflow_id":"wf"}')).status).toBe(
    403,
  )
  expect((await post({ 'x-api-key': 'k', 'content-type': 'application/json' }, '{}')).status).toBe(
    400,
  )
})
