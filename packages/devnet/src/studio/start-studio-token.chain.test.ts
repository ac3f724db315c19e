import { erc20Abi } from 'viem'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { Devnet } from '../start-devnet.ts'
import { sharedDevnet } from '../testing/shared-devnet.ts'
import { type StudioToken, startStudioToken } from './start-studio-token.ts'

let devnet: Devnet
let studio: StudioToken
beforeAll(async () => {
  devnet = await sharedDevnet({ tempo: false })
  studio = await startStudioToken({
    rpcUrl: devnet.base.rpcUrl,
    mints: [{ to: devnet.accounts.payer.address, tokens: '400' }],
  })
}, 60_000)
afterAll(async () => {
  await studio?.stop()
  await devnet?.stop()
})

test("the studio token is OpenZeppelin's preset on the Base devnet: 18 decimals, minted at start and on demand", async () => {
  const read = (functionName: 'decimals' | 'symbol') =>
    devnet.base.publicClient.readContract({ address: studio.token, abi: erc20Abi, functionName })
  expect(await read('decimals')).toBe(18)
  expect(await read('symbol')).toBe('STUDIO')
  expect(await studio.balanceOf(devnet.accounts.payer.address)).toBe(400n * 10n ** 18n)
  await studio.fund(devnet.accounts.payee, '1.5')
  expect(await studio.balanceOf(devnet.accounts.payee)).toBe(15n * 10n ** 17n)
  expect(studio.env()).toEqual({
    VENUE_STUDIO_TOKEN: studio.token,
    VENUE_STUDIO_RPC_URL: devnet.base.rpcUrl,
    VENUE_STUDIO_PRICE_URL: studio.priceUrl,
  })
})

test('the price stand-in answers CoinGecko-shaped prices, moves, and can fail', async () => {
  expect(await (await fetch(studio.priceUrl)).json()).toEqual({ studio: { usd: '0.25' } })
  studio.setPriceUsd('0.40')
  expect(await (await fetch(studio.priceUrl)).json()).toEqual({ studio: { usd: '0.40' } })
  studio.setPriceUsd(undefined)
  expect((await fetch(studio.priceUrl)).status).toBe(503)
  studio.setPriceUsd('0.25')
})

test('tokens started at once on one chain each deploy and mint: no two share a sender', async () => {
  const tokens = await Promise.all(
    [1, 2, 3].map(() =>
      startStudioToken({
        rpcUrl: devnet.base.rpcUrl,
        mints: [{ to: devnet.accounts.payee2, tokens: '1' }],
      }),
    ),
  )
  try {
    expect(new Set(tokens.map((token) => token.token)).size).toBe(3)
    for (const token of tokens) {
      expect(await token.balanceOf(devnet.accounts.payee2)).toBe(10n ** 18n)
      await Promise.all([
        token.fund(devnet.accounts.payer.address, '2'),
        token.fund(devnet.accounts.payer2.address, '3'),
      ])
    }
    for (const token of tokens)
      expect(await token.balanceOf(devnet.accounts.payer2.address)).toBe(3n * 10n ** 18n)
  } finally {
    await Promise.all(tokens.map((token) => token.stop()))
  }
})
