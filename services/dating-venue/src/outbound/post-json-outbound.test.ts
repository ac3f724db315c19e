import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { postJsonOutbound } from './post-json-outbound.ts'
import type { LookupAll } from './resolve-public-address.ts'

// A callback server with one path per behaviour under test.
const seen: { path: string; headers: IncomingMessage['headers'] }[] = []
const routes: Record<string, (body: string, res: ServerResponse) => void> = {
  '/echo': (body, res) => {
    const { challenge } = JSON.parse(body)
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ echo: challenge }))
  },
  '/silent': () => {},
  '/stall-body': (_, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.write('{"echo":')
  },
  '/big': (_, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ echo: 'x'.repeat(100 * 1024) }))
  },
  '/big-chunked': (_, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.write('{"echo":"')
    const chunk = 'x'.repeat(8 * 1024)
    for (let index = 0; index < 16; index++) res.write(chunk)
    res.end('"}')
  },
  '/redirect': (_, res) => {
    res.writeHead(302, { location: '/echo' })
    res.end()
  },
  '/text': (_, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' })
    res.end('hello')
  },
  '/latin1': (_, res) => res.end(Buffer.from([0x22, 0xe9, 0x22])),
  // An endpoint that answers JSON nested 20,000 levels deep (40 KB, under the answer limit).
  '/deep': (_, res) => res.end(`${'['.repeat(20_000)}${']'.repeat(20_000)}`),
  '/empty': (_, res) => res.end(),
  '/fail': (_, res) => {
    res.writeHead(500, { 'content-type': 'application/json' })
    res.end('{"error":"internal"}')
  },
  '/proto': (_, res) => res.end('{"__proto__":{"polluted":true},"echo":"ok"}'),
}

const server = createServer((req, res) => {
  const path = req.url ?? '/'
  seen.push({ path, headers: req.headers })
  let body = ''
  req.on('data', (chunk) => {
    body += chunk
  })
  req.on('end', () => {
    const route = routes[path]
    if (route) route(body, res)
    else res.writeHead(404).end()
  })
})
let port = 0
let base = ''

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as AddressInfo).port
  base = `http://127.0.0.1:${port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

const local = { allowHosts: ['127.0.0.1'] }
const challenge = { challenge: 'venue:0c4b:1700000000000' }

test('default: an allowed local host answers the challenge', async () => {
  const answer = await postJsonOutbound(`${base}/echo`, challenge, local)
  expect(answer).toEqual({ ok: true, status: 200, json: { echo: challenge.challenge } })
  expect(seen.at(-1)?.headers).toMatchObject({
    'content-type': 'application/json',
    'user-agent': 'dating-venue',
    host: `127.0.0.1:${port}`,
  })
})

test('behavior: extra headers are sent, but cannot replace content-type or host', async () => {
  const answer = await postJsonOutbound(`${base}/echo`, challenge, {
    ...local,
    headers: { 'X-Venue-Signature': 'sig', 'Content-Type': 'text/plain', Host: 'evil.example' },
  })
  expect(answer.ok).toBe(true)
  expect(seen.at(-1)?.headers).toMatchObject({
    'x-venue-signature': 'sig',
    'content-type': 'application/json',
    host: `127.0.0.1:${port}`,
  })
})

test('behavior: the same URL without allowHosts is refused before any request', async () => {
  const before = seen.length
  expect(await postJsonOutbound(`${base}/echo`, challenge)).toMatchObject({
    ok: false,
    reason: 'invalid_url',
    detail: 'https only',
  })
  expect(await postJsonOutbound(`https://127.0.0.1:${port}/echo`, challenge)).toMatchObject({
    ok: false,
    reason: 'forbidden_address',
  })
  expect(await postJsonOutbound(`https://localhost:${port}/echo`, challenge)).toMatchObject({
    ok: false,
    reason: 'forbidden_address',
  })
  expect(seen.length).toBe(before)
})

test('behavior: non-public IP literals are refused without a connection attempt', async () => {
  const lookup: LookupAll = () => {
    throw new Error('must not resolve an IP literal')
  }
  for (const host of [
    '10.255.255.1',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '224.0.0.1',
    '0.0.0.0',
    '[::1]',
    '[fd00::1]',
    '[fe80::1]',
    '[::ffff:10.0.0.1]',
    '[::ffff:a9fe:a9fe]',
    '2130706433',
  ]) {
    const started = performance.now()
    const answer = await postJsonOutbound(`https://${host}/cb`, challenge, {
      lookup,
      timeoutMs: 2000,
    })
    expect(answer, host).toMatchObject({ ok: false, reason: 'forbidden_address' })
    // A real attempt at an unroutable address would take until the timeout.
    expect(performance.now() - started).toBeLessThan(100)
  }
})

test('behavior: malformed URLs', async () => {
  for (const url of ['not a url', 'ftp://example.com/cb', 'https://user:pw@example.com/cb', ''])
    expect(await postJsonOutbound(url, challenge), url).toMatchObject({
      ok: false,
      reason: 'invalid_url',
    })
})

test('behavior: a 3xx is a failure and is not followed', async () => {
  const before = seen.length
  expect(await postJsonOutbound(`${base}/redirect`, challenge, local)).toMatchObject({
    ok: false,
    reason: 'redirect',
    status: 302,
  })
  expect(seen.slice(before).map(({ path }) => path)).toEqual(['/redirect'])
})

test('behavior: timeout when the server never answers', async () => {
  const started = performance.now()
  const answer = await postJsonOutbound(`${base}/silent`, challenge, { ...local, timeoutMs: 300 })
  const elapsed = performance.now() - started
  expect(answer).toMatchObject({ ok: false, reason: 'timeout' })
  expect(elapsed).toBeGreaterThanOrEqual(290)
  expect(elapsed).toBeLessThan(1500)
})

test('behavior: the time limit covers the body too', async () => {
  const answer = await postJsonOutbound(`${base}/stall-body`, challenge, {
    ...local,
    timeoutMs: 300,
  })
  expect(answer).toMatchObject({ ok: false, reason: 'timeout' })
})

test('behavior: oversize answers', async () => {
  expect(await postJsonOutbound(`${base}/big`, challenge, local)).toMatchObject({
    ok: false,
    reason: 'too_large',
    status: 200,
  })
  expect(await postJsonOutbound(`${base}/big-chunked`, challenge, local)).toMatchObject({
    ok: false,
    reason: 'too_large',
  })
  expect(
    await postJsonOutbound(`${base}/echo`, challenge, { ...local, maxResponseBytes: 10 }),
  ).toMatchObject({ ok: false, reason: 'too_large' })
  expect(
    await postJsonOutbound(`${base}/big-chunked`, challenge, {
      ...local,
      maxResponseBytes: 256 * 1024,
    }),
  ).toMatchObject({ ok: true })
})

test('behavior: answers that are not JSON, or nest deeper than a request body may', async () => {
  for (const path of ['/text', '/latin1', '/empty', '/deep'])
    expect(await postJsonOutbound(`${base}${path}`, challenge, local), path).toMatchObject({
      ok: false,
      reason: 'not_json',
      status: 200,
    })
})

test('behavior: error statuses', async () => {
  expect(await postJsonOutbound(`${base}/fail`, challenge, local)).toMatchObject({
    ok: false,
    reason: 'http_error',
    status: 500,
  })
  expect(await postJsonOutbound(`${base}/nowhere`, challenge, local)).toMatchObject({
    ok: false,
    reason: 'http_error',
    status: 404,
  })
})

test('behavior: __proto__ keys in the answer are dropped', async () => {
  const answer = await postJsonOutbound(`${base}/proto`, challenge, local)
  expect(answer).toEqual({ ok: true, status: 200, json: { echo: 'ok' } })
  if (!answer.ok) throw new Error('unreachable')
  expect(Object.hasOwn(answer.json as object, '__proto__')).toBe(false)
  expect(Object.getPrototypeOf(Object.assign({}, answer.json))).toBe(Object.prototype)
})

test('behavior: connection refused is a network failure', async () => {
  const closed = createServer()
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
  const freePort = (closed.address() as AddressInfo).port
  await new Promise((resolve) => closed.close(resolve))
  expect(
    await postJsonOutbound(`http://127.0.0.1:${freePort}/echo`, challenge, local),
  ).toMatchObject({ ok: false, reason: 'network' })
})
