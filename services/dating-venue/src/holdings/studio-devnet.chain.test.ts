import { type Devnet, type StudioToken, startStudioToken } from '@agents/devnet'
import { sharedDevnet } from '@agents/devnet/testing'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { studioPrice } from '../db/schema.ts'
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
    devnet = await sharedDevnet({ tempo: false })
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

  // At $0.25 a token, a cent is 0.04 token: each tier's first cent and the cent below it.
  it.each([
    ['119.96', '29.99', 3],
    ['120', '30.00', 50],
    ['239.96', '59.99', 50],
    ['240', '60.00', 100],
    ['359.96', '89.99', 100],
    ['360', '90.00', 200],
    ['479.96', '119.99', 200],
    ['480', '120.00', 400],
    ['599.96', '149.99', 400],
    ['600', '150.00', 500],
    ['4000', '1000.00', 500],
  ])('%s tokens are $%s of holding: %i free messages a day', async (tokens, usd, perDay) => {
    const account = privateKeyToAccount(generatePrivateKey())
    await studio.fund(account.address, tokens)
    const { cookie } = await signInToChat(venue.url, { account })
    expect(await me(cookie)).toMatchObject({ holdingUsd: usd, freePerDay: perDay })
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

// The oracle through the venue: the stored price (in the database, shared by
// replicas) rises at most 10 % an hour, and with the source down it stands
// for 6 hours, then holdings count as nothing. Each case is a fresh venue
// whose stored price is set before its first read.
describe('the price oracle, through the venue', () => {
  let devnet: Devnet
  let studio: StudioToken
  const venues: Venue[] = []
  const HOUR = 3_600_000
  beforeAll(async () => {
    devnet = await sharedDevnet({ tempo: false })
    studio = await startStudioToken({ rpcUrl: devnet.base.rpcUrl, usd: '0.25' })
  }, 120_000)
  afterAll(async () => {
    for (const venue of venues) await venue.close()
    await studio?.stop()
    await devnet?.stop()
  })

  /** A venue whose stored price was $0.25, last moved and observed `hoursAgo`; a wallet of 400 tokens. */
  const holderOn = async (hoursAgo: number) => {
    const venue = await startTestVenue({ devnet, env: studio.env() })
    venues.push(venue)
    const at = Date.now() - hoursAgo * HOUR
    await venue.deps.database.db
      .insert(studioPrice)
      .values({ id: 1, priceMicroUsd: 250_000n, updatedAt: at, observedAt: at })
    const account = privateKeyToAccount(generatePrivateKey())
    await studio.fund(account.address, '400')
    const { cookie } = await signInToChat(venue.url, { account })
    return async () =>
      (await (await fetch(`${venue.url}/api/chat/me`, { headers: { cookie } })).json()) as Record<
        string,
        unknown
      >
  }

  it('a pump is let through at 10 % an hour: $1.00 at the source an hour after $0.25 is $0.275', async () => {
    studio.setPriceUsd('1.00')
    const me = await holderOn(1)
    // 400 tokens: $110 (200 a day), not the pumped $400 (500 a day).
    expect(await me()).toMatchObject({ holdingUsd: '110.00', freePerDay: 200 })
  })

  it('a fall is taken at once', async () => {
    studio.setPriceUsd('0.05')
    const me = await holderOn(1)
    expect(await me()).toMatchObject({ holdingUsd: '20.00', freePerDay: 3 })
  })

  it('the source down: the stored price stands for 6 hours, then holdings count as nothing', async () => {
    studio.setPriceUsd(undefined)
    const fresh = await holderOn(5)
    expect(await fresh()).toMatchObject({ holdingUsd: '100.00', freePerDay: 200 })
    const stale = await holderOn(7)
    expect(await stale()).toMatchObject({ holdingUsd: '0.00', freePerDay: 3 })
  })
})
