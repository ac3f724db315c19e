import { postJson } from '@agents/service-kit'
import { testBackends } from '@agents/service-kit/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import {
  startTestVenue,
  TEST_ADMIN_TOKEN,
  TEST_DATABASE_URL,
  VENUE_TEST_DATABASE,
} from '../testing.ts'

const operator = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }

// Names every plain object answers to, and lookalikes of the real keys.
const NOT_SETTINGS = [
  'constructor',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '__proto__',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  '__lookupGetter__',
  'prototype',
  'colour',
  'CAP',
  'cap ',
  'venue-open',
  '',
]

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'operator settings on $name',
  ({ open }) => {
    let venue: Venue
    let drop: () => Promise<void>
    beforeAll(async () => {
      const database = await open()
      drop = database.drop
      venue = await startTestVenue({ databaseUrl: database.url })
    })
    afterAll(async () => {
      await venue?.close()
      await drop?.()
    })
    const set = (body: unknown) => postJson(`${venue.url}/admin/actions/settings`, body, operator)
    const stored = async () =>
      (await venue.deps.database.client.query('SELECT key, value FROM settings ORDER BY key', []))
        .rows

    it.each(NOT_SETTINGS)('answers 400 key not allowed to %j and stores nothing', async (key) => {
      const before = await stored()
      for (const value of ['1', 1, true]) {
        const answer = await set({ key, value })
        expect(answer.status).toBe(400)
        expect(answer.json).toMatchObject({
          error: 'key not allowed',
          allowed: ['cap', 'unowned_share_pct', 'venue_open'],
        })
      }
      expect(await stored()).toEqual(before)
    })

    it('answers 400 key not allowed to a key that is not a string, or a body that is not an object', async () => {
      const before = await stored()
      for (const body of [
        { key: 1, value: 1 },
        { key: null, value: 1 },
        { key: ['cap'], value: 1 },
        { key: { toString: 'cap' }, value: 1 },
        { value: 1 },
        '{"__proto__": {"key": "cap"}, "value": 3}',
        '{"constructor": {"key": "cap"}, "value": 3}',
        '[]',
        'null',
        '"cap"',
        '7',
      ]) {
        const answer = await set(body)
        expect(answer.status, JSON.stringify(body)).toBe(400)
        expect(answer.json.error).toBe('key not allowed')
      }
      expect(await stored()).toEqual(before)
    })

    it('accepts cap and venue_open, normalised, and refuses values they cannot hold', async () => {
      expect(await set({ key: 'cap', value: 7 })).toMatchObject({
        status: 200,
        json: { ok: true, key: 'cap', value: '7' },
      })
      expect(await venue.deps.settings.cap()).toBe(7)
      expect(await set({ key: 'venue_open', value: false })).toMatchObject({
        status: 200,
        json: { ok: true, key: 'venue_open', value: 'false' },
      })
      expect(await venue.deps.settings.venueOpen()).toBe(false)
      expect(await set({ key: 'venue_open', value: '1' })).toMatchObject({
        status: 200,
        json: { value: 'true' },
      })
      for (const value of [undefined, null, ''])
        expect((await set({ key: 'cap', value })).json.error).toBe('value required')
      for (const value of [[5], { n: 5 }, -1, 1.5, 'lots', true])
        expect(await set({ key: 'cap', value })).toMatchObject({
          status: 400,
          json: { error: 'invalid value for cap' },
        })
      expect(await set({ key: 'venue_open', value: 'yes' })).toMatchObject({ status: 400 })
      expect(await stored()).toEqual([
        { key: 'cap', value: '7' },
        { key: 'venue_open', value: 'true' },
      ])
    })
  },
)
