import { createApp, createLogger, serve, startTestServer } from '@agents/service-kit'
import type { MiddlewareHandler } from 'hono'
import { expect, onTestFinished, test } from 'vitest'
import { GEO_DENIED_MESSAGE, type GeoGateOptions, geoGate } from './geo-gate.ts'

const logger = createLogger({ name: 'geo-test', level: 'silent' })

/** A venue-like app with the gate in front of one route, on a real port. */
const startGated = async (
  options: Omit<GeoGateOptions, 'onDenied'>,
  { host, failingCounter = false }: { host?: string; failingCounter?: boolean } = {},
) => {
  const app = createApp({
    name: 'geo-test',
    version: '0.0.0',
    logger,
    notFoundMessage: 'no such room',
  })
  const routeCalls: (string | undefined)[] = []
  const denials: (string | undefined)[] = []
  const onDenied = (country: string | undefined) => {
    denials.push(country)
    if (failingCounter) throw new Error('counter down')
  }
  app.use(geoGate({ ...options, onDenied })).get('/hello', (c) => {
    routeCalls.push(c.get('geoCountry'))
    return c.json({ ok: true })
  })
  const server = host ? await serve(app, { port: 0, host, logger }) : await startTestServer(app)
  onTestFinished(() => server.close())
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${server.url}${path}`, { headers })
    return { status: response.status, json: await response.json() }
  }
  return { get, routeCalls, denials }
}

const denied = { status: 403, json: { error: GEO_DENIED_MESSAGE } }
const allowed = { status: 200, json: { ok: true } }

test('default: loopback has no record and unknownPolicy allow lets it in', async () => {
  const { get, routeCalls, denials } = await startGated({
    restricted: ['IR'],
    unknownPolicy: 'allow',
  })
  expect(await get('/hello')).toEqual(allowed)
  expect(routeCalls).toEqual([undefined])
  expect(denials).toEqual([])
})

test('behavior: unknownPolicy deny refuses loopback before the route runs', async () => {
  const { get, routeCalls, denials } = await startGated({ restricted: [], unknownPolicy: 'deny' })
  expect(await get('/hello')).toEqual(denied)
  expect(routeCalls).toEqual([])
  expect(denials).toEqual([undefined])
})

test('behavior: trusted country header', async () => {
  const { get, routeCalls, denials } = await startGated({
    restricted: ['IR', 'KP', 'T1'],
    trustedCountryHeader: 'CF-IPCountry',
    unknownPolicy: 'allow',
  })
  expect(await get('/hello', { 'cf-ipcountry': 'IR' })).toEqual(denied)
  expect(await get('/hello', { 'cf-ipcountry': 'kp' })).toEqual(denied)
  expect(await get('/hello', { 'cf-ipcountry': 'T1' })).toEqual(denied)
  expect(await get('/hello', { 'cf-ipcountry': 'US' })).toEqual(allowed)
  // XX (no data) and junk are unknown: this app allows unknown.
  expect(await get('/hello', { 'cf-ipcountry': 'XX' })).toEqual(allowed)
  expect(await get('/hello', { 'cf-ipcountry': 'Iran' })).toEqual(allowed)
  expect(routeCalls).toEqual(['US', undefined, undefined])
  expect(denials).toEqual(['IR', 'KP', 'T1'])
})

test('behavior: XX from the trusted header is unknown, so unknownPolicy deny refuses it', async () => {
  const { get } = await startGated({
    restricted: ['IR'],
    trustedCountryHeader: 'cf-ipcountry',
    unknownPolicy: 'deny',
  })
  expect(await get('/hello', { 'cf-ipcountry': 'XX' })).toEqual(denied)
  expect(await get('/hello', { 'cf-ipcountry': 'T1' })).toEqual(allowed)
  expect(await get('/hello', { 'cf-ipcountry': 'FR' })).toEqual(allowed)
})

test('behavior: the country header is ignored unless configured', async () => {
  const { get, denials } = await startGated({ restricted: ['IR'], unknownPolicy: 'allow' })
  expect(await get('/hello', { 'cf-ipcountry': 'IR' })).toEqual(allowed)
  expect(denials).toEqual([])
})

test('behavior: trusted X-Forwarded-For, rightmost-untrusted hop', async () => {
  const { get, routeCalls, denials } = await startGated({
    restricted: ['IR', 'KP'],
    trustForwardedFor: true,
    unknownPolicy: 'deny',
  })
  expect(await get('/hello', { 'x-forwarded-for': '5.22.0.1' })).toEqual(denied)
  expect(await get('/hello', { 'x-forwarded-for': '175.45.176.1, 10.0.0.2' })).toEqual(denied)
  expect(await get('/hello', { 'x-forwarded-for': '8.8.8.8' })).toEqual(allowed)
  // A client in Iran prepending a US address does not get through...
  expect(await get('/hello', { 'x-forwarded-for': '8.8.8.8, 5.22.0.1' })).toEqual(denied)
  // ...and an entry the client wrote left of the real hop is not held against it.
  expect(await get('/hello', { 'x-forwarded-for': '5.22.0.1, 8.8.8.8' })).toEqual(allowed)
  // No header: the socket (loopback, no record) decides.
  expect(await get('/hello')).toEqual(denied)
  expect(routeCalls).toEqual(['US', 'US'])
  expect(denials).toEqual(['IR', 'KP', 'IR', undefined])
})

test('behavior: behind a number of proxies, the client is that many entries from the right', async () => {
  const { get } = await startGated({
    restricted: ['IR'],
    trustForwardedFor: 2,
    unknownPolicy: 'allow',
  })
  // Two proxies appended what they saw: the client is the second from the right, whatever it is.
  expect(await get('/hello', { 'x-forwarded-for': '8.8.8.8, 5.22.0.1, 10.0.0.2' })).toEqual(denied)
  expect(await get('/hello', { 'x-forwarded-for': '5.22.0.1, 8.8.8.8, 10.0.0.2' })).toEqual(allowed)
})

test('behavior: X-Forwarded-For is ignored unless configured', async () => {
  const { get } = await startGated({ restricted: ['IR'], unknownPolicy: 'allow' })
  expect(await get('/hello', { 'x-forwarded-for': '5.22.0.1' })).toEqual(allowed)
})

test('behavior: a present trusted header wins over the address', async () => {
  const { get } = await startGated({
    restricted: ['IR'],
    trustedCountryHeader: 'cf-ipcountry',
    trustForwardedFor: true,
    unknownPolicy: 'allow',
  })
  expect(await get('/hello', { 'cf-ipcountry': 'US', 'x-forwarded-for': '5.22.0.1' })).toEqual(
    allowed,
  )
  expect(await get('/hello', { 'cf-ipcountry': 'IR', 'x-forwarded-for': '8.8.8.8' })).toEqual(
    denied,
  )
  expect(await get('/hello', { 'x-forwarded-for': '5.22.0.1' })).toEqual(denied)
})

test('behavior: IPv6 socket and IPv6 forwarded addresses', async () => {
  const loopback6 = await startGated({ restricted: ['IR'], unknownPolicy: 'deny' }, { host: '::1' })
  expect(await loopback6.get('/hello')).toEqual(denied)

  const open6 = await startGated({ restricted: ['IR'], unknownPolicy: 'allow' }, { host: '::1' })
  expect(await open6.get('/hello')).toEqual(allowed)

  const forwarded = await startGated(
    { restricted: ['IR'], trustForwardedFor: true, unknownPolicy: 'allow' },
    { host: '::1' },
  )
  expect(await forwarded.get('/hello', { 'x-forwarded-for': '2a01:5ec0::1' })).toEqual(denied)
  expect(await forwarded.get('/hello', { 'x-forwarded-for': '[2a01:5ec0::1]:443' })).toEqual(denied)
  expect(await forwarded.get('/hello', { 'x-forwarded-for': '::ffff:5.22.0.1' })).toEqual(denied)
  expect(await forwarded.get('/hello', { 'x-forwarded-for': '2001:4860:4860::8888' })).toEqual(
    allowed,
  )
  expect(forwarded.routeCalls).toEqual(['US'])
})

test('behavior: the gate runs before the 404', async () => {
  const closed = await startGated({ restricted: ['IR'], unknownPolicy: 'deny' })
  expect(await closed.get('/no/such/path')).toEqual(denied)
  const open = await startGated({ restricted: ['IR'], unknownPolicy: 'allow' })
  expect(await open.get('/no/such/path')).toEqual({ status: 404, json: { error: 'no such room' } })
})

test('behavior: a failing denial counter still refuses', async () => {
  const { get, denials } = await startGated(
    { restricted: [], unknownPolicy: 'deny' },
    { failingCounter: true },
  )
  expect(await get('/hello')).toEqual(denied)
  expect(denials).toEqual([undefined])
})

test('behavior: without a socket (in-process request) the country is unknown', async () => {
  const app = createApp({ name: 'geo-test', version: '0.0.0', logger })
  app.use(geoGate({ restricted: ['IR'], unknownPolicy: 'deny' })).get('/hello', (c) => c.json({}))
  expect((await app.request('/hello')).status).toBe(403)
})

test('behavior: in the createApp gate slot it runs before built-in routes like /health', async () => {
  // The slot takes an untyped MiddlewareHandler, as the venue's buildApp does.
  const gate: MiddlewareHandler = geoGate({
    restricted: ['IR'],
    trustedCountryHeader: 'cf-ipcountry',
    unknownPolicy: 'allow',
  })
  const app = createApp({
    name: 'geo-test',
    version: '0.0.0',
    logger,
    notFoundMessage: 'no such room',
    gate,
  })
  const server = await startTestServer(app)
  onTestFinished(() => server.close())
  const health = (country: string) =>
    fetch(`${server.url}/health`, { headers: { 'cf-ipcountry': country } })
  expect((await health('US')).status).toBe(200)
  const refused = await health('IR')
  expect({ status: refused.status, json: await refused.json() }).toEqual(denied)
  const post = await fetch(`${server.url}/health`, {
    method: 'POST',
    headers: { 'cf-ipcountry': 'IR' },
  })
  expect(post.status).toBe(403)
})
