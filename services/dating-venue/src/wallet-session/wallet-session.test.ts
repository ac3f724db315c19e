import { testBackends } from '@agents/service-kit/db'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { createSiweMessage } from 'viem/siwe'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { startTestVenue, TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'the human chat session on $name',
  ({ open }) => {
    let venue: Venue
    let drop: () => Promise<void>
    beforeAll(async () => {
      const database = await open()
      drop = database.drop
      venue = await startTestVenue({ databaseUrl: database.url })
    }, 60_000)
    afterAll(async () => {
      await venue?.close()
      await drop?.()
    })

    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${venue.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      })

    /** Signs in a fresh wallet as the page does: nonce, EIP-4361 message, personal_sign. */
    const signIn = async (
      account = privateKeyToAccount(generatePrivateKey()),
      tamper: (
        fields: Parameters<typeof createSiweMessage>[0],
      ) => Parameters<typeof createSiweMessage>[0] = (f) => f,
    ) => {
      const nonce = await (await post('/api/chat/session/nonce', {})).json()
      const message = createSiweMessage(
        tamper({
          domain: nonce.domain,
          address: account.address,
          uri: nonce.uri,
          version: '1',
          chainId: nonce.chainId,
          nonce: nonce.nonce,
          statement: nonce.statement,
          issuedAt: new Date(),
        }),
      )
      const response = await post('/api/chat/session', {
        message,
        signature: await account.signMessage({ message }),
      })
      const cookie = response.headers.get('set-cookie') ?? ''
      return { response, cookie, session: cookie.split(';')[0]!, account, message }
    }
    const me = (session: string) =>
      fetch(`${venue.url}/api/chat/me`, { headers: { cookie: session } })

    it('signs a wallet in with SIWE: an HttpOnly, SameSite=Strict session cookie bound to it', async () => {
      const { response, cookie, session, account } = await signIn()
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({
        wallet: account.address.toLowerCase(),
        attested: false,
      })
      expect(cookie).toMatch(/^venue_chat=[A-Za-z0-9_-]{43};/)
      expect(cookie).toMatch(/HttpOnly/)
      expect(cookie).toMatch(/SameSite=Strict/)
      expect(cookie).toMatch(/Path=\//)
      const read = await me(session)
      expect(read.status).toBe(200)
      // The account at a glance: no holding, so 3 free messages, no credits, 50 the next tier at $30.
      expect(await read.json()).toEqual({
        wallet: account.address.toLowerCase(),
        attested: false,
        freePerDay: 3,
        freeLeft: 3,
        credits: 0,
        creditsPerMessage: 3,
        holdingUsd: '0.00',
        nextTier: { freePerDay: 50, moreUsd: '30.00' },
        resetsAt: expect.stringMatching(/T00:00:00\.000Z$/),
        draft: {},
        skipped: [],
        question: expect.stringMatching(/^Tell me about yourself/),
        // No doc submitted yet, so no owner and no couples.
        review: null,
        escalation: { ownerId: null, tier: null, couples: [] },
      })
      // Only a hash of the secret is stored.
      const { rows } = await venue.deps.database.client.query('SELECT id_hash FROM chat_sessions')
      const secret = session.split('=')[1]!
      expect(JSON.stringify(rows)).not.toContain(secret)
    })

    it('refuses a reused nonce, another domain, an unknown nonce and a signature by another key', async () => {
      const first = await signIn()
      const replay = await post('/api/chat/session', {
        message: first.message,
        signature: await first.account.signMessage({ message: first.message }),
      })
      expect(replay.status).toBe(401)
      expect((await replay.json()).error).toBe('unknown, expired or used nonce: ask for a new one')
      const elsewhere = await signIn(undefined, (fields) => ({ ...fields, domain: 'evil.example' }))
      expect(elsewhere.response.status).toBe(401)
      expect(await elsewhere.response.json()).toMatchObject({
        error: 'sign-in failed',
        reason: expect.any(String),
      })
      const invented = await signIn(undefined, (fields) => ({
        ...fields,
        nonce: 'abcdef0123456789',
      }))
      expect(invented.response.status).toBe(401)
      const other = privateKeyToAccount(generatePrivateKey())
      const nonce = await (await post('/api/chat/session/nonce', {})).json()
      const message = createSiweMessage({
        domain: nonce.domain,
        address: privateKeyToAccount(generatePrivateKey()).address,
        uri: nonce.uri,
        version: '1',
        chainId: 8453,
        nonce: nonce.nonce,
        issuedAt: new Date(),
      })
      const forged = await post('/api/chat/session', {
        message,
        signature: await other.signMessage({ message }),
      })
      expect(forged.status).toBe(401)
      for (const body of [
        {},
        { message: 'x', signature: '0x12' },
        { message: 'a\u0000b', signature: `0x${'1'.repeat(130)}` },
      ]) {
        const bad = await post('/api/chat/session', body)
        expect(bad.status).toBe(400)
        expect((await bad.json()).error).toBe('invalid sign-in')
      }
    })

    it('the 18+ attestation: stored once per wallet; without a session 401; cross-site 403', async () => {
      expect((await post('/api/chat/attest', { adult: true })).status).toBe(401)
      const { session, account } = await signIn()
      expect((await post('/api/chat/attest', { adult: false }, { cookie: session })).status).toBe(
        400,
      )
      const crossSite = await post(
        '/api/chat/attest',
        { adult: true },
        { cookie: session, origin: 'https://evil.example' },
      )
      expect(crossSite.status).toBe(403)
      const attested = await post(
        '/api/chat/attest',
        { adult: true },
        { cookie: session, origin: new URL(venue.url).origin },
      )
      expect(attested.status).toBe(200)
      expect(await (await me(session)).json()).toMatchObject({
        wallet: account.address.toLowerCase(),
        attested: true,
      })
      // A new session of the same wallet keeps it.
      const again = await signIn(account)
      expect(await again.response.json()).toMatchObject({ attested: true })
    })

    it('signing out ends the session and clears the cookie', async () => {
      const { session } = await signIn()
      const out = await post('/api/chat/session/end', {}, { cookie: session })
      expect(out.status).toBe(200)
      expect(out.headers.get('set-cookie')).toMatch(/venue_chat=;.*Max-Age=0/)
      expect((await me(session)).status).toBe(401)
    })
  },
)
