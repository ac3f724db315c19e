import { randomUUID } from 'node:crypto'
import { testBackends } from '@agents/service-kit/db'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { type CreateSiweMessageParameters, createSiweMessage } from 'viem/siwe'
import { describe, expect, it } from 'vitest'
import { encodeSiweAuthToken } from '../login/siwe-auth-token.ts'
import { CONTACT_A, CONTACT_B, useEscalationVenue } from '../testing/escalation-fixtures.ts'
import { TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'

const minutes = (n: number) => new Date(Date.now() + n * 60_000)

type Attempt = {
  fields?: (fields: CreateSiweMessageParameters) => CreateSiweMessageParameters
  text?: (message: string) => string
  signer?: PrivateKeyAccount
  account?: PrivateKeyAccount
}

// The claim page's SIWE login (VENUE_LOGIN_SIWE_DOMAIN set) is held to every field as the
// chat page's sign-in is: its nonce comes from the venue and is spent by the claim.
describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  "the claim's SIWE login on $name",
  ({ name, open }) => {
    const esc = useEscalationVenue(open, { env: { VENUE_LOGIN_SIWE_DOMAIN: 'venue.test' } })
    const { call, row } = esc

    /** A SIWE login token as a wallet login page makes it from the fields the claim page hands over. */
    const siweLogin = async ({
      fields = (f) => f,
      text = (m) => m,
      account,
      signer,
    }: Attempt = {}) => {
      const wallet = account ?? privateKeyToAccount(generatePrivateKey())
      const nonce = (await call('POST', '/api/chat/session/nonce', {})).json
      const message = text(
        createSiweMessage(
          fields({
            domain: nonce.domain,
            address: wallet.address,
            uri: `${nonce.uri}/claim`,
            version: '1',
            chainId: nonce.chainId,
            nonce: nonce.nonce,
            issuedAt: new Date(),
          }),
        ),
      )
      return encodeSiweAuthToken({
        message,
        signature: await (signer ?? wallet).signMessage({ message }),
      })
    }
    // The login is verified before the invite is looked at: with an invite nobody has, a login
    // that passes answers 404, one that does not 401 with its reason.
    const claimNobodysInvite = (authToken: string) =>
      call('POST', '/api/escalations/claim', { token: randomUUID(), authToken })

    it('a SIWE login of the right message claims an invite; its nonce is spent', async () => {
      const a = await esc.member(CONTACT_A)
      const b = await esc.member(CONTACT_B)
      const coupleId = await esc.beat(`claim-siwe-${name}`)
      await esc.commit(coupleId, a, b)
      const tokens = await esc.invites(coupleId, a, b)
      const account = privateKeyToAccount(generatePrivateKey())
      const login = await siweLogin({ account })
      const claimed = await call('POST', '/api/escalations/claim', {
        token: tokens.get(a.ownerId),
        authToken: login,
      })
      expect(claimed).toMatchObject({ status: 200, json: { ownerId: a.ownerId } })
      expect(await row(`SELECT human_subject FROM owners WHERE id = $1`, [a.ownerId])).toEqual({
        human_subject: `siwe:${account.address}`,
      })
      // The same login again, for the other invite: its nonce is used.
      const replay = await call('POST', '/api/escalations/claim', {
        token: tokens.get(b.ownerId),
        authToken: login,
      })
      expect(replay).toMatchObject({
        status: 401,
        json: { error: 'auth verification failed', reason: 'unknown or used nonce' },
      })
      expect(await row(`SELECT human_subject FROM owners WHERE id = $1`, [b.ownerId])).toEqual({
        human_subject: null,
      })
    })

    const refusals: Array<[string, Attempt, string]> = [
      ['another domain', { fields: (f) => ({ ...f, domain: 'evil.example' }) }, 'wrong domain'],
      [
        'a URI on another origin',
        { fields: (f) => ({ ...f, uri: 'https://evil.example/claim' }) },
        'wrong uri',
      ],
      ['another chain', { fields: (f) => ({ ...f, chainId: 1 }) }, 'wrong chain'],
      [
        'a nonce the venue never issued',
        { fields: (f) => ({ ...f, nonce: 'abcdef0123456789' }) },
        'unknown or used nonce',
      ],
      [
        'an issue time in the future',
        { fields: (f) => ({ ...f, issuedAt: minutes(5) }) },
        'not yet valid',
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
        'a signature by another key',
        { signer: privateKeyToAccount(generatePrivateKey()) },
        'bad signature',
      ],
    ]

    it.each(refusals)('refuses a login with %s: 401 naming it', async (_, attempt, reason) => {
      expect(await claimNobodysInvite(await siweLogin(attempt))).toMatchObject({
        status: 401,
        json: { error: 'auth verification failed', reason },
      })
    })

    it('a login used once is refused the second time', async () => {
      const login = await siweLogin()
      expect(await claimNobodysInvite(login)).toMatchObject({
        status: 404,
        json: { error: 'invalid or used invite' },
      })
      expect(await claimNobodysInvite(login)).toMatchObject({
        status: 401,
        json: { error: 'auth verification failed', reason: 'unknown or used nonce' },
      })
    })
  },
)
