import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { postJsonOutbound } from './post-json-outbound.ts'
import { type LookupAll, resolvePublicAddress } from './resolve-public-address.ts'

const resolvesTo =
  (...addresses: string[]): LookupAll =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))

test('default: a public name resolves to its first address', async () => {
  const result = await resolvePublicAddress(new URL('https://agent.example/cb'), {
    lookup: resolvesTo('93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'),
  })
  expect(result).toEqual({ ok: true, address: '93.184.215.14', family: 4 })
})

test('behavior: a name with any non-public address is refused', async () => {
  for (const addresses of [
    ['127.0.0.1'],
    ['93.184.215.14', '10.0.0.5'],
    ['::1'],
    ['169.254.169.254'],
    ['::ffff:192.168.0.1'],
    // Forms a hand-written prefix list missed, and the other special ranges.
    ['::7f00:1'],
    ['::ffff:0:7f00:1'],
    ['2002:7f00:1::'],
    ['fec0::1'],
    ['64:ff9b::a9fe:a9fe'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe'],
    ['fe80::1%eth0'],
    ['2606:2800:21f:cb07:6820:80da:af6b:8b2c', 'fd00::1'],
    ['0.0.0.0'],
    ['100.64.0.1'],
    ['198.18.0.1'],
    ['192.0.2.1'],
    ['255.255.255.255'],
    ['2001:db8::1'],
    ['not-an-address'],
  ])
    expect(
      await resolvePublicAddress(new URL('https://agent.example/cb'), {
        lookup: resolvesTo(...addresses),
      }),
      addresses.join(),
    ).toMatchObject({ ok: false, reason: 'forbidden_address' })
})

test('behavior: NAT64 (DNS64) and 6to4 answers of a public IPv4 address are public', async () => {
  for (const address of ['64:ff9b::5db8:d70e', '2002:5db8:d70e::1'])
    expect(
      await resolvePublicAddress(new URL('https://agent.example/cb'), {
        lookup: resolvesTo(address),
      }),
    ).toEqual({ ok: true, address, family: 6 })
})

test('behavior: resolver failures are dns', async () => {
  const failing: LookupAll = async () => {
    throw Object.assign(new Error('getaddrinfo ENOTFOUND agent.example'), { code: 'ENOTFOUND' })
  }
  expect(
    await resolvePublicAddress(new URL('https://agent.example/cb'), { lookup: failing }),
  ).toMatchObject({ ok: false, reason: 'dns' })
  expect(
    await resolvePublicAddress(new URL('https://agent.example/cb'), { lookup: resolvesTo() }),
  ).toMatchObject({ ok: false, reason: 'dns' })
})

test('behavior: the real resolver: localhost resolves to loopback and is refused', async () => {
  // postJsonOutbound refuses the name `localhost` before resolving; here the
  // system resolver (dns.lookup, all addresses) is asked directly.
  const result = await resolvePublicAddress(new URL('https://localhost/cb'))
  expect(result).toMatchObject({ ok: false, reason: 'forbidden_address' })
  // `localhost.` passes the URL check (trailing dot) and is caught here or
  // fails to resolve: either way nothing is sent.
  expect(await postJsonOutbound('https://localhost./cb', {})).toMatchObject({
    ok: false,
    reason: expect.stringMatching(/^(forbidden_address|dns)$/),
  })
})

// The pin: one resolution, and the socket goes to the address it returned.
const hostHeaders: IncomingMessage['headers'][] = []
const server = createServer((req, res) => {
  hostHeaders.push(req.headers)
  res.setHeader('content-type', 'application/json')
  res.end('{"echo":"pinned"}')
})
let port = 0
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as AddressInfo).port
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

test('behavior: a name resolving to loopback is refused unless allowed', async () => {
  const lookup = resolvesTo('127.0.0.1')
  const url = `https://callback.example:${port}/cb`
  expect(await postJsonOutbound(url, {}, { lookup })).toMatchObject({
    ok: false,
    reason: 'forbidden_address',
  })
  expect(hostHeaders).toEqual([])
})

test('behavior: loopback in an IPv6 disguise is refused before connecting', async () => {
  for (const address of ['::7f00:1', '::ffff:0:7f00:1', '2002:7f00:1::', '64:ff9b::7f00:1'])
    expect(
      await postJsonOutbound(
        `https://callback.example:${port}/cb`,
        {},
        {
          lookup: resolvesTo(address),
        },
      ),
      address,
    ).toMatchObject({ ok: false, reason: 'forbidden_address' })
  for (const host of ['[::127.0.0.1]', '[::ffff:0:7f00:1]', '[2002:7f00:1::]', '[fec0::1]'])
    expect(await postJsonOutbound(`https://${host}:${port}/cb`, {}), host).toMatchObject({
      ok: false,
      reason: 'forbidden_address',
    })
  expect(hostHeaders).toEqual([])
})

test('behavior: the checked address is the one connected to (no second lookup)', async () => {
  let calls = 0
  // A rebinding resolver: public-looking first... here loopback (allowed host), then elsewhere.
  const lookup: LookupAll = async () => {
    calls++
    if (calls > 1) throw new Error('resolved twice')
    return [{ address: '127.0.0.1', family: 4 }]
  }
  const answer = await postJsonOutbound(
    `http://rebind.test:${port}/cb`,
    {},
    { allowHosts: ['rebind.test'], lookup },
  )
  expect(answer).toEqual({ ok: true, status: 200, json: { echo: 'pinned' } })
  expect(calls).toBe(1)
  expect(hostHeaders.at(-1)?.host).toBe(`rebind.test:${port}`)
})

test('behavior: a resolver that never answers ends in timeout', async () => {
  const started = performance.now()
  const answer = await postJsonOutbound(
    'https://slow-dns.example/cb',
    {},
    { lookup: () => new Promise(() => {}), timeoutMs: 200 },
  )
  expect(answer).toMatchObject({ ok: false, reason: 'timeout' })
  expect(performance.now() - started).toBeLessThan(1000)
})
