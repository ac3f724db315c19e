import { mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { type ChatStandIn, startChatStandIn } from '../testing/chat-stand-in.ts'
import { launchTestBrowser } from '../testing/launch-test-browser.ts'
import { injectTestWallet } from '../testing/test-wallet.ts'
import { startTestVenue } from '../testing.ts'

const outputDir = fileURLToPath(new URL('../../../../test-output/dating-venue', import.meta.url))

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

it('in Chromium: sign in with an injected wallet, attest 18+, chat, watch the free counter fall', async () => {
  const account = privateKeyToAccount(generatePrivateKey())
  chat.answer({ status: 200, content: 'Start with what a slow Sunday looks like for you.' })
  const browser = await launchTestBrowser()
  try {
    const page = await browser.newPage()
    await injectTestWallet(page, account)
    await page.goto(`${venue.url}/chat`)
    await page.click('#sign-in')
    await page.waitForSelector('#attest:not([hidden])')
    await page.check('#adult')
    await page.click('#confirm-adult')
    await page.waitForSelector('#signed-in:not([hidden])')
    expect(await page.textContent('#free-left')).toBe('3')
    await page.fill('#message', 'How do I start my about section?')
    await page.click('#send')
    await page.getByText('Start with what a slow Sunday looks like for you.').waitFor()
    await page.waitForFunction(() => document.getElementById('free-left')?.textContent === '2')
    expect(await page.textContent('#next-tier')).toContain('50 a day with $30.00 more')
    mkdirSync(outputDir, { recursive: true })
    await page.screenshot({ path: `${outputDir}/chat-page.png`, fullPage: true })
    // The session cookie is invisible to the page's script.
    expect(await page.evaluate(() => document.cookie)).toBe('')
  } finally {
    await browser.close()
  }
})
