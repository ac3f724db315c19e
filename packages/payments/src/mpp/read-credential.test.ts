import { createClient, http } from 'viem'
import { tempo } from 'viem/chains'
import { expect, test } from 'vitest'
import { createMppAdapter } from './create-mpp-adapter.ts'

// Reading a credential reads no chain: the client is never called.
const adapter = createMppAdapter({
  secretKey: 'read-credential-test-secret-0123456789',
  realm: 'agent-services',
  chainId: 4217,
  currency: '0x20C000000000000000000000b9537d11c60E8b50',
  recipient: '0x3aA62bAb8c47716eE13421d0620C9FC9740A5A62',
  getClient: () => createClient({ chain: tempo, transport: http('http://127.0.0.1:9') }),
})

const base64url = (value: string) => Buffer.from(value).toString('base64url')
const nested = (levels: number) => `${'['.repeat(levels)}0${']'.repeat(levels)}`
const credential = ({ request, payload }: { request: string; payload: string }) =>
  `Payment ${base64url(
    `{"challenge":{"id":"x","realm":"agent-services","method":"tempo","intent":"charge","request":"${base64url(request)}"},"payload":${payload}}`,
  )}`
const read = (authorization: string) =>
  adapter.read(new Request('https://venue.example/pay', { headers: { authorization } }), {
    amount: 1_000_000n,
  })

test('a Payment credential nested deeper than a body may, or whose challenge request is, is refused before mppx reads it', () => {
  // Under Node's 16 KiB header limit, either part can still nest thousands of levels.
  for (const authorization of [
    credential({ request: '{"amount":"1"}', payload: nested(5_000) }),
    credential({ request: nested(4_000), payload: '{"type":"hash","hash":"0x00"}' }),
  ]) {
    expect(authorization.length).toBeLessThan(16_384)
    expect(read(authorization)).toEqual({
      ok: false,
      reason: 'mpp_credential_rejected',
      detail: 'credential rejected: nested deeper than a request body may be',
    })
  }
  // Shallow, the same credential goes on to mppx (which refuses it for its own reasons).
  expect(read(credential({ request: '{"amount":"1"}', payload: nested(3) }))).toMatchObject({
    ok: false,
    detail: expect.not.stringContaining('nested deeper'),
  })
})
