import { randomUUID } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { testBackends } from '@agents/service-kit/db'
import type { Page } from 'playwright-core'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { createSiweMessage } from 'viem/siwe'
import { describe, expect, it } from 'vitest'
import { HUMAN_MODEL } from '../intake/submit-doc-checks.ts'
import { encodeSiweAuthToken } from '../login/siwe-auth-token.ts'
import { HEART } from '../test-helpers.ts'
import { signInToChat } from '../testing/chat-fixtures.ts'
import { CONTACT_A, CONTACT_B, useEscalationVenue } from '../testing/escalation-fixtures.ts'
import { launchTestBrowser } from '../testing/launch-test-browser.ts'
import { injectTestWallet } from '../testing/test-wallet.ts'
import { TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'

// SIWE logins name this domain: the chat page's sign-in and the claim's login token alike.
const SIWE_DOMAIN = 'venue.test'

/**
 * A SIWE login token of `account`, as the claim page's wallet sign-in makes it: the fields
 * (domain, origin, chain and a one-time nonce) from the venue's nonce route.
 */
const siweLogin = async (
  account: PrivateKeyAccount,
  fields: { domain: string; uri: string; chainId: number; nonce: string },
) => {
  const message = createSiweMessage({
    domain: fields.domain,
    address: account.address,
    uri: `${fields.uri}/claim`,
    version: '1',
    chainId: fields.chainId,
    nonce: fields.nonce,
    issuedAt: new Date(),
  })
  return encodeSiweAuthToken({ message, signature: await account.signMessage({ message }) })
}

const outputDir = fileURLToPath(new URL('../../../../test-output/dating-venue', import.meta.url))

/** The chat page in Chromium, signed in through its own button by a test EIP-1193 provider. */
const onThePage = async (
  account: PrivateKeyAccount,
  url: string,
  work: (page: Page) => Promise<void>,
) => {
  const browser = await launchTestBrowser()
  try {
    const page = await browser.newPage()
    await injectTestWallet(page, account)
    await page.goto(`${url}/chat`)
    await page.click('#sign-in')
    await page.waitForSelector('#matches:not([hidden])')
    await work(page)
  } finally {
    await browser.close()
  }
}

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'a human of the chat page escalates on $name',
  ({ name, open }) => {
    const esc = useEscalationVenue(open, { env: { VENUE_LOGIN_SIWE_DOMAIN: SIWE_DOMAIN } })
    const { call, bearer, row, sql } = esc

    /**
     * A chat wallet's owner and its persona held for review, written as the paid
     * POST /api/chat/submit-doc writes them (that route, its payment and its
     * holding rule are tested on the devnet in submit-doc.test.ts): here the rows
     * are inserted directly, the approval goes through the operator's route.
     */
    const heldHumanPersona = async (
      wallet: string,
      // The partner's markets (or none, like it): the beat pairs within a market.
      markets: { home: string | null; active: string | null },
    ) => {
      const { ownerId } = await row<{ ownerId: number }>(
        `INSERT INTO owners (wallet, credential_hash) VALUES ($1, 'never-issued') RETURNING id AS "ownerId"`,
        [wallet],
      )
      await sql(
        `INSERT INTO heart_files (owner_id, home_market, active_market, research_optin, age_attested, contact_ref_sealed, heart, payment_reference)
       VALUES ($1, 'other', 'remote', 'none', true, $2, $3, $4)`,
        [
          ownerId,
          esc.context.venue.deps.sealer.seal(CONTACT_A),
          JSON.stringify(HEART),
          randomUUID(),
        ],
      )
      const handle = `human-${randomUUID().slice(0, 8)}`
      const { personaId } = await row<{ personaId: number }>(
        `INSERT INTO personas (handle, model, heart, owner_id, home_market, active_market, status, reason)
       VALUES ($1, $2, $3, $4, $5, $6, 'held', 'held for review') RETURNING id AS "personaId"`,
        [handle, HUMAN_MODEL, JSON.stringify(HEART), ownerId, markets.home, markets.active],
      )
      return { ownerId, personaId, handle }
    }

    it('consents, sees its invite on the chat page only, and claims it with its wallet', async () => {
      const url = esc.context.venue.url
      const agent = await esc.member(CONTACT_B)
      const markets = await row<{ home: string | null; active: string | null }>(
        `SELECT home_market AS home, active_market AS active FROM personas WHERE id = $1`,
        [agent.personaId],
      )
      const partnerHandle = (
        await row<{ handle: string }>(`SELECT handle FROM personas WHERE id = $1`, [
          agent.personaId,
        ])
      ).handle

      const account = privateKeyToAccount(generatePrivateKey())
      const human = await signInToChat(url, { account })
      const cookie = { cookie: human.cookie }
      const { ownerId, personaId, handle } = await heldHumanPersona(human.wallet, markets)
      const approved = await call(
        'POST',
        '/admin/actions/review',
        { personaId, decision: 'approve' },
        esc.operator,
      )
      expect(approved.json).toMatchObject({ status: 'admitted', admitted: true })
      const coupleId = await esc.beat(`human-${name}`)

      // The chat page lists the couple: the partner's handle, nothing more of it.
      const me = await call('GET', '/api/chat/me', undefined, cookie)
      expect(me.status).toBe(200)
      expect(me.json.escalation).toEqual({
        ownerId,
        tier: 'agent_represented',
        couples: [
          {
            id: coupleId,
            state: 'courting',
            personaId,
            handle,
            partner: partnerHandle,
            consented: false,
            yourTurn: true,
            invite: null,
          },
        ],
      })
      expect(me.text).not.toContain(HEART.about)
      expect((await call('GET', '/api/chat/me')).status).toBe(401)

      // The cookie posts the human's turns, through the couple routes.
      const turn = await call(
        'POST',
        `/api/couples/${coupleId}/turns`,
        { personaId, body: 'Hello there, I love slow Sunday mornings too.' },
        cookie,
      )
      expect(turn.status).toBe(201)
      const read = await call(
        'GET',
        `/api/couples/${coupleId}?personaId=${personaId}`,
        undefined,
        cookie,
      )
      expect(read.json.turns).toContainEqual(
        expect.objectContaining({
          author: handle,
          body: 'Hello there, I love slow Sunday mornings too.',
        }),
      )
      // A state-changing request from another origin is refused, cookie or not.
      const crossSite = await call(
        'POST',
        `/api/couples/${coupleId}/intro-consent`,
        { ownerId },
        { ...cookie, origin: 'https://elsewhere.example' },
      )
      expect(crossSite).toMatchObject({
        status: 403,
        json: { error: 'cross-site request refused' },
      })
      // No session and no credential: the usual 401.
      expect(
        (await call('POST', `/api/couples/${coupleId}/intro-consent`, { ownerId })).status,
      ).toBe(401)

      // Another wallet's session acts for its own owner only.
      const otherAccount = privateKeyToAccount(generatePrivateKey())
      const other = await signInToChat(url, { account: otherAccount })
      const otherCookie = { cookie: other.cookie }
      expect(
        await call('POST', `/api/couples/${coupleId}/intro-consent`, { ownerId }, otherCookie),
      ).toMatchObject({
        status: 403,
        json: { error: 'the signed-in wallet owns no profile here: submit a doc first' },
      })
      await heldHumanPersona(other.wallet, markets)
      expect(
        await call('POST', `/api/couples/${coupleId}/intro-consent`, { ownerId }, otherCookie),
      ).toMatchObject({ status: 403, json: { error: 'credential does not act for this owner' } })
      expect(
        (
          await call(
            'POST',
            `/api/couples/${coupleId}/turns`,
            { personaId, body: 'Not mine to send.' },
            otherCookie,
          )
        ).status,
      ).toBe(403)
      // Paid routes answer to a credential only: the cookie is not one there.
      expect(
        (await call('POST', '/api/premium/compatibility-report', { ownerId }, cookie)).json,
      ).toMatchObject({ error: expect.stringMatching(/^credential required/) })

      // The human consents with the cookie; the agent's owner consents with its credential, and a
      // credential sent beside a cookie wins (the cookie's owner is not in play).
      const consented = await call(
        'POST',
        `/api/couples/${coupleId}/intro-consent`,
        { ownerId },
        cookie,
      )
      expect(consented).toMatchObject({ status: 200, json: { consented: true, both: false } })
      const both = await call(
        'POST',
        `/api/couples/${coupleId}/intro-consent`,
        { ownerId: agent.ownerId },
        { ...cookie, ...bearer(agent.credential) },
      )
      expect(both).toMatchObject({ status: 200, json: { consented: true, both: true } })

      // The agent mints the invites: the human's waits on its chat page, told nowhere else.
      const minted = await call(
        'POST',
        `/api/escalations/${coupleId}/invite`,
        undefined,
        bearer(agent.agent.credential),
      )
      expect(minted.status).toBe(200)
      expect(minted.json.invites).toContainEqual({ ownerId, token: null, delivery: 'chat' })
      const token = (
        await row<{ token: string }>(
          `SELECT token::text FROM invites WHERE owner_id = $1 AND couple_id = $2`,
          [ownerId, coupleId],
        )
      ).token
      const withInvite = await call('GET', '/api/chat/me', undefined, cookie)
      expect(withInvite.json.escalation.couples[0]).toMatchObject({
        state: 'committed',
        consented: true,
        invite: { url: `${url}/claim?token=${token}` },
      })
      const othersView = await call('GET', '/api/chat/me', undefined, otherCookie)
      expect(othersView.json.escalation.couples).toEqual([])
      expect(othersView.text).not.toContain(token)
      expect((await call('GET', '/api/boards/notifications')).text).not.toContain(token)
      // The same invite through the invite route, with the cookie.
      expect(
        (await call('GET', `/api/escalations/${coupleId}/invite`, undefined, cookie)).json,
      ).toMatchObject({ ownerId, token })

      await onThePage(account, url, async (page) => {
        // The page shows the match, the consent given, the invite link; the partner's turn lets
        // the human answer from the page.
        const card = page.locator('.couple')
        await card.getByText(`${handle} and ${partnerHandle} (committed)`).waitFor()
        await card.getByText('You both agreed to meet.').waitFor()
        expect(await card.locator('a').getAttribute('href')).toBe(`${url}/claim?token=${token}`)
        expect(
          (
            await call(
              'POST',
              `/api/couples/${coupleId}/turns`,
              { personaId: agent.personaId, body: 'Lovely, tell me about the boats.' },
              bearer(agent.agent.credential),
            )
          ).status,
        ).toBe(201)
        await page.reload()
        await card.getByText('Lovely, tell me about the boats.').waitFor()
        await card.locator('textarea').fill('The oldest one is a wooden sloop.')
        await card.getByRole('button', { name: 'Send your turn' }).click()
        await card.getByText(`${handle}: The oldest one is a wooden sloop.`).waitFor()
        mkdirSync(outputDir, { recursive: true })
        await page.screenshot({ path: `${outputDir}/chat-page-match.png`, fullPage: true })
      })

      // Only a SIWE login of the wallet that submitted the doc claims it; a refusal claims nothing.
      const wrongWallet = await call('POST', '/api/escalations/claim', {
        token,
        authToken: await siweLogin(
          otherAccount,
          (await call('POST', '/api/chat/session/nonce', {})).json,
        ),
      })
      expect(wrongWallet).toMatchObject({
        status: 403,
        json: {
          error:
            'this profile was submitted from a wallet: claim it by signing in with that wallet (SIWE)',
        },
      })
      const claimed = await call('POST', '/api/escalations/claim', {
        token,
        authToken: await siweLogin(
          account,
          (await call('POST', '/api/chat/session/nonce', {})).json,
        ),
      })
      expect(claimed).toMatchObject({ status: 200, json: { ownerId, tier: 'profile_claimed' } })
      expect(await row(`SELECT tier, human_subject FROM owners WHERE id = $1`, [ownerId])).toEqual({
        tier: 'profile_claimed',
        human_subject: `siwe:${account.address}`,
      })
      const afterClaim = await call('GET', '/api/chat/me', undefined, cookie)
      expect(afterClaim.json.escalation.tier).toBe('profile_claimed')
      expect(afterClaim.json.escalation.couples[0].invite).toBeNull()

      // The cookie is the claimed human for the reveal consent too (its subject is siwe:<wallet>);
      // another wallet's is not a human of this couple.
      expect(
        await call('POST', `/api/couples/${coupleId}/reveal-consent`, undefined, cookie),
      ).toMatchObject({ status: 200, json: { consented: true, both: false } })
      expect(
        (await call('POST', `/api/couples/${coupleId}/reveal-consent`, undefined, otherCookie))
          .status,
      ).toBe(403)

      // And it withdraws: the couple leaves the chat page.
      expect(
        await call('POST', `/api/couples/${coupleId}/withdraw`, { personaId }, cookie),
      ).toMatchObject({ status: 200, json: { state: 'withdrawn' } })
      expect(
        (await call('GET', '/api/chat/me', undefined, cookie)).json.escalation.couples,
      ).toEqual([])
      esc.expectNoContactOutsideReveal([CONTACT_A, CONTACT_B])
    })

    it('documents the chat session beside the credential on the routes that take it', async () => {
      const spec = (await call('GET', '/openapi.json')).json
      for (const [path, method] of [
        ['/api/couples/{id}/turns', 'post'],
        ['/api/couples/{id}/withdraw', 'post'],
        ['/api/couples/{id}', 'get'],
        ['/api/couples/{id}/intro-consent', 'post'],
        ['/api/escalations/{coupleId}/invite', 'post'],
        ['/api/escalations/{coupleId}/invite', 'get'],
        ['/api/couples/{id}/reveal-consent', 'post'],
        ['/api/couples/{id}/reveal', 'get'],
      ] as const)
        expect(spec.paths[path][method].security, `${method} ${path}`).toContainEqual({
          chatSession: [],
        })
      expect(spec.paths['/api/premium/compatibility-report'].post.security).not.toContainEqual({
        chatSession: [],
      })
    })
  },
)
