import { testBackends } from '@agents/service-kit/db'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { type CreateSiweMessageParameters, createSiweMessage } from 'viem/siwe'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { startTestVenue, TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'

const minutes = (n: number) => new Date(Date.now() + n * 60_000)
const operator = privateKeyToAccount(generatePrivateKey())

type Attempt = {
  /** Changes the fields the nonce route gave before the message is built. */
  fields?: (fields: CreateSiweMessageParameters) => CreateSiweMessageParameters
  /** Changes the message text before it is signed. */
  text?: (message: string) => string
  /** Signs with another key than the message's address. */
  signer?: PrivateKeyAccount
  account?: PrivateKeyAccount
}

// The chat page's and the console's SIWE sign-in check every field of the message, each
// refusal naming its field; a refused message sets no cookie and spends no nonce.
/**
 * The address with one letter's case flipped so that it still mixes cases:
 * an address all in one case carries no checksum (EIP-55) and is valid, so
 * flipping the one lowercase letter of an otherwise uppercase address (about
 * one wallet in twenty with few letters) would not break anything.
 */
const breakChecksum = (address: string) => {
  for (let at = 2; at < address.length; at++) {
    const letter = address[at]!
    if (!/[a-fA-F]/.test(letter)) continue
    const flipped = letter === letter.toLowerCase() ? letter.toUpperCase() : letter.toLowerCase()
    const body = `${address.slice(2, at)}${flipped}${address.slice(at + 1)}`
    if (body !== body.toLowerCase() && body !== body.toUpperCase()) return `0x${body}`
  }
  throw new Error(`${address} has too few letters to carry a checksum`)
}

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'every field of a SIWE sign-in on $name',
  ({ open }) => {
    let venue: Venue
    let drop: () => Promise<void>
    beforeAll(async () => {
      const database = await open()
      drop = database.drop
      venue = await startTestVenue({
        databaseUrl: database.url,
        env: { VENUE_LOGIN_SIWE_DOMAIN: 'venue.test', VENUE_OPERATOR_WALLETS: operator.address },
      })
    }, 60_000)
    afterAll(async () => {
      await venue?.close()
      await drop?.()
    })

    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${venue.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      return {
        status: response.status,
        // biome-ignore lint/suspicious/noExplicitAny: tests read the answer by path
        json: (await response.json()) as any,
        cookie: response.headers.get('set-cookie'),
      }
    }

    /** A nonce from the venue, then the message its answer asks for (as changed), signed. */
    const signed = async (
      { fields = (f) => f, text = (m) => m, account, signer }: Attempt = {},
      noncePath = '/api/chat/session/nonce',
    ) => {
      const wallet = account ?? privateKeyToAccount(generatePrivateKey())
      const nonce = (await post(noncePath, {})).json
      const message = text(
        createSiweMessage(
          fields({
            domain: nonce.domain,
            address: wallet.address,
            uri: nonce.uri,
            version: '1',
            chainId: nonce.chainId,
            nonce: nonce.nonce,
            statement: nonce.statement,
            issuedAt: new Date(),
          }),
        ),
      )
      return { message, signature: await (signer ?? wallet).signMessage({ message }) }
    }
    const signIn = async (attempt: Attempt = {}) => post('/api/chat/session', await signed(attempt))

    it('the message the nonce route asks for signs in', async () => {
      const nonce = (await post('/api/chat/session/nonce', {})).json
      expect(nonce).toMatchObject({
        domain: 'venue.test',
        uri: new URL(venue.url).origin,
        chainId: 8453,
        nonce: expect.stringMatching(/^[0-9a-f]{32}$/),
      })
      const answer = await signIn()
      expect(answer.status).toBe(200)
      expect(answer.cookie).toMatch(/^venue_chat=/)
    })

    it('a clock up to 30 s ahead or behind is tolerated', async () => {
      const ahead = await signIn({
        fields: (f) => ({ ...f, issuedAt: new Date(Date.now() + 20_000) }),
      })
      expect(ahead.status).toBe(200)
      const lapsed = await signIn({
        fields: (f) => ({ ...f, expirationTime: new Date(Date.now() - 20_000) }),
      })
      expect(lapsed.status).toBe(200)
    })

    const refusals: Array<[string, Attempt, string]> = [
      ['another domain', { fields: (f) => ({ ...f, domain: 'evil.example' }) }, 'wrong domain'],
      [
        'a URI on another origin',
        { fields: (f) => ({ ...f, uri: 'https://evil.example/' }) },
        'wrong uri',
      ],
      [
        'another chain (Ethereum mainnet)',
        { fields: (f) => ({ ...f, chainId: 1 }) },
        'wrong chain',
      ],
      [
        'another chain (Base Sepolia)',
        { fields: (f) => ({ ...f, chainId: 84532 }) },
        'wrong chain',
      ],
      [
        'an issue time in the future',
        { fields: (f) => ({ ...f, issuedAt: minutes(5) }) },
        'not yet valid',
      ],
      [
        'an issue time over 10 minutes old',
        { fields: (f) => ({ ...f, issuedAt: minutes(-11) }) },
        'expired',
      ],
      [
        'an expiration time passed',
        { fields: (f) => ({ ...f, issuedAt: minutes(-3), expirationTime: minutes(-1) }) },
        'expired',
      ],
      [
        'a not-before time in the future',
        { fields: (f) => ({ ...f, notBefore: minutes(5) }) },
        'not yet valid',
      ],
      [
        'version 2',
        { text: (m) => m.replace('\nVersion: 1\n', '\nVersion: 2\n') },
        'unsupported version',
      ],
      [
        'an address with a wrong EIP-55 checksum',
        {
          text: (m) =>
            m.replace(/\n0x[0-9a-fA-F]{40}\n/, (line) => `\n${breakChecksum(line.trim())}\n`),
        },
        'bad address',
      ],
      [
        'a signature by another key',
        { signer: privateKeyToAccount(generatePrivateKey()) },
        'bad signature',
      ],
      ['a line the message format has not', { text: (m) => `${m}\nPay: 100 USDC` }, 'malformed'],
    ]

    it.each(refusals)(
      'refuses %s: 401 naming it, no cookie, the nonce kept',
      async (_, attempt, reason) => {
        const refused = await signed(attempt)
        const answer = await post('/api/chat/session', refused)
        expect(answer).toMatchObject({
          status: 401,
          json: { error: 'sign-in failed', reason },
          cookie: null,
        })
        // The refused message spent nothing: its nonce still signs in once, with the right message.
        const nonce = /\nNonce: (\w+)\n/.exec(refused.message)![1]!
        const retry = await signIn({ fields: (f) => ({ ...f, nonce }) })
        expect(retry.status).toBe(200)
      },
    )

    it('refuses a nonce the venue never issued', async () => {
      const answer = await signIn({ fields: (f) => ({ ...f, nonce: 'abcdef0123456789' }) })
      expect(answer).toMatchObject({
        status: 401,
        json: { error: 'unknown, expired or used nonce: ask for a new one' },
        cookie: null,
      })
    })

    it('refuses a nonce used once already, in the same message or a new one', async () => {
      const account = privateKeyToAccount(generatePrivateKey())
      const first = await signed({ account })
      expect((await post('/api/chat/session', first)).status).toBe(200)
      const replay = await post('/api/chat/session', first)
      expect(replay).toMatchObject({
        status: 401,
        json: { error: 'unknown, expired or used nonce: ask for a new one' },
        cookie: null,
      })
      const nonce = /\nNonce: (\w+)\n/.exec(first.message)![1]!
      const again = await signIn({ account, fields: (f) => ({ ...f, nonce }) })
      expect(again.status).toBe(401)
    })

    it("the console's sign-in checks the same fields", async () => {
      const console = (attempt: Attempt) =>
        signed({ account: operator, ...attempt }, '/api/operator/session/nonce').then((body) =>
          post('/api/operator/session', body),
        )
      for (const [attempt, reason] of [
        [{ fields: (f) => ({ ...f, uri: 'https://evil.example/' }) }, 'wrong uri'],
        [{ fields: (f) => ({ ...f, chainId: 1 }) }, 'wrong chain'],
        [{ fields: (f) => ({ ...f, domain: 'evil.example' }) }, 'wrong domain'],
      ] as Array<[Attempt, string]>)
        expect(await console(attempt)).toMatchObject({
          status: 401,
          json: { error: 'sign-in failed', reason },
          cookie: null,
        })
      const fine = await console({})
      expect(fine.status).toBe(200)
      expect(fine.cookie).toMatch(/^venue_operator=/)
    })
  },
)
