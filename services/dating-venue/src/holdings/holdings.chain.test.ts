import { createServer } from 'node:http'
import type { Devnet } from '@agents/devnet'
import { sharedDevnet } from '@agents/devnet/testing'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { signInToChat } from '../testing/chat-fixtures.ts'
import { type ChatStandIn, startChatStandIn } from '../testing/chat-stand-in.ts'
import { startTestVenue } from '../testing.ts'
import { fetchUsdPrice } from './holdings.ts'

/** A price API stand-in over HTTP: answers what the test sets. */
let priceAnswer: { status: number; body: unknown } = { status: 200, body: { usd: '0.00003' } }
const prices = createServer((_request, response) => {
  response.statusCode = priceAnswer.status
  response.setHeader('content-type', 'application/json')
  response.end(JSON.stringify(priceAnswer.body))
})
let priceUrl = ''
let devnet: Devnet
let venue: Venue
let chat: ChatStandIn
beforeAll(async () => {
  await new Promise<void>((resolve) => prices.listen(0, '127.0.0.1', resolve))
  priceUrl = `http://127.0.0.1:${(prices.address() as { port: number }).port}/price`
  devnet = await sharedDevnet({ tempo: false })
  chat = await startChatStandIn()
  // The devnet's USDC stands in for the studio token: any ERC-20 reads the same.
  venue = await startTestVenue({
    devnet,
    env: {
      MATCHMAKER_CHAT_URL: chat.url,
      VENUE_STUDIO_TOKEN: devnet.base.usdc,
      VENUE_STUDIO_RPC_URL: devnet.base.rpcUrl,
      VENUE_STUDIO_PRICE_URL: priceUrl,
    },
  })
}, 120_000)
afterAll(async () => {
  await venue?.close()
  await chat?.close()
  await devnet?.stop()
  await new Promise<void>((resolve) => prices.close(() => resolve()))
})

describe('the price source', () => {
  it.each([
    [{ usd: 0.025 }, 25_000n],
    [{ usd: '1.5' }, 1_500_000n],
    [{ studio: { usd: 2 } }, 2_000_000n],
    [{ usd: '0.0000019' }, 1n],
  ])('%j is %s millionths of a dollar', async (body, expected) => {
    priceAnswer = { status: 200, body }
    expect(await fetchUsdPrice(priceUrl)()).toBe(expected)
  })

  it.each([
    [200, {}],
    [200, { usd: 'cheap' }],
    [200, { usd: -1 }],
    [500, { usd: 1 }],
  ])('a %s answer of %j is no price', async (status, body) => {
    priceAnswer = { status, body }
    await expect(fetchUsdPrice(priceUrl)()).rejects.toThrow()
  })
})

describe('free messages by the studio token holding', () => {
  const signIn = async (account: PrivateKeyAccount) => {
    const { cookie } = await signInToChat(venue.url, { account })
    return async (text: string) =>
      (
        await fetch(`${venue.url}/api/chat/ask`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', cookie },
          body: JSON.stringify({ message: text }),
        })
      ).json() as Promise<{ freeLeft: number }>
  }

  it('a wallet holding $30 of the token at the stored price gets 50 a day; an empty one 3', async () => {
    priceAnswer = { status: 200, body: { usd: '0.00003' } }
    chat.answer({ status: 200, content: 'Keep it short and warm.' })
    // The payer holds 1,000,000 tokens: $30.00 at $0.00003.
    const holder = await signIn(devnet.accounts.payer)
    expect((await holder('How long should my about be?')).freeLeft).toBe(49)
    const empty = await signIn(privateKeyToAccount(generatePrivateKey()))
    expect((await empty('How long should my about be?')).freeLeft).toBe(2)
  })
})
