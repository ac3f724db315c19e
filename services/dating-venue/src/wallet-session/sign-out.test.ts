import { testBackends } from '@agents/service-kit/db'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { signInToConsole, siweSignIn } from '../testing/siwe-sign-in.ts'
import { startTestVenue, TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'

const operator = privateKeyToAccount(generatePrivateKey())

// Signing out changes state, so it follows the rule of every other POST of the cookie
// sessions: JSON only (415 otherwise) and 403 from another Origin; a refused sign-out
// leaves the session alive.
describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'signing out on $name',
  ({ open }) => {
    let venue: Venue
    let drop: () => Promise<void>
    beforeAll(async () => {
      const database = await open()
      drop = database.drop
      venue = await startTestVenue({
        databaseUrl: database.url,
        env: { VENUE_OPERATOR_WALLETS: operator.address },
      })
    }, 60_000)
    afterAll(async () => {
      await venue?.close()
      await drop?.()
    })

    const surfaces = [
      {
        name: 'the chat page',
        path: '/api/chat/session/end',
        signIn: async () =>
          (
            await siweSignIn(venue.url, {
              noncePath: '/api/chat/session/nonce',
              sessionPath: '/api/chat/session',
            })
          ).cookie,
        alive: async (cookie: string) =>
          (await fetch(`${venue.url}/api/chat/me`, { headers: { cookie } })).status === 200,
      },
      {
        name: 'the console',
        path: '/api/operator/session/end',
        signIn: async () => (await signInToConsole(venue.url, operator)).cookie,
        alive: async (cookie: string) =>
          (await fetch(`${venue.url}/admin.json`, { headers: { cookie } })).status === 200,
      },
    ]
    const end = (path: string, headers: Record<string, string>, body: string) =>
      fetch(`${venue.url}${path}`, { method: 'POST', headers, body })
    const json = { 'content-type': 'application/json' }

    describe.each(surfaces)('$name', ({ path, signIn, alive }) => {
      it('refuses another Origin with 403, whatever the body, and the session lives on', async () => {
        const cookie = await signIn()
        for (const [type, body] of [
          ['application/json', '{}'],
          ['text/plain', '{}'],
          ['application/x-www-form-urlencoded', 'a=1'],
        ] as const) {
          const answer = await end(
            path,
            { cookie, origin: 'https://evil.example', 'content-type': type },
            body,
          )
          expect(answer.status).toBe(403)
          expect(await answer.json()).toEqual({ error: 'cross-site request refused' })
          expect(answer.headers.get('set-cookie')).toBeNull()
        }
        expect(await alive(cookie)).toBe(true)
      })

      it('refuses text/plain and form bodies with 415 (no Origin, a foreign Referer), and the session lives on', async () => {
        const cookie = await signIn()
        const form = new FormData()
        form.set('a', '1')
        const multipart = await fetch(`${venue.url}${path}`, {
          method: 'POST',
          headers: { cookie, referer: 'https://evil.example/page' },
          body: form,
        })
        expect(multipart.status).toBe(415)
        for (const [type, body] of [
          ['text/plain', '{}'],
          ['application/x-www-form-urlencoded', 'a=1'],
        ] as const) {
          const answer = await end(
            path,
            { cookie, referer: 'https://evil.example/page', 'content-type': type },
            body,
          )
          expect(answer.status).toBe(415)
          expect(answer.headers.get('set-cookie')).toBeNull()
        }
        expect(await alive(cookie)).toBe(true)
      })

      it('a JSON sign-out from the venue itself, or from a client that sends no Origin, ends the session', async () => {
        const sameOrigin = await signIn()
        const ended = await end(
          path,
          { ...json, cookie: sameOrigin, origin: new URL(venue.url).origin },
          '{}',
        )
        expect(ended.status).toBe(200)
        expect(await ended.json()).toEqual({ ok: true })
        expect(ended.headers.get('set-cookie')).toMatch(/=;.*Max-Age=0/)
        expect(await alive(sameOrigin)).toBe(false)

        const script = await signIn()
        expect((await end(path, { ...json, cookie: script }, '{}')).status).toBe(200)
        expect(await alive(script)).toBe(false)
      })
    })
  },
)
