import { type Devnet, startDevnet } from '@agents/devnet'
import { testBackends } from '@agents/service-kit/db'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { signInToChat } from '../testing/chat-fixtures.ts'
import { startTestVenue, TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'
import { TOPUP_ERRORS } from './chat-topup.ts'
import { creditBalance } from './credits.ts'

// The top-up's payer check on its own devnet: that no settle call went out is the
// facilitator's settlement count, which the run's shared devnet does not keep per file
// (chat-topup.chain.test.ts has the rest of the top-up).

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'chat top-up payer on $name',
  ({ open }) => {
    let devnet: Devnet
    let venue: Venue
    let drop: () => Promise<void>
    beforeAll(async () => {
      const database = await open()
      drop = database.drop
      devnet = await startDevnet()
      venue = await startTestVenue({ devnet, databaseUrl: database.url })
    }, 120_000)
    afterAll(async () => {
      await venue?.close()
      await devnet?.stop()
      await drop?.()
    })

    const paid = (pay: typeof fetch, cookie: string) =>
      pay(`${venue.url}/api/chat/topup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie },
        body: '{}',
      })
    const me = async (cookie: string) =>
      (await (await fetch(`${venue.url}/api/chat/me`, { headers: { cookie } })).json()) as {
        credits: number
        freeLeft: number
      }
    const sql = async (text: string, values: unknown[]) =>
      (await venue.deps.database.client.query(text, values)).rows as Array<Record<string, unknown>>

    it('a paying wallet that is not the signed-in one: 403 before settlement, nothing charged on either rail', async () => {
      const { cookie, wallet } = await signInToChat(venue.url, {
        account: privateKeyToAccount(generatePrivateKey()),
      })
      const payer = devnet.accounts.payer
      const usdc = [
        await devnet.usdcBalance(payer.address),
        await devnet.usdcBalance(devnet.accounts.payee),
      ]
      const tempo = [
        await devnet.tempoBalance!(payer.address),
        await devnet.tempoBalance!(devnet.accounts.payee),
      ]
      const settlements = devnet.facilitator.settlements()
      for (const pay of [devnet.x402Fetch(payer), devnet.mppFetch!(payer, 'pull')]) {
        const refused = await paid(pay, cookie)
        expect(refused.status).toBe(403)
        expect(await refused.json()).toEqual({ error: TOPUP_ERRORS.notYourWallet })
      }
      expect(devnet.facilitator.settlements()).toBe(settlements)
      expect([
        await devnet.usdcBalance(payer.address),
        await devnet.usdcBalance(devnet.accounts.payee),
      ]).toEqual(usdc)
      expect([
        await devnet.tempoBalance!(payer.address),
        await devnet.tempoBalance!(devnet.accounts.payee),
      ]).toEqual(tempo)
      expect(await me(cookie)).toMatchObject({ credits: 0 })
      expect(await creditBalance(venue.deps.database.db, wallet)).toBe(0)
      expect(
        await sql('SELECT count(*)::int AS n FROM payment_ledger WHERE request_key LIKE $1', [
          `topup:${wallet}:%`,
        ]),
      ).toEqual([{ n: 0 }])
    })
  },
)
