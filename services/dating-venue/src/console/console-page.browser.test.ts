import { postJson } from '@agents/service-kit'
import { testBackends } from '@agents/service-kit/db'
import type { Page } from 'playwright-core'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { REPORT_KIND } from '../compatibility/report-item.ts'
import { orders, revenue } from '../db/schema.ts'
import type { Venue } from '../start.ts'
import { admitPersona, createAgent, createOwner, HEART, uniqueHandle } from '../test-helpers.ts'
import { launchTestBrowser } from '../testing/launch-test-browser.ts'
import { axeViolations, keepScreenshot, phonePage, phoneProblems } from '../testing/page-checks.ts'
import { injectTestWallet } from '../testing/test-wallet.ts'
import { useTestVenue } from '../testing/venue-fixtures.ts'
import { TEST_ADMIN_TOKEN, TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'

const operatorAccount = privateKeyToAccount(generatePrivateKey())
const token = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'the console page on $name',
  ({ name, open }) => {
    let venue: Venue
    const { get } = useTestVenue(
      open,
      (started) => {
        venue = started
      },
      { env: { VENUE_OPERATOR_WALLETS: operatorAccount.address, VENUE_REPORT_THRESHOLD: '1' } },
    )

    /** An admitted persona whose owner can consent to an introduction. */
    const ownedPersona = async () => {
      const owner = await createOwner(venue)
      const agent = await createAgent(venue, {
        ownerCredential: owner.credential,
        ownerId: owner.ownerId,
      })
      const persona = await postJson(
        `${venue.url}/api/personas`,
        {
          handle: uniqueHandle('console'),
          model: 'claude',
          persona_age: '18+',
          heart: HEART,
          ownerId: owner.ownerId,
        },
        { authorization: `Bearer ${agent.credential}` },
      )
      expect(persona.json.admitted).toBe(true)
      return owner
    }

    it('in Chromium: sign in with an operator wallet, read the numbers, approve a held post, broker an intro', async () => {
      // A committed couple waiting for the broker: a beat pairs the two, both owners consent.
      const a = await ownedPersona()
      const b = await ownedPersona()
      const beat = await postJson(`${venue.url}/admin/actions/beat`, { cycleId: 'console' }, token)
      expect(beat.json.created).toBe(1)
      const coupleId = beat.json.coupleIds[0] as number
      for (const owner of [a, b])
        expect(
          (
            await postJson(
              `${venue.url}/api/couples/${coupleId}/intro-consent`,
              { ownerId: owner.ownerId },
              { authorization: `Bearer ${owner.credential}` },
            )
          ).status,
        ).toBe(200)

      // A post held by one report (the threshold is one reporter).
      const poster = await admitPersona(venue)
      const posted = await postJson(
        `${venue.url}/api/boards/seeking`,
        {
          personaId: poster.answer.json.personaId,
          body: 'Looking for a patient reader of old maps.',
        },
        { authorization: `Bearer ${poster.agent.credential}` },
      )
      expect(posted.status).toBe(201)
      const postId = posted.json.id as number
      const reporter = await createAgent(venue)
      await postJson(
        `${venue.url}/api/report`,
        { targetType: 'post', targetId: postId, reason: 'spam' },
        { authorization: `Bearer ${reporter.credential}` },
      )
      expect(JSON.stringify((await get('/api/boards/seeking')).json)).not.toContain('old maps')

      // A paid order with its transaction hash (66 characters without a space, for the look-up
      // to wrap on a phone) and its revenue today, for the revenue chart.
      const orderId = `cr:${a.ownerId}:0:${new Date().toISOString().slice(0, 10)}`
      const transaction = `0x${'ab'.repeat(32)}`
      await venue.deps.database.db.insert(orders).values({
        id: orderId,
        kind: REPORT_KIND,
        ownerId: a.ownerId,
        status: 'fulfilled',
        amountAtomic: 1_000_000n,
        paymentReference: `console-test:${orderId}`,
        transaction,
      })
      await venue.deps.database.db.insert(revenue).values({
        orderId,
        kind: REPORT_KIND,
        rail: 'x402',
        amountAtomic: 1_000_000n,
        reserveAtomic: 100_000n,
      })
      const before = (await get('/admin.json', token)).json
      expect(before.intros_to_broker).toBe(1)
      expect(before.couples_by_state.committed).toBe(1)

      const suffix = name === 'PGlite' ? '' : `-${name.toLowerCase()}`
      /** axe-core's serious and critical violations and a phone's problems: none; a screenshot kept. */
      const checked = async (page: Page, stem: string) => {
        expect(await axeViolations(page)).toEqual([])
        expect(await phoneProblems(page)).toEqual([])
        await keepScreenshot(page, `${stem}${suffix}`)
      }
      const pageErrors: string[] = []
      /** A page with the operator's wallet at the console, signed out. */
      const openSignedOut = async (page: Page, stem: string) => {
        await injectTestWallet(page, operatorAccount)
        page.on('pageerror', (error) => pageErrors.push(error.message))
        const signedOut = await page.goto(`${venue.url}/admin`)
        expect(signedOut?.status()).toBe(401)
        await page.waitForSelector('#signed-out:not([hidden])')
        await checked(page, `${stem}-signed-out`)
      }
      /** Signs the page's wallet in; the charts are drawn. */
      const signIn = async (page: Page) => {
        await page.click('#sign-in')
        await page.waitForSelector('#console:not([hidden])')
        await expect.poll(() => page.locator('#charts svg').count()).toBe(3)
      }
      /** The order look-up by transaction hash: the order's line, the hash wrapped inside the page. */
      const lookUpOrder = async (page: Page) => {
        await page.fill('#order-query', transaction)
        await page.click('#order-form button[type=submit]')
        expect(await page.locator('#order p').textContent()).toContain(`${orderId}: ${REPORT_KIND}`)
      }

      const browser = await launchTestBrowser()
      try {
        const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
        const phone = await phonePage(browser)
        // Both signed out before either signs in: the bundled Chromium runs in one process, where
        // a cookie set through fetch reaches every context's fetches.
        await openSignedOut(page, 'console')
        await openSignedOut(phone, 'console-phone')
        await signIn(page)
        expect(await page.textContent('#operator')).toBe(operatorAccount.address.toLowerCase())

        // The numbers: the Admitted tile shows the snapshot's count.
        const admitted = page.locator('.tile[data-key="Admitted"] strong')
        await expect.poll(() => admitted.textContent()).toBe(String(before.admitted))
        expect(before.admitted).toBe(3)
        expect(await page.textContent('.tile[data-key="Intros to broker"] strong')).toBe('1')
        // Each chart's first and last day, under it as page text.
        expect(await page.locator('#charts .axis span').count()).toBe(6)
        // Approve the held post (held and reported: one row, its reporter counted): it leaves the queue and is back on its board.
        const postRows = page.locator('#queue tr', { hasText: `post ${postId}` })
        await expect.poll(() => postRows.count()).toBe(1)
        // Before the decisions: the held post and the intro in their lists, an order looked up.
        await lookUpOrder(page)
        await checked(page, 'console-queue')
        // The same on a phone, with its own session.
        await signIn(phone)
        await expect
          .poll(() => phone.locator('#queue tr', { hasText: `post ${postId}` }).count())
          .toBe(1)
        await lookUpOrder(phone)
        await checked(phone, 'console-queue-phone')
        expect(await postRows.textContent()).toContain('old maps')
        expect(await postRows.textContent()).toContain('1 reporter(s)')
        await page.getByRole('button', { name: `Approve post ${postId}`, exact: true }).click()
        await page.waitForFunction(() =>
          document.getElementById('status')?.textContent?.endsWith('approved: done'),
        )
        await expect.poll(() => postRows.count()).toBe(0)
        expect(await page.textContent('#queue')).toContain('Nothing waits for review.')
        expect(JSON.stringify((await get('/api/boards/seeking')).json)).toContain('old maps')

        // Broker the intro: the couple is brokered and leaves the list.
        const introRow = page.locator('#intros tr', { hasText: `couple ${coupleId}` })
        await page.getByRole('button', { name: `Broker couple ${coupleId}`, exact: true }).click()
        await page.waitForFunction(() =>
          document.getElementById('status')?.textContent?.endsWith('brokered: done'),
        )
        await expect.poll(() => introRow.count()).toBe(0)
        expect(await page.textContent('#intros')).toContain('No committed couple waits.')
        const after = (await get('/admin.json', token)).json
        expect(after.couples_by_state).toMatchObject({ committed: 0, brokered: 1 })
        expect(after.intros_to_broker).toBe(0)
        expect(await page.textContent('.tile[data-key="Intros to broker"] strong')).toBe('0')
        // Both actions are recorded under the operator's wallet, and the page lists them.
        const operator = operatorAccount.address.toLowerCase()
        expect(after.recent_events).toEqual(
          expect.arrayContaining([
            expect.objectContaining({
              kind: 'moderated',
              detail: expect.objectContaining({ targetId: postId, operator }),
            }),
            expect.objectContaining({
              kind: 'intro_brokered',
              detail: expect.objectContaining({ operator }),
            }),
          ]),
        )
        expect(await page.textContent('#events')).toContain('moderated')

        // Long event details wrap inside the page instead of widening it.
        expect(
          await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
        ).toBe(true)
        expect(pageErrors).toEqual([])

        // Nothing waits: the lists' empty lines, on desktop and phone.
        await checked(page, 'console')
        await phone.reload()
        await phone.waitForSelector('#console:not([hidden])')
        await expect.poll(() => phone.locator('#queue .empty').count()).toBe(1)
        await checked(phone, 'console-phone')
        // The session cookie is invisible to the page's script.
        expect(await page.evaluate(() => document.cookie)).toBe('')
      } finally {
        await browser.close()
      }
    }, 60_000)
  },
)
