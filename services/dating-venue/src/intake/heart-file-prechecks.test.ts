import { PAYMENT_REQUIRED_HEADER } from '@agents/payments'
import { postJson } from '@agents/service-kit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { doc, sampleHeart } from '../testing/intake-fixtures.ts'
import { startTestVenue } from '../testing.ts'

// The checks before any payment is asked: no payment rail is needed.
let venue: Venue
beforeAll(async () => {
  venue = await startTestVenue()
}, 60_000)
afterAll(async () => {
  await venue?.close()
})

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
})
