import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TLSSocket } from 'node:tls'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { postJsonOutbound } from './post-json-outbound.ts'
import type { LookupAll } from './resolve-public-address.ts'

const hasOpenssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
})()

// A throwaway self-signed certificate for `callback.test`, made per run.
describe.skipIf(!hasOpenssl)('tls through a pinned address', () => {
  const servernames: (string | false | null)[] = []
  const hosts: (string | undefined)[] = []
  let cert = ''
  let server: Server
  let port = 0
  const toLoopback: LookupAll = async () => [{ address: '127.0.0.1', family: 4 }]

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'outbound-tls-'))
    try {
      execFileSync(
        'openssl',
        [
          ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'],
          ...['-nodes', '-days', '1', '-subj', '/CN=callback.test'],
          ...['-addext', 'subjectAltName=DNS:callback.test'],
          ...['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
        ],
        { stdio: 'ignore' },
      )
      cert = readFileSync(join(dir, 'cert.pem'), 'utf8')
      const key = readFileSync(join(dir, 'key.pem'), 'utf8')
      server = createServer({ cert, key }, (req, res) => {
        servernames.push((req.socket as TLSSocket).servername)
        hosts.push(req.headers.host)
        res.setHeader('content-type', 'application/json')
        res.end('{"echo":"tls"}')
      })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
  })
  afterAll(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })

  test('default: SNI and Host are the name, the socket goes to the checked address', async () => {
    const answer = await postJsonOutbound(
      `https://callback.test:${port}/cb`,
      {},
      { allowHosts: ['callback.test'], lookup: toLoopback, ca: cert },
    )
    expect(answer).toEqual({ ok: true, status: 200, json: { echo: 'tls' } })
    expect(servernames.at(-1)).toBe('callback.test')
    expect(hosts.at(-1)).toBe(`callback.test:${port}`)
  })

  test('behavior: the certificate is still verified', async () => {
    // Untrusted issuer.
    expect(
      await postJsonOutbound(
        `https://callback.test:${port}/cb`,
        {},
        { allowHosts: ['callback.test'], lookup: toLoopback },
      ),
    ).toMatchObject({ ok: false, reason: 'network' })
    // Trusted issuer, wrong name.
    expect(
      await postJsonOutbound(
        `https://other.test:${port}/cb`,
        {},
        { allowHosts: ['other.test'], lookup: toLoopback, ca: cert },
      ),
    ).toMatchObject({ ok: false, reason: 'network' })
  })
})
