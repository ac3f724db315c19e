import type { Devnet } from '@agents/devnet'
import { sharedDevnet } from '@agents/devnet/testing'
import { decodeBase64Json, PAYMENT_REQUIRED_HEADER } from '@agents/payments'
import { postJson } from '@agents/service-kit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { countRows, doc } from '../testing/intake-fixtures.ts'
import { startTestVenue } from '../testing.ts'

let devnet: Devnet
let venue: Venue
beforeAll(async () => {
  devnet = await sharedDevnet()
  venue = await startTestVenue({ devnet })
}, 60_000)
afterAll(async () => {
  await venue?.close()
  await devnet?.stop()
})

const rows = (table: string) => countRows(venue, table)

describe('POST /api/intake/heart-file', () => {
  it('asks for doc_submit (1.00 USDC) on every rail with the legacy v1 body, and stores nothing', async () => {
    const before = await rows('heart_files')
    const answer = await postJson(`${venue.url}/api/intake/heart-file`, doc)
    expect(answer.status).toBe(402)
    expect(answer.json).toMatchObject({ x402Version: 1, error: 'payment required' })
    expect(answer.json.accepts[0]).toMatchObject({
      scheme: 'exact',
      network: 'eip155:8453',
      maxAmountRequired: '1000000',
      resource: '/api/intake/heart-file',
    })
    const required = decodeBase64Json(answer.headers.get(PAYMENT_REQUIRED_HEADER)!) as {
      accepts: Array<{ amount: string }>
    }
    expect(required.accepts[0]!.amount).toBe('1000000')
    expect(answer.headers.get('www-authenticate')).toMatch(/^Payment /)
    expect(await rows('heart_files')).toBe(before)
  })

  it('once paid: the owner keyed by the paying wallet, a new doc per paid submission', async () => {
    const pay = devnet.x402Fetch(devnet.accounts.payer2)
    const payee = await devnet.usdcBalance(devnet.accounts.payee)
    const send = () =>
      pay(`${venue.url}/api/intake/heart-file`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(doc),
      }).then(async (response) => ({ status: response.status, json: await response.json() }))
    const first = await send()
    expect(first.status).toBe(200)
    expect(first.json).toMatchObject({ tier: 'agent_represented' })
    expect(first.json.ownerCredential).toMatch(/^vo_\d+_/)
    const second = await send()
    expect(second.status).toBe(200)
    expect(second.json.ownerId).toBe(first.json.ownerId)
    expect(second.json.heartFileId).not.toBe(first.json.heartFileId)
    expect(second.json.ownerCredential).toBeUndefined()
    expect(await devnet.usdcBalance(devnet.accounts.payee)).toBe(payee + 2_000_000n)
    // Each paid submission is a fulfilled order with its revenue and a tenth to the reserve.
    const { rows: orders } = await venue.deps.database.client.query(
      `SELECT o.id, o.status, o.owner_id, r.amount_atomic::text AS amount, r.reserve_atomic::text AS reserve
         FROM orders o JOIN revenue r ON r.order_id = o.id
         JOIN heart_files h ON 'doc_submit:' || h.payment_reference = o.id
        WHERE h.id IN ($1, $2)`,
      [first.json.heartFileId, second.json.heartFileId],
    )
    expect(orders).toHaveLength(2)
    for (const order of orders)
      expect(order).toMatchObject({
        status: 'fulfilled',
        owner_id: first.json.ownerId,
        amount: '1000000',
        reserve: '100000',
      })

    // contactRef is sealed at rest: the plaintext is nowhere in the row.
    const { rows: stored } = await venue.deps.database.client.query(
      'SELECT contact_ref_sealed FROM heart_files WHERE id = $1',
      [first.json.heartFileId],
    )
    const sealed = (stored[0] as { contact_ref_sealed: string }).contact_ref_sealed
    expect(sealed).not.toContain('private-pointer')
    expect(venue.deps.sealer.open(sealed)).toBe(doc.contactRef)
  })

  it('MPP on Tempo pays for a doc too', async () => {
    const response = await devnet.mppFetch!(devnet.accounts.payer)(
      `${venue.url}/api/intake/heart-file`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(doc),
      },
    )
    expect(response.status).toBe(200)
    expect((await response.json()).tier).toBe('agent_represented')
  })
})
