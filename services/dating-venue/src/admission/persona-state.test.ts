import { testBackends } from '@agents/service-kit/db'
import { eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { personas } from '../db/schema.ts'
import type { Venue } from '../start.ts'
import { HEART, uniqueHandle } from '../test-helpers.ts'
import { useTestVenue } from '../testing/venue-fixtures.ts'
import { TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'
import {
  admitPersona,
  HELD_FOR_REVIEW,
  holdPersona,
  insertPersona,
  type PersonaStatus,
  settleReview,
  withdrawPersona,
} from './persona-state.ts'
import { takeSeat } from './seats.ts'

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'persona states on $name',
  ({ open }) => {
    let venue: Venue
    useTestVenue(open, (started) => {
      venue = started
    })

    const values = () => ({ handle: uniqueHandle('state'), model: 'm', heart: HEART })
    const statusOf = async (personaId: number) => {
      const [row] = await venue.deps.database.db
        .select({ status: personas.status, reason: personas.reason })
        .from(personas)
        .where(eq(personas.id, personaId))
      return row as { status: PersonaStatus; reason: string | null }
    }
    const seats = async () =>
      (await venue.deps.database.client.query('SELECT used, unowned_used FROM capacity'))
        .rows[0] as {
        used: number
        unowned_used: number
      }
    const seatsUsed = async () => (await seats()).used
    const admitted = async () => {
      const { db } = venue.deps.database
      return db.transaction(async (tx) => {
        const personaId = await insertPersona(tx, values(), { status: 'pending' })
        expect(await takeSeat(tx, venue.deps.settings, 'unowned')).toBe(true)
        await admitPersona(tx, personaId)
        return personaId
      })
    }

    it('enters pending or rejected with its reason; admits with a seat', async () => {
      const { db } = venue.deps.database
      const rejected = await insertPersona(db, values(), { status: 'rejected', reason: 'unsafe' })
      expect(await statusOf(rejected)).toEqual({ status: 'rejected', reason: 'unsafe' })
      const before = await seatsUsed()
      const personaId = await admitted()
      expect((await statusOf(personaId)).status).toBe('admitted')
      expect(await seatsUsed()).toBe(before + 1)
    })

    it('holds an admitted persona (its seat back) or a pending one, nothing else', async () => {
      const { db } = venue.deps.database
      const personaId = await admitted()
      const before = await seatsUsed()
      const unowned = (await seats()).unowned_used
      expect(await holdPersona(db, personaId, 'reported')).toBe('admitted')
      expect(await statusOf(personaId)).toEqual({ status: 'held', reason: 'reported' })
      // Its seat was an unowned one (no owner): both counters give it back.
      expect(await seats()).toEqual({ used: before - 1, unowned_used: unowned - 1 })
      const pending = await insertPersona(db, values(), { status: 'pending' })
      expect(await holdPersona(db, pending, 'reported')).toBe('pending')
      expect(await seatsUsed()).toBe(before - 1)
      expect(await holdPersona(db, personaId, 'reported')).toBeUndefined()
    })

    it('withdraws from any status with a reason; an admitted persona gives its seat back', async () => {
      const { db } = venue.deps.database
      const personaId = await admitted()
      const before = await seatsUsed()
      const withdrawn = await db.transaction((tx) =>
        withdrawPersona(tx, personaId, 'identity check: under 18'),
      )
      expect(withdrawn).toBe('admitted')
      expect(await statusOf(personaId)).toEqual({
        status: 'withdrawn',
        reason: 'identity check: under 18',
      })
      expect(await seatsUsed()).toBe(before - 1)
      const pending = await insertPersona(db, values(), { status: 'pending' })
      expect(await db.transaction((tx) => withdrawPersona(tx, pending, 'gone'))).toBe('pending')
      expect(await seatsUsed()).toBe(before - 1)
      expect(await db.transaction((tx) => withdrawPersona(tx, 2_000_000_000, 'gone'))).toBe(
        undefined,
      )
    })

    it('a persona held for review leaves it once, for pending or rejected; one held on reports never does', async () => {
      const { db } = venue.deps.database
      const before = await seatsUsed()
      const approved = await insertPersona(db, values(), {
        status: 'held',
        reason: HELD_FOR_REVIEW,
      })
      expect(await statusOf(approved)).toEqual({ status: 'held', reason: 'held for review' })
      expect(await seatsUsed()).toBe(before)
      // Held for review is not pending: the admission of pending personas never seats it.
      expect(await holdPersona(db, approved, 'reported')).toBeUndefined()
      expect(await settleReview(db, approved, { status: 'pending' })).toBe(true)
      expect(await statusOf(approved)).toEqual({ status: 'pending', reason: null })
      expect(await settleReview(db, approved, { status: 'rejected', reason: 'late' })).toBe(false)
      const rejected = await insertPersona(db, values(), {
        status: 'held',
        reason: HELD_FOR_REVIEW,
      })
      expect(
        await settleReview(db, rejected, { status: 'rejected', reason: 'reads as an ad' }),
      ).toBe(true)
      expect(await statusOf(rejected)).toEqual({ status: 'rejected', reason: 'reads as an ad' })
      const reported = await admitted()
      await holdPersona(db, reported, 'reported')
      expect(await settleReview(db, reported, { status: 'pending' })).toBe(false)
      expect(await statusOf(reported)).toEqual({ status: 'held', reason: 'reported' })
    })
  },
)
