import type { Browser, Page } from 'playwright-core'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { type ChatStandIn, startChatStandIn } from '../testing/chat-stand-in.ts'
import { launchTestBrowser } from '../testing/launch-test-browser.ts'
import { axeViolations, keepScreenshot, PHONE, phoneProblems } from '../testing/page-checks.ts'
import { injectTestWallet } from '../testing/test-wallet.ts'
import { startTestVenue } from '../testing.ts'

let venue: Venue
let chat: ChatStandIn
beforeAll(async () => {
  chat = await startChatStandIn()
  venue = await startTestVenue({ env: { MATCHMAKER_CHAT_URL: chat.url } })
}, 60_000)
afterAll(async () => {
  await venue?.close()
  await chat?.close()
})

const newWallet = () => privateKeyToAccount(generatePrivateKey())

/**
 * A Chromium for one test, closed after it (the bundled build runs as one process, which ends
 * with its last context: each test has its own browser).
 */
const inBrowser = async (test: (browser: Browser) => Promise<void>) => {
  const browser = await launchTestBrowser()
  try {
    await test(browser)
  } finally {
    await browser.close()
  }
}

/** A page in a fresh context (its own cookies) with `account` as its injected wallet. */
const openChat = async (
  browser: Browser,
  account: PrivateKeyAccount,
  device: 'desktop' | 'phone' = 'desktop',
) => {
  const context = await browser.newContext(device === 'phone' ? PHONE : {})
  const page = await context.newPage()
  await injectTestWallet(page, account)
  await page.goto(`${venue.url}/chat`)
  return page
}

const signIn = async (page: Page) => {
  await page.click('#sign-in')
  await page.waitForSelector('#attest:not([hidden]), #signed-in:not([hidden])')
}

const attest = async (page: Page) => {
  await page.check('#adult')
  await page.click('#confirm-adult')
  await page.waitForSelector('#signed-in:not([hidden])')
}

/** Sends `message` with the Send button and waits for the matchmaker's `answer`. */
const exchange = async (page: Page, message: string, answer: string) => {
  chat.answer({ status: 200, content: answer })
  await page.fill('#message', message)
  await page.click('#send')
  await page.locator('#log p.matchmaker', { hasText: answer }).waitFor()
}

const logLines = (page: Page) =>
  page.$$eval('#log p', (lines) => lines.map((line) => [line.className, line.textContent]))

/** axe none and, on the phone, no phone problem; a screenshot kept for a reviewer. */
const checkState = async (page: Page, name: string, device: 'desktop' | 'phone') => {
  await keepScreenshot(page, `chat-${name}-${device}`)
  expect(await axeViolations(page), `${name} on the ${device}: axe`).toEqual([])
  expect(await phoneProblems(page), `${name} on the ${device}: phone checks`).toEqual([])
}

it(
  'in Chromium: sign in with an injected wallet, attest 18+, chat, watch the free counter fall',
  () =>
    inBrowser(async (browser) => {
      const page = await openChat(browser, newWallet())
      await signIn(page)
      await attest(page)
      expect(await page.textContent('#free-left')).toBe('3')
      await exchange(
        page,
        'How do I start my about section?',
        'Start with what a slow Sunday looks like for you.',
      )
      await page.waitForFunction(() => document.getElementById('free-left')?.textContent === '2')
      expect(await page.textContent('#next-tier')).toContain('50 a day with $30.00 more')
      await keepScreenshot(page, 'chat-page')
      // The session cookie is invisible to the page's script.
      expect(await page.evaluate(() => document.cookie)).toBe('')
    }),
  120_000,
)

for (const device of ['desktop', 'phone'] as const)
  it(
    `on the ${device}: signed out, the 18+ step and signed in with a conversation: no axe violation, nothing too small, no sideways scroll`,
    () =>
      inBrowser(async (browser) => {
        const page = await openChat(browser, newWallet(), device)
        await page.waitForSelector('#signed-out:not([hidden])')
        await checkState(page, 'signed-out', device)

        await signIn(page)
        await page.waitForSelector('#attest:not([hidden])')
        // The checkbox itself is a 24x24 target at least, not only its label.
        const box = (await page.locator('#adult').boundingBox())!
        expect(box.width).toBeGreaterThanOrEqual(24)
        expect(box.height).toBeGreaterThanOrEqual(24)
        await checkState(page, 'attest', device)

        await attest(page)
        // A long unbroken word and an address wrap in the log instead of widening the page.
        await exchange(
          page,
          `My boat's name is ${'Sailboat'.repeat(20)}.`,
          `Then write it down: ${'Lantern'.repeat(20)} is a fine name.`,
        )
        await exchange(page, 'What should I say I am seeking?', 'Someone curious and kind.')
        expect(await page.textContent('#log-note')).toBe(
          'Older messages are deleted after 24 hours.',
        )
        await checkState(page, 'signed-in', device)
        // The log is a labelled region a keyboard reaches.
        expect(
          await page.$eval('#log', (log) => [
            log.getAttribute('role'),
            log.getAttribute('aria-label'),
            (log as HTMLElement).tabIndex,
          ]),
        ).toEqual(['log', 'Conversation with the matchmaker', 0])
      }),
    120_000,
  )

it(
  'by keyboard alone: Tab reaches the sign-in, the 18+ box and the log; Enter sends, Shift+Enter adds a line; the page says so',
  () =>
    inBrowser(async (browser) => {
      const page = await openChat(browser, newWallet())
      const asks: string[] = []
      page.on('request', (request) => {
        if (request.url().endsWith('/api/chat/ask')) asks.push(request.postData() ?? '')
      })
      /** Presses Tab until `id` has the focus; the ids passed on the way. */
      const tabTo = async (id: string) => {
        const passed: string[] = []
        for (let n = 0; n < 25; n++) {
          await page.keyboard.press('Tab')
          const focused = await page.evaluate(() => document.activeElement?.id ?? '')
          passed.push(focused)
          if (focused === id) return passed
        }
        throw new Error(`Tab never reached #${id}: ${passed.join(', ')}`)
      }
      await tabTo('sign-in')
      await page.keyboard.press('Enter')
      await page.waitForSelector('#attest:not([hidden])')
      await tabTo('adult')
      await page.keyboard.press('Space')
      await tabTo('confirm-adult')
      await page.keyboard.press('Enter')
      await page.waitForSelector('#signed-in:not([hidden])')
      const path = await tabTo('message')
      expect(path).toContain('log')

      // The hint sits beside the box and is the box's description.
      const hint = await page.$eval('#message', (box) =>
        document.getElementById(box.getAttribute('aria-describedby') ?? '')?.textContent?.trim(),
      )
      expect(hint).toBe('Enter sends; Shift+Enter adds a new line.')
      expect(await page.locator('body').innerText()).toContain(
        'Enter sends; Shift+Enter adds a new line.',
      )

      chat.answer({ status: 200, content: 'Two lines, well kept.' })
      await page.keyboard.type('First line')
      await page.keyboard.press('Shift+Enter')
      await page.keyboard.type('second line')
      expect(await page.inputValue('#message')).toBe('First line\nsecond line')
      expect(asks).toEqual([])
      await page.keyboard.press('Enter')
      await page.locator('#log p.matchmaker', { hasText: 'Two lines, well kept.' }).waitFor()
      expect(asks.map((body) => JSON.parse(body).message)).toEqual(['First line\nsecond line'])
      expect(await page.inputValue('#message')).toBe('')
      expect(await logLines(page)).toEqual([
        ['human', 'First line\nsecond line'],
        ['matchmaker', 'Two lines, well kept.'],
      ])
      // An empty box sends nothing on Enter.
      await page.keyboard.press('Enter')
      expect(asks).toHaveLength(1)
    }),
  120_000,
)

it(
  'a reload, and a new browser signing in with the same wallet, show the conversation again in order',
  () =>
    inBrowser(async (browser) => {
      const account = newWallet()
      const page = await openChat(browser, account)
      const expected = [
        ['How do I start?', 'Start with a slow Sunday.'],
        ['And my values?', 'Name two you would not trade.'],
        ['Anything else?', 'Keep it short and true.'],
      ]
      await signIn(page)
      await attest(page)
      for (const [message, answer] of expected) await exchange(page, message!, answer!)
      const lines = expected.flatMap(([message, answer]) => [
        ['human', message],
        ['matchmaker', answer],
      ])
      expect(await logLines(page)).toEqual(lines)

      await page.reload()
      await page.waitForSelector('#signed-in:not([hidden])')
      expect(await logLines(page)).toEqual(lines)
      expect(await page.textContent('#log-note')).toBe('Older messages are deleted after 24 hours.')
      await keepScreenshot(page, 'chat-reloaded-desktop')

      // Another browser (its own profile: a new session), on a phone, signs in with the same wallet.
      const fresh = await launchTestBrowser()
      try {
        const other = await openChat(fresh, account, 'phone')
        await other.waitForSelector('#signed-out:not([hidden])')
        await signIn(other)
        await other.waitForSelector('#signed-in:not([hidden])')
        expect(await logLines(other)).toEqual(lines)
        await keepScreenshot(other, 'chat-new-session-phone')
      } finally {
        await fresh.close()
      }

      // Signed out, the conversation leaves the page.
      await page.click('#sign-out')
      await page.waitForSelector('#signed-out:not([hidden])')
      expect(await logLines(page)).toEqual([])
    }),
  120_000,
)
