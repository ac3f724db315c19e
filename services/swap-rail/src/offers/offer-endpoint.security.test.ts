import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SwapRail } from '../start.ts'
import { startTestSwapRail } from '../testing.ts'

// The test default: `localhost` is a dev endpoint host (http and a private address allowed).
let rail: SwapRail
beforeAll(async () => {
  rail = await startTestSwapRail()
})
afterAll(() => rail?.close())

const offer = (endpoint: string) => ({
  endpoint,
  payTo: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  model: 'endpoint-rule-model',
  mtok: 5,
  priceUsd: '1.5',
})
const postOffer = async (endpoint: string) => {
  const response = await fetch(`${rail.url}/v1/offers`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(offer(endpoint)),
  })
  return { status: response.status, json: (await response.json()) as Record<string, unknown> }
}

describe('POST /v1/offers refuses an endpoint on any non-public address literal', () => {
  it.each([
    ['IPv4-compatible loopback', '[::127.0.0.1]'],
    ['IPv4-translated loopback', '[::ffff:0:7f00:1]'],
    ['6to4 of loopback', '[2002:7f00:1::]'],
    ['site-local', '[fec0::1]'],
    ['IPv4-mapped metadata', '[::ffff:169.254.169.254]'],
    ["Azure's wire server and metadata host", '168.63.129.16'],
    ["Azure's wire server, decimal", '2822734096'],
    ["Azure's wire server, IPv4-mapped", '[::ffff:168.63.129.16]'],
    ["Azure's wire server, NAT64", '[64:ff9b::a83f:8110]'],
    ['NAT64 of a private address', '[64:ff9b::10.0.0.1]'],
    ['local-use NAT64', '[64:ff9b:1::5db8:d70e]'],
    ['6to4 of a private address', '[2002:c0a8:101::]'],
    ['Teredo to a loopback client', '[2001:0:4136:e378:8000:63bf:80ff:fffe]'],
    ['unique-local', '[fd12:3456::1]'],
    ['link-local', '[fe80::1]'],
    ['multicast', '[ff02::1]'],
    ['unspecified', '[::]'],
    ['IPv6 documentation', '[2001:db8::1]'],
    ['IPv6 benchmarking', '[2001:2::1]'],
    ['0.0.0.0/8', '0.1.2.3'],
    ['CGNAT', '100.64.0.1'],
    ['benchmarking', '198.18.0.1'],
    ['documentation', '203.0.113.9'],
    ['multicast', '239.255.255.250'],
    ['reserved 240/4', '240.0.0.1'],
    ['broadcast', '255.255.255.255'],
    ['decimal private', '3232235521'],
    ['hex metadata', '0xa9fea9fe'],
    ['octal dotted private', '0300.0250.1.1'],
    ['octal loopback', '017700000001'],
    ['hex and short loopback', '0x7f.1'],
  ])('%s: %s', async (_, host) => {
    const answer = await postOffer(`https://${host}/v1`)
    expect(answer).toEqual({
      status: 400,
      json: {
        error: 'invalid offer',
        issues: [{ path: ['endpoint'], message: 'private, loopback or link-local address' }],
      },
    })
  })
})

describe('POST /v1/offers accepts public address literals and the dev host', () => {
  it.each([
    ['IPv4', '93.184.215.14'],
    ['IPv6', '[2606:2800:21f:cb07:6820:80da:af6b:8b2c]'],
    ['IPv4-mapped public', '[::ffff:93.184.215.14]'],
    ['NAT64 of a public address', '[64:ff9b::93.184.215.14]'],
    ['6to4 of a public address', '[2002:5db8:d70e::1]'],
  ])('%s: %s', async (_, host) => {
    expect((await postOffer(`https://${host}/v1`)).status).toBe(201)
  })

  it('keeps the dev host exempt: http and loopback', async () => {
    expect((await postOffer('http://localhost:8080/v1')).status).toBe(201)
  })
})
