import { testBackends } from '@agents/service-kit/db'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { splitAddress, splitFor } from '../split/split-address.ts'
import type { SwapRail } from '../start.ts'
import { SWAP_TEST_DATABASE, startTestSwapRail, TEST_DATABASE_URL } from '../testing.ts'

const seller = privateKeyToAccount(generatePrivateKey())
const otherHub = privateKeyToAccount(generatePrivateKey()).address
const ZERO = '0x0000000000000000000000000000000000000000'

describe.each(testBackends(TEST_DATABASE_URL, SWAP_TEST_DATABASE))(
  'an offer fee recipient on $name',
  ({ open }) => {
    let rail: SwapRail
    let drop: () => Promise<void>
    let modelCount = 0

    beforeAll(async () => {
      const database = await open()
      drop = database.drop
      rail = await startTestSwapRail({ databaseUrl: database.url })
    })
    afterAll(async () => {
      await rail?.close()
      await drop?.()
    })

    // biome-ignore lint/suspicious/noExplicitAny: tests read JSON by path
    const get = async (path: string): Promise<any> => (await fetch(`${rail.url}${path}`)).json()
    const post = async (model: string) => {
      const response = await fetch(`${rail.url}/v1/offers`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          endpoint: 'https://seller.example/v1',
          payTo: seller.address,
          model,
          mtok: 5,
          priceUsd: '1',
        }),
      })
      expect(response.status).toBe(201)
      return ((await response.json()) as { offer: { id: string; splitAddress: string } }).offer
    }
    const sql = (text: string, params: unknown[]) => rail.deps.database.client.query(text, params)
    const stored = async (id: string) => {
      const { rows } = await sql('SELECT fee_recipient FROM swap_offers WHERE id = $1', [id])
      return (rows[0] as { fee_recipient: string | null }).fee_recipient
    }
    /** Served the same by the list and the one-offer read. */
    const served = async (id: string, model: string) => {
      const one = (await get(`/v1/offers/${id}`)).feeRecipient
      const listed = (await get(`/v1/offers?model=${model}`)).offers.map(
        (offer: { feeRecipient: string | null }) => offer.feeRecipient,
      )
      expect(listed).toEqual([one])
      return one
    }

    it('stores the fee recipient of its split when the offer is made, and serves it', async () => {
      const model = `fee-model-${++modelCount}`
      const offer = await post(model)
      expect(await stored(offer.id)).toBe(rail.deps.fee.recipient)
      expect(await served(offer.id, model)).toBe(rail.deps.fee.recipient)
    })

    it('reads the stored recipient back instead of rebuilding the split', async () => {
      const model = `fee-model-${++modelCount}`
      const offer = await post(model)
      // The split is still the hub's; the stored column alone says otherwise.
      await sql('UPDATE swap_offers SET fee_recipient = $2 WHERE id = $1', [offer.id, otherHub])
      expect(await served(offer.id, model)).toBeNull()
    })

    it('fills an offer from before the column on its first read, once', async () => {
      const model = `fee-model-${++modelCount}`
      const offer = await post(model)
      await sql('UPDATE swap_offers SET fee_recipient = NULL WHERE id = $1', [offer.id])
      expect((await get(`/v1/offers?model=${model}`)).offers[0].feeRecipient).toBe(
        rail.deps.fee.recipient,
      )
      expect(await stored(offer.id)).toBe(rail.deps.fee.recipient)
      expect(await served(offer.id, model)).toBe(rail.deps.fee.recipient)
    })

    it('marks an old offer whose split pays another recipient as not known, and serves null', async () => {
      const model = `fee-model-${++modelCount}`
      const offer = await post(model)
      const theirs = splitAddress(
        splitFor({ seller: seller.address, feeRecipient: otherHub, feeBps: rail.deps.fee.bps }),
      )
      await sql('UPDATE swap_offers SET fee_recipient = NULL, split_address = $2 WHERE id = $1', [
        offer.id,
        theirs,
      ])
      expect((await get(`/v1/offers/${offer.id}`)).feeRecipient).toBeNull()
      expect(await stored(offer.id)).toBe(ZERO)
      expect(await served(offer.id, model)).toBeNull()
    })
  },
)
