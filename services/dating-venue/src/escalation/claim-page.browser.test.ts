import { testBackends } from '@agents/service-kit/db'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { CONTACT_A, CONTACT_B, useEscalationVenue } from '../testing/escalation-fixtures.ts'
import { launchTestBrowser } from '../testing/launch-test-browser.ts'
import { axeViolations, keepScreenshot, phonePage, phoneProblems } from '../testing/page-checks.ts'
import { TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'

// The only part of the escalation path that needs a browser: the claim page's script.
describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'the claim page on $name',
  ({ name, open }) => {
    const esc = useEscalationVenue(open)

    it("A's human claims in a real browser: sign in at the login provider, then the identity check", async () => {
      const a = await esc.member(CONTACT_A, esc.hookUrl())
      const b = await esc.member(CONTACT_B)
      const coupleId = await esc.beat(`claim-page-${name}`)
      await esc.commit(coupleId, a, b)
      await esc.invites(coupleId, a, b)
      const delivered = JSON.parse(esc.invitesToHook.at(-1)!) as { token: string; claimUrl: string }
      const { idp } = esc.context
      const suffix = name === 'PGlite' ? '' : `-${name.toLowerCase()}`
      /** axe-core's serious and critical violations and a phone's problems: none; a screenshot kept. */
      const checked = async (page: Page, stem: string) => {
        expect(await axeViolations(page)).toEqual([])
        expect(await phoneProblems(page)).toEqual([])
        await keepScreenshot(page, `${stem}${suffix}`)
      }

      const browser = await launchTestBrowser()
      try {
        const page = await browser.newPage()
        const phone = await phonePage(browser)
        // Before sign-in, on desktop and on a phone (opening the page spends nothing).
        for (const [each, stem] of [
          [page, 'claim'],
          [phone, 'claim-phone'],
        ] as const) {
          await each.goto(delivered.claimUrl)
          await each.waitForFunction(
            () => document.getElementById('sign-in')?.getAttribute('href') !== '#',
          )
          await checked(each, stem)
        }
        await page.click('#sign-in')
        await page.getByText('Sign in as test human').waitFor()
        // The login provider is handed the fields of a SIWE message the venue would accept.
        const siwe = new URL(page.url()).searchParams.get('siwe')!
        expect(JSON.parse(Buffer.from(siwe, 'base64url').toString('utf8'))).toMatchObject({
          uri: new URL(delivered.claimUrl).origin,
          chainId: 8453,
          nonce: expect.stringMatching(/^[0-9a-f]{32}$/),
        })
        await page.getByText('Sign in as test human').click()
        await page.waitForURL(`${idp.url}/verify/**`, { timeout: 15_000 })
        await keepScreenshot(page, `identity-check-${name}`)

        // Back from the check: the page the provider sends the browser to, its reference a UUID.
        const sessionId = await esc.sessionOf(a.ownerId)
        const done = `${new URL(delivered.claimUrl).origin}/identity/done?verificationSessionId=${sessionId}&status=Approved`
        for (const [each, stem] of [
          [page, 'identity-done'],
          [phone, 'identity-done-phone'],
        ] as const) {
          await each.goto(done)
          expect(await each.textContent('#reported-status')).toBe('Approved')
          expect(await each.textContent('#session-reference')).toBe(sessionId)
          await checked(each, stem)
        }
      } finally {
        await browser.close()
      }
      const claimedA = await esc.row<{ tier: string; human_subject: string }>(
        `SELECT tier, human_subject FROM owners WHERE id = $1`,
        [a.ownerId],
      )
      expect(claimedA.tier).toBe('profile_claimed')
      expect(claimedA.human_subject).toBeTruthy()
      // The check the page sent the human to is the owner's session at the provider.
      expect(await esc.sessionOf(a.ownerId)).toBeTruthy()
    }, 120_000)
  },
)
