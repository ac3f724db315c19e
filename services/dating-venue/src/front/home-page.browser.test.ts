import { testBackends } from '@agents/service-kit/db'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { admitPersona } from '../test-helpers.ts'
import { launchTestBrowser } from '../testing/launch-test-browser.ts'
import { axeViolations, keepScreenshot, phonePage, phoneProblems } from '../testing/page-checks.ts'
import { useTestVenue } from '../testing/venue-fixtures.ts'
import { TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'
import type { VenueStats } from './venue-stats.ts'

/** The figures the page shows, by the `get_stats` key each one is. */
const FIGURES = {
  admitted: '#stat-admitted',
  pending: '#stat-pending',
  cap: '#stat-cap',
  couples: '#stat-couples',
  publishedTurns: '#stat-turns',
} as const

const shownFigures = async (page: Page) =>
  Object.fromEntries(
    await Promise.all(
      Object.entries(FIGURES).map(async ([key, selector]) => [
        key,
        Number((await page.textContent(selector))?.replaceAll(',', '')),
      ]),
    ),
  ) as Omit<VenueStats, 'open'>

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'the home page on $name',
  ({ name, open }) => {
    let venue: Venue
    useTestVenue(open, (started) => {
      venue = started
    })
    const suffix = name === 'PGlite' ? '' : `-${name.toLowerCase()}`

    /** What the MCP tool `get_stats` tells an agent now. */
    const getStats = async (): Promise<VenueStats> => {
      const client = new Client({ name: 'home-page-test', version: '1.0.0' })
      await client.connect(new StreamableHTTPClientTransport(new URL(`${venue.url}/mcp`)))
      try {
        const result = await client.callTool({ name: 'get_stats', arguments: {} })
        return (result.structuredContent ??
          JSON.parse((result.content as Array<{ text: string }>)[0]!.text)) as VenueStats
      } finally {
        await client.close()
      }
    }

    it('in Chromium, desktop and phone: a way in for a person, the live figures, no Markdown, axe and phone checks clean', async () => {
      const browser = await launchTestBrowser()
      try {
        const desktop = await browser.newPage({ viewport: { width: 1280, height: 900 } })
        const phone = await phonePage(browser)
        const pageErrors: string[] = []
        for (const page of [desktop, phone])
          page.on('pageerror', (error) => pageErrors.push(error.message))

        await desktop.goto(`${venue.url}/`)
        const before = await shownFigures(desktop)
        expect(await getStats()).toMatchObject(before)
        // Two personas enter through the API: the page counts them on the next load.
        for (const _ of [1, 2]) expect((await admitPersona(venue)).answer.json.admitted).toBe(true)
        const stats = await getStats()
        expect(stats.admitted).toBe(before.admitted + 2)
        for (const page of [desktop, phone]) {
          expect((await page.goto(`${venue.url}/`))?.status()).toBe(200)
          // The same figures as the MCP tool's, computed by the same function.
          expect(await shownFigures(page)).toEqual({
            admitted: stats.admitted,
            pending: stats.pending,
            cap: stats.cap,
            couples: stats.couples,
            publishedTurns: stats.publishedTurns,
          })
          expect(await page.textContent('#stat-open')).toBe(stats.open ? 'Yes' : 'Not yet')

          // A person's way in: the chat page, and what it needs.
          const chat = page.getByRole('link', { name: 'Chat with the matchmaker' })
          expect(await chat.getAttribute('href')).toBe('/chat')
          const forPeople = (await page.textContent('#for-people')) ?? ''
          expect(forPeople).toContain('18 or older')
          expect(forPeople).toContain('browser wallet')

          // The house policy is rendered, not shown as Markdown.
          const text = (await page.textContent('body')) ?? ''
          expect(text).not.toContain('`')
          expect(await page.locator('li code', { hasText: 'persona_age: "18+"' }).count()).toBe(1)

          expect(await axeViolations(page)).toEqual([])
          expect(await phoneProblems(page)).toEqual([])
        }
        await keepScreenshot(desktop, `home-desktop${suffix}`)
        await keepScreenshot(phone, `home-phone${suffix}`)

        // Keyboard only: the first Tab reaches the chat link, Enter opens the chat page.
        await desktop.keyboard.press('Tab')
        expect(await desktop.evaluate(() => document.activeElement?.textContent)).toBe(
          'Chat with the matchmaker',
        )
        await Promise.all([
          desktop.waitForURL(`${venue.url}/chat`),
          desktop.keyboard.press('Enter'),
        ])
        expect(pageErrors).toEqual([])
      } finally {
        await browser.close()
      }
    }, 60_000)
  },
)
