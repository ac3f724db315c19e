import { afterAll, beforeAll, expect, test } from 'vitest'
import { createLoginVerifier } from '../login-token.ts'
import { createLocalIssuer, type LocalIssuer } from './local-issuer.ts'

let issuer: LocalIssuer
beforeAll(async () => {
  issuer = await createLocalIssuer()
})
afterAll(() => issuer.close())

const tokenIn = (html: string) => {
  const match = /window\.location\.href = "([^"]+)"/.exec(html)
  if (!match) throw new Error('no target in the page')
  return new URL(match[1]!.replaceAll('\\u0026', '&'))
}

test('default: the login page returns to the claim page with a token', async () => {
  const claim = 'http://127.0.0.1:3002/claim?token=invite-123'
  const response = await fetch(`${issuer.loginUrl}?redirect_uri=${encodeURIComponent(claim)}`)
  const html = await response.text()
  expect(html).toContain('Sign in as test human')
  const target = tokenIn(html)
  expect(`${target.origin}${target.pathname}${target.search}`).toBe(claim)
  const authToken = target.hash.replace('#authToken=', '')
  const verify = createLoginVerifier({ issuers: [issuer.trustedIssuer()] })
  expect(await verify(authToken)).toMatchObject({
    ok: true,
    subject: expect.stringMatching(/^test-human-\d+$/),
  })
})

test('behavior: a chosen subject, and each visit a new human by default', async () => {
  const page = (query: string) =>
    fetch(`${issuer.loginUrl}?redirect_uri=https://venue.example/claim${query}`).then((r) =>
      r.text(),
    )
  expect(await page('&sub=alice')).toContain('<code id="subject">alice</code>')
  const first = /test-human-(\d+)/.exec(await page(''))![1]
  const second = /test-human-(\d+)/.exec(await page(''))![1]
  expect(Number(second)).toBe(Number(first) + 1)
})

test('behavior: only http(s) redirect targets', async () => {
  for (const target of ['', 'javascript:alert(1)', 'not a url']) {
    const response = await fetch(`${issuer.loginUrl}?redirect_uri=${encodeURIComponent(target)}`)
    expect(response.status).toBe(400)
  }
})

test('behavior: the subject is escaped in the page', async () => {
  const sub = '<script>alert(1)</script>'
  const html = await fetch(
    `${issuer.loginUrl}?redirect_uri=https://venue.example/claim&sub=${encodeURIComponent(sub)}`,
  ).then((r) => r.text())
  expect(html).not.toContain(sub)
})
