import { mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { type Devnet, type StudioToken, startDevnet, startStudioToken } from '@agents/devnet'
import { type Address, createWalletClient, erc20Abi, http } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { type ChatStandIn, startChatStandIn } from '../testing/chat-stand-in.ts'
import { launchTestBrowser } from '../testing/launch-test-browser.ts'
import { injectTestWallet } from '../testing/test-wallet.ts'
import { startTestVenue, TEST_ADMIN_TOKEN } from '../testing.ts'

const outputDir = fileURLToPath(new URL('../../../../test-output/dating-venue', import.meta.url))

// The devnet (Base with USDC and the x402 facilitator), the studio token on it with its price
// stand-in ($0.25), the chat model's stand-in, and the venue configured with all three.
let devnet: Devnet
let studio: StudioToken
let venue: Venue
let chat: ChatStandIn
beforeAll(async () => {
  devnet = await startDevnet({ tempo: false })
  studio = await startStudioToken({ rpcUrl: devnet.base.rpcUrl })
  chat = await startChatStandIn()
  venue = await startTestVenue({ devnet, env: { MATCHMAKER_CHAT_URL: chat.url, ...studio.env() } })
}, 120_000)
afterAll(async () => {
  await venue?.close()
  await chat?.close()
  await studio?.stop()
  await devnet?.stop()
})

/** The devnet's payer sends `usdc` whole USDC to `to`. */
const sendUsdc = async (to: Address, usdc: bigint) => {
  const wallet = createWalletClient({
    account: devnet.accounts.payer,
    transport: http(devnet.base.rpcUrl),
  })
  const hash = await wallet.writeContract({
    address: devnet.base.usdc,
    abi: erc20Abi,
    functionName: 'transfer',
    args: [to, usdc * 1_000_000n],
    chain: null,
  })
  await devnet.base.publicClient.waitForTransactionReceipt({ hash })
}

const INTERVIEW_ANSWERS = [
  'I restore old sailboats and read too much history.',
  'Someone curious who likes slow Sunday mornings.',
  'long-term',
  'honesty, kindness',
  'sailing, history',
  'none',
  'calm and a little nerdy',
  'none',
]

it('in Chromium: sign in, attest, chat until the free messages run out, top up, draft through the interview, submit, held for review, approved, admitted', async () => {
  const account = privateKeyToAccount(generatePrivateKey())
  // USDC to pay with, and $10 of the studio token (40 at $0.25): the free tier, 3 messages a day.
  await sendUsdc(account.address, 10n)
  await studio.fund(account.address, '40')
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

    // The free counter falls with each answer, then runs out.
    for (const left of ['2', '1', '0']) {
      await page.fill('#message', 'How do I start my about section?')
      await page.click('#send')
      await page.waitForFunction(
        (expected) => document.getElementById('free-left')?.textContent === expected,
        left,
      )
    }
    await page.fill('#message', 'One more question?')
    await page.click('#send')
    await page.getByText("You have used today's free messages and your credits.").waitFor()

    // A top-up on the devnet, paid from the signed-in wallet (it signs the USDC authorization).
    const payee = await devnet.usdcBalance(devnet.accounts.payee)
    await page.click('#top-up')
    await page.getByText('Topped up: 50 credits added (16 messages).').waitFor()
    await page.waitForFunction(() => document.getElementById('credits')?.textContent === '50')
    expect(await devnet.usdcBalance(devnet.accounts.payee)).toBe(payee + 2_000_000n)
    await page.fill('#message', 'And now, how do I describe who I am seeking?')
    await page.click('#send')
    await page.waitForFunction(() => document.getElementById('credits')?.textContent === '47')

    // The offline interview drafts the doc field by field, shown as it grows.
    for (const answer of INTERVIEW_ANSWERS) {
      await page.waitForSelector('#interview:not([hidden])')
      const question = await page.textContent('#question')
      await page.fill('#interview-answer', answer)
      await page.click('#answer')
      await page.waitForFunction(
        (asked) => document.getElementById('question')?.textContent !== asked,
        question,
      )
    }
    await page.waitForSelector('#submit-doc:not([hidden])')
    expect(await page.textContent('#draft')).toContain('I restore old sailboats')

    // Below $50 of the studio token the floor refuses, saying what is missing; nothing is charged.
    await page.fill('#handle', 'aeiou-sailor')
    await page.click('#submit')
    await page.getByText('the human floor needs a holding worth at least $50.00').waitFor()

    // The human gets more of the token ($60 in all); the doc is submitted, paid from the wallet.
    await studio.fund(account.address, '200')
    await page.fill('#contact', 'signal: private-pointer')
    await page.click('#submit')
    await page.getByText('Your doc (aeiou-sailor): held for review').waitFor()
    expect(await page.isHidden('#submit-doc')).toBe(true)
    mkdirSync(outputDir, { recursive: true })
    await page.screenshot({ path: `${outputDir}/chat-journey-held.png`, fullPage: true })

    // The operator approves; the persona is admitted.
    const [row] = (
      await venue.deps.database.client.query(
        "SELECT id FROM personas WHERE handle = 'aeiou-sailor'",
      )
    ).rows as Array<{ id: number }>
    const approved = await fetch(`${venue.url}/admin/actions/review`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      body: JSON.stringify({ personaId: row!.id, decision: 'approve' }),
    })
    expect(await approved.json()).toMatchObject({ status: 'admitted', admitted: true })
    await page.reload()
    await page.getByText('Your doc (aeiou-sailor): admitted').waitFor()
    await page.screenshot({ path: `${outputDir}/chat-journey-admitted.png`, fullPage: true })
  } finally {
    await browser.close()
  }
}, 120_000)
