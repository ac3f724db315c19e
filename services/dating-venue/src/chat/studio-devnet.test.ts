import { type Devnet, type StudioToken, startDevnet, startStudioToken } from '@agents/devnet'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { signInToChat } from '../testing/chat-fixtures.ts'
import { startTestVenue } from '../testing.ts'

// What `npm start` sets up for the chat page: the studio token on the Base devnet (OpenZeppelin's
// ERC-20 preset) and the price stand-in, read by the venue through its oracle.
describe('the studio token on the devnet, through the venue', () => {
  let devnet: Devnet
  let studio: StudioToken
  let venue: Venue
  beforeAll(async () => {
    devnet = await startDevnet({ tempo: false })
    studio = await startStudioToken({ rpcUrl: devnet.base.rpcUrl, usd: '0.25' })
    venue = await startTestVenue({ devnet, env: studio.env() })
  }, 120_000)
  afterAll(async () => {
    await venue?.close()
    await studio?.stop()
    await devnet?.stop()
  })

  const me = async (cookie: string) =>
    (await (await fetch(`${venue.url}/api/chat/me`, { headers: { cookie } })).json()) as Record<
      string,
      unknown
    >

  it("a funded wallet's holding is read on-chain and priced by the stand-in: GET /api/chat/me shows its tier", async () => {
    const account = privateKeyToAccount(generatePrivateKey())
    await studio.fund(account.address, '400')
    expect(await studio.balanceOf(account.address)).toBe(400n * 10n ** 18n)
    const { cookie } = await signInToChat(venue.url, { account })
    expect(await me(cookie)).toMatchObject({
      holdingUsd: '100.00',
      freePerDay: 200,
      freeLeft: 200,
      nextTier: { freePerDay: 400, moreUsd: '20.00' },
    })
  })

  it('a wallet without the token is on the free tier, told what the next one needs', async () => {
    const { cookie } = await signInToChat(venue.url)
    expect(await me(cookie)).toMatchObject({
      holdingUsd: '0.00',
      freePerDay: 3,
      nextTier: { freePerDay: 50, moreUsd: '30.00' },
    })
  })
})
