import type { Devnet } from '@agents/devnet'
import { sharedDevnet } from '@agents/devnet/testing'
import { payFor, type SentRequest, send } from '@agents/payments/testing'
import { testBackends } from '@agents/service-kit/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { signInToChat } from '../testing/chat-fixtures.ts'
import { countRows, doc } from '../testing/intake-fixtures.ts'
import { startTestVenue, TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'
import { columnsHolding, PAYER_COLUMNS } from './testing/columns-holding.ts'

// Erasure after real payments (the devnet: x402 on Base, MPP on Tempo), through HTTP: no column
// of any table keeps the paying wallet, and the same payment presented again is refused as used:
// never served twice, never charged twice (exactly once across an erasure).

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'erasure after paid orders on $name',
  ({ name, open }) => {
    let devnet: Devnet
    let venue: Venue
    let databaseUrl: string | undefined
    let drop: () => Promise<void>
    beforeAll(async () => {
      const database = await open()
      drop = database.drop
      databaseUrl = database.url
      // Fresh, funded payers for each database: their addresses are in no other row.
      devnet = await sharedDevnet()
      venue = await startTestVenue({ devnet, databaseUrl })
    }, 120_000)
    afterAll(async () => {
      await venue?.close()
      await devnet?.stop()
      await drop?.()
    })

    const heartFile = () => ({
      url: `${venue.url}/api/intake/heart-file`,
      body: JSON.stringify(doc),
    })
    const erase = async (ownerId: number, headers: Record<string, string>) => {
      const response = await fetch(`${venue.url}/api/owners/${ownerId}`, {
        method: 'DELETE',
        headers,
      })
      return { status: response.status, json: await response.json() }
    }
    const usedAgain = (answer: SentRequest) => {
      expect(answer.status, JSON.stringify(answer.json)).toBe(402)
      expect(answer.json).toMatchObject({
        error: 'payment not verified',
        reason: 'payment_already_used',
      })
    }
    const balances = async () => ({
      base: await devnet.usdcBalance(devnet.accounts.payee),
      tempo: await devnet.tempoBalance!(devnet.accounts.payee),
    })
    const mppHashes = async () =>
      (
        (await venue.deps.database.client.query(
          `SELECT reference FROM payment_ledger WHERE rail = 'mpp' AND reference LIKE 'mpp:%'`,
        )) as { rows: Array<{ reference: string }> }
      ).rows.map((row) => row.reference.split(':')[2]!)

    it('an agent-represented owner paid by x402 and MPP, erased by its credential: no column holds its payer, and both payments are refused as used', async () => {
      const payer = devnet.accounts.payer2
      const x402Payment = await payFor(devnet, 'x402-v1', heartFile(), payer)
      const filed = await send(heartFile(), x402Payment)
      expect(filed.status, JSON.stringify(filed.json)).toBe(200)
      const ownerId = filed.json.ownerId as number
      const credential = filed.json.ownerCredential as string
      // MPP push from the same wallet: a second doc for the same owner.
      const mppPayment = await payFor(devnet, 'mpp', heartFile(), payer)
      const second = await send(heartFile(), mppPayment)
      expect(second.status, JSON.stringify(second.json)).toBe(200)
      expect(second.json.ownerId).toBe(ownerId)
      const [mppHash] = await mppHashes()
      expect(mppHash).toMatch(/^0x[0-9a-f]{64}$/)

      // The scan can fail: it finds the payer in every column that keeps a payment, and the
      // MPP transaction (the payer is one chain read away from its hash) in the reference.
      expect(await columnsHolding(venue, payer.address)).toEqual(
        expect.arrayContaining([
          ...PAYER_COLUMNS,
          'owners.wallet',
          'heart_files.payment_reference',
        ]),
      )
      expect(await columnsHolding(venue, mppHash!)).toEqual(
        expect.arrayContaining(['payment_ledger.reference', 'orders.id', 'revenue.order_id']),
      )

      expect(await erase(ownerId, { authorization: `Bearer ${credential}` })).toMatchObject({
        status: 200,
        json: { erased: true, ownerId },
      })
      expect(await columnsHolding(venue, payer.address)).toEqual([])
      expect(await columnsHolding(venue, mppHash!)).toEqual([])

      // Presented again: refused as used, nothing filed, nothing charged.
      const paid = await balances()
      const docs = await countRows(venue, 'heart_files')
      usedAgain(await send(heartFile(), x402Payment))
      usedAgain(await send(heartFile(), mppPayment))
      expect(await countRows(venue, 'heart_files')).toBe(docs)
      expect(await countRows(venue, 'owners')).toBe(0)
      expect(await balances()).toEqual(paid)
      if (name !== 'PostgreSQL' || !databaseUrl) return
      // Another replica (its MPP client has never seen the credential) refuses it too.
      const replica = await startTestVenue({ devnet, databaseUrl })
      try {
        usedAgain(
          await send(
            { url: `${replica.url}/api/intake/heart-file`, body: heartFile().body },
            mppPayment,
          ),
        )
        expect(await countRows(venue, 'owners')).toBe(0)
        expect(await balances()).toEqual(paid)
      } finally {
        await replica.close()
      }
    }, 120_000)

    it('a chat-page human who paid for its doc and a top-up, erased by its session: no column holds its wallet, and both payments are refused as used', async () => {
      const wallet = devnet.accounts.payer
      const x402Doc = await payFor(devnet, 'x402-v1', heartFile(), wallet)
      const filed = await send(heartFile(), x402Doc)
      expect(filed.status, JSON.stringify(filed.json)).toBe(200)
      const ownerId = filed.json.ownerId as number
      const chat = await signInToChat(venue.url, { account: wallet })
      const topup = (cookie: string) => ({
        url: `${venue.url}/api/chat/topup`,
        body: '{}',
        headers: { cookie },
      })
      const topupPayment = await payFor(devnet, 'x402-v1', topup(chat.cookie), wallet)
      const credited = await send(topup(chat.cookie), topupPayment)
      expect(credited.status, JSON.stringify(credited.json)).toBe(200)
      expect(credited.json.orderId).toMatch(/^chat_topup:x402:/)
      expect(await columnsHolding(venue, wallet.address)).toEqual(
        expect.arrayContaining([
          ...PAYER_COLUMNS,
          'owners.wallet',
          'credit_events.wallet',
          'credit_events.order_id',
          'chat_sessions.wallet',
        ]),
      )

      expect(await erase(ownerId, { cookie: chat.cookie })).toMatchObject({
        status: 200,
        json: { erased: true, ownerId },
      })
      expect(await columnsHolding(venue, wallet.address)).toEqual([])

      // Presented again, the doc's payment and (signed in afresh) the top-up's: refused as used.
      const paid = await balances()
      usedAgain(await send(heartFile(), x402Doc))
      const again = await signInToChat(venue.url, { account: wallet })
      usedAgain(await send(topup(again.cookie), topupPayment))
      expect(await countRows(venue, 'owners')).toBe(0)
      expect(await countRows(venue, 'credit_events')).toBe(0)
      expect(await balances()).toEqual(paid)
    }, 120_000)
  },
)
