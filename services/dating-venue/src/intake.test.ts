import { type Devnet, startDevnet } from '@agents/devnet'
import { decodeBase64Json, PAYMENT_REQUIRED_HEADER } from '@agents/payments'
import { postJson } from '@agents/service-kit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Venue } from './start.ts'
import { startTestVenue } from './testing.ts'

let devnet: Devnet
let venue: Venue
beforeAll(async () => {
  devnet = await startDevnet()
  venue = await startTestVenue({ devnet })
}, 60_000)
afterAll(async () => {
  await venue?.close()
  await devnet?.stop()
})

export const sampleHeart = {
  about: 'I restore old sailboats and read too much history.',
  seeking: 'Someone curious who likes slow Sunday mornings.',
  relationship_intent: 'long-term',
  values: ['honesty', 'kindness'],
  interests: ['sailing', 'history'],
  vibe: 'calm',
  logistics: 'Bay Area, open to remote at first',
}
const doc = { ageAttested: true, contactRef: 'signal: private-pointer-42', heart: sampleHeart }

const rows = async (table: string) =>
  Number(
    (
      (await venue.deps.database.client.query(`SELECT count(*)::int AS n FROM ${table}`))
        .rows[0] as {
        n: number
      }
    ).n,
  )

describe('POST /api/intake/heart-file', () => {
  it('refuses ageAttested other than true before asking for payment', async () => {
    for (const ageAttested of [false, undefined]) {
      const answer = await postJson(`${venue.url}/api/intake/heart-file`, { ...doc, ageAttested })
      expect(answer.status).toBe(422)
      expect(answer.json.error).toMatch(/adult-only venue/)
      expect(answer.headers.get(PAYMENT_REQUIRED_HEADER)).toBeNull()
    }
  })

  it('refuses a heart carrying personal data before payment, naming what, not the value', async () => {
    const answer = await postJson(`${venue.url}/api/intake/heart-file`, {
      ...doc,
      heart: { ...sampleHeart, about: 'Text me at 415 555 0199 or jane.doe@example.com' },
    })
    expect(answer.status).toBe(400)
    expect(answer.json.error).toBe('invalid heart-file')
    const text = JSON.stringify(answer.json)
    expect(text).toMatch(/phone/)
    expect(text).toMatch(/email/)
    expect(text).not.toContain('0199')
    expect(text).not.toContain('jane.doe')
    expect(answer.headers.get(PAYMENT_REQUIRED_HEADER)).toBeNull()
  })

  it('validates the doc exactly: enums, lengths, prefs groups', async () => {
    const bad = [
      { ...doc, homeMarket: 'paris' },
      { ...doc, displayName: 'x'.repeat(121) },
      { ...doc, availableFor: 'y'.repeat(121) },
      { ...doc, contactRef: 'z'.repeat(201) },
      { ...doc, researchOptin: 'some' },
      { ...doc, heart: { ...sampleHeart, prefs: { self: { age: 17 } } } },
      { ...doc, heart: { ...sampleHeart, prefs: { seek: { ageMin: 40, ageMax: 30 } } } },
      { ...doc, heart: { ...sampleHeart, prefs: { self: { kids: 'maybe' } } } },
      { ...doc, heart: 'just text' },
      { ...doc, extra: 1 },
      { ageAttested: true },
    ]
    for (const body of bad) {
      const answer = await postJson(`${venue.url}/api/intake/heart-file`, body)
      expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(400)
      expect(answer.json.error).toBe('invalid heart-file')
      expect(Array.isArray(answer.json.issues)).toBe(true)
    }
  })

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
