import { existsSync, mkdtempSync, readdirSync, rmSync, truncateSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { postJson, seededRandom } from '@agents/service-kit'
import { testBackends } from '@agents/service-kit/db'
import { afterAll, describe, expect, it } from 'vitest'
import { type FakeEmbeddings, startFakeEmbeddings } from '../fake-embeddings.ts'
import type { Venue } from '../start.ts'
import { createAgent, createOwner } from '../test-helpers.ts'
import {
  startTestVenue,
  TEST_ADMIN_TOKEN,
  TEST_DATABASE_URL,
  VENUE_TEST_DATABASE,
} from '../testing.ts'

// The kept index through HTTP: a venue whose beats pair over the index at any size
// (VENUE_MATCH_EXACT_UP_TO=0), personas admitted through the API, beats run by the operator.
// In the faults tier: its venues stop and start again on their files, one with its snapshot
// damaged, and five venues with their index processes were the slowest file of `npm test`
// (58 s in the suite). `match-index.test.ts` keeps the index's HTTP behaviour there: a beat
// not blocking requests, a takeover, an erasure reaching the holder.
const backends = testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE)
const DIM = 32
const FIRST = 31
const LATER = 9
const ADMITTING_AT_ONCE = 8

/** Unit vectors around four directions, seeded: no two similarities tie. */
const vectors = (() => {
  const random = seededRandom(20_261_127)
  return Array.from({ length: FIRST + LATER }, (_, n) => {
    const vector = Array.from({ length: DIM }, () => random() - 0.5)
    vector[n % 4] = (vector[n % 4] ?? 0) + 2
    const norm = Math.hypot(...vector)
    return vector.map((value) => value / norm)
  })
})()
const heartOf = (n: number) => `kept index heart number ${n}, who likes long walks`

type Scenario = {
  venue: Venue
  fake: FakeEmbeddings
  dir: string
  /** Persona id by scenario index. */
  ids: number[]
  owners: Array<{ ownerId: number }>
  close: () => Promise<void>
}

const beat = async (venue: Venue, cycleId: string) => {
  const answer = await postJson(
    `${venue.url}/admin/actions/beat`,
    { cycleId },
    { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
  )
  expect(answer.status, answer.text).toBe(200)
  return answer.json as {
    created: number
    semantic: boolean
    pool: { read: number; left: number; waiting: number }
  }
}

/** The cycle's couples as scenario indexes (ids differ between venues: admission is concurrent). */
const couplesOf = async (state: Scenario, cycleId: string) => {
  const indexOf = new Map(state.ids.map((id, n) => [id, n]))
  const { rows } = await state.venue.deps.database.client.query(
    'SELECT persona_a, persona_b FROM couples WHERE cycle_id = $1',
    [cycleId],
  )
  return rows
    .map((row) => {
      const { persona_a: a, persona_b: b } = row as { persona_a: number; persona_b: number }
      const pair = [indexOf.get(a)!, indexOf.get(b)!]
      return pair.sort((x, y) => x - y)
    })
    .sort((x, y) => x[0]! - y[0]!)
}

describe.each(backends)('the kept index on $name', ({ open }) => {
  const cleanups: Array<() => Promise<void>> = []
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  // On PGlite a venue that restarts keeps its database in the scenario's directory, so the
  // restart finds it again; the others' start in memory, from a migrated copy (a fresh data
  // directory is initialised and migrated: four at once were most of this file's time).
  const startVenue = (
    url: string | undefined,
    fake: FakeEmbeddings,
    dir: string,
    restarts: boolean,
  ) =>
    startTestVenue({
      databaseUrl: url,
      embeddings: fake,
      env: {
        VENUE_MATCH_EXACT_UP_TO: '0',
        VENUE_MATCH_POOL_DIR: join(dir, 'pool'),
        ...(url || !restarts ? {} : { DATA_DIR: join(dir, 'db') }),
      },
    })

  /** A venue, personas 0..count-1 each with an owner, admitted through the API. */
  const scenario = async ({
    restarts = false,
  } = {}): Promise<Scenario & { url: string | undefined }> => {
    const database = await open()
    const fake = await startFakeEmbeddings({ dimension: DIM })
    const dir = mkdtempSync(join(tmpdir(), 'match-pool-'))
    const venue = await startVenue(database.url, fake, dir, restarts)
    for (let n = 0; n < vectors.length; n++) fake.pin(heartOf(n), vectors[n]!)
    const state: Scenario & { url: string | undefined } = {
      venue,
      fake,
      dir,
      ids: [],
      owners: [],
      url: database.url,
      close: async () => {
        await state.venue.close()
        await fake.close()
        await database.drop()
        rmSync(dir, { recursive: true, force: true })
      },
    }
    cleanups.push(() => state.close())
    return state
  }

  /**
   * Admits personas from..to-1 through the API, several at once (one at a time, four venues'
   * 160 admissions were most of this file's time). Ids then follow no order: compare pairs by
   * scenario index (`couplesOf`).
   */
  const admit = async (state: Scenario, from: number, to: number) => {
    const one = async (n: number) => {
      const owner = await createOwner(state.venue)
      const agent = await createAgent(state.venue, {
        ownerCredential: owner.credential,
        ownerId: owner.ownerId,
      })
      const answer = await postJson(
        `${state.venue.url}/api/personas`,
        {
          handle: `kept-${n}`,
          model: 'm',
          persona_age: '18+',
          heart: heartOf(n),
          ownerId: owner.ownerId,
        },
        { authorization: `Bearer ${agent.credential}` },
      )
      expect(answer.status, answer.text).toBe(200)
      expect(answer.json.admitted).toBe(true)
      state.ids[n] = answer.json.personaId as number
      state.owners[n] = owner
    }
    const queue = Array.from({ length: to - from }, (_, i) => from + i)
    await Promise.all(
      Array.from({ length: ADMITTING_AT_ONCE }, async () => {
        for (let n = queue.shift(); n !== undefined; n = queue.shift()) await one(n)
      }),
    )
  }

  /** The same history on a fresh venue: 31 personas, a beat, 9 more. */
  const history = async (options?: { restarts: boolean }) => {
    const state = await scenario(options)
    await admit(state, 0, FIRST)
    const first = await beat(state.venue, 'kept-1')
    expect(first.semantic).toBe(true)
    expect(first.created).toBe(15)
    // The index starts with the first beat: the vectors came from the database (or from the
    // notice of a vector stored as the beat began); the odd one out waits in the index.
    expect(first.pool).toMatchObject({ left: 0, waiting: 1 })
    expect(first.pool.read).toBeLessThanOrEqual(FIRST)
    await admit(state, FIRST, FIRST + LATER)
    return state
  }

  it('keeps the index between beats, reads only newcomers, and a restart, a damaged snapshot or a rebuild pair alike', async () => {
    const [kept, restarted, damaged, rebuilt] = await Promise.all([
      history(),
      history({ restarts: true }),
      history({ restarts: true }),
      history(),
    ])
    const snapshot = readdirSync(join(restarted.dir, 'pool')).sort()
    expect(snapshot).toEqual([
      'match-pool.json',
      'match-pool.lists',
      'match-pool.usearch',
      'match-pool.vectors',
    ])

    // Restart on the snapshot: the waiting persona comes from disk, not the database (read
    // below: only the newcomers). The index process starts with the first beat.
    await restarted.venue.close()
    restarted.venue = await startVenue(restarted.url, restarted.fake, restarted.dir, true)
    expect(await restarted.venue.deps.matchPool.status()).toBeUndefined()

    // A snapshot that cannot be trusted is dropped: the index refills from the stored vectors.
    await damaged.venue.close()
    truncateSync(join(damaged.dir, 'pool', 'match-pool.vectors'), 100)
    damaged.venue = await startVenue(damaged.url, damaged.fake, damaged.dir, true)

    // A rebuild in place: forgotten, refilled from the database at the next beat.
    await rebuilt.venue.deps.matchPool.reset()

    const second = await Promise.all(
      [kept, restarted, damaged, rebuilt].map((state) => beat(state.venue, 'kept-2')),
    )
    // The kept index took the newcomers in as their vectors were stored (notices): its beat
    // reads none of them. The restarted venue holds no index until its beat, then starts from
    // the snapshot and reads at most the newcomers (one stored as the beat began comes by its
    // notice); the other two may read the waiting one too.
    expect(second[0]!.pool.read).toBe(0)
    expect(second[1]!.pool.read).toBeLessThanOrEqual(LATER)
    for (const other of second.slice(2)) expect(other.pool.read).toBeLessThanOrEqual(LATER + 1)
    const pairs = await Promise.all(
      [kept, restarted, damaged, rebuilt].map((state) => couplesOf(state, 'kept-2')),
    )
    expect(pairs[0]!.length).toBe(5)
    for (const other of pairs.slice(1)) expect(other).toEqual(pairs[0])
    expect(second[0]!.pool.waiting).toBe(0)
  }, 180_000)

  it('erasing an owner takes its persona out of the index and its snapshot off disk at once', async () => {
    const state = await scenario()
    await admit(state, 0, FIRST)
    await beat(state.venue, 'erase-1')
    const pool = state.venue.deps.matchPool
    const held = await Promise.all(state.ids.map((id) => pool.has(id)))
    const waiting = held.indexOf(true)
    expect(waiting).toBeGreaterThanOrEqual(0)
    expect(existsSync(join(state.dir, 'pool', 'match-pool.vectors'))).toBe(true)

    const erased = await fetch(`${state.venue.url}/api/owners/${state.owners[waiting]!.ownerId}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    })
    expect(erased.status).toBe(200)
    // Out of the index process (asked after the erasure, answered after it) and off disk.
    expect(await pool.has(state.ids[waiting]!)).toBe(false)
    expect((await pool.status())?.size).toBe(0)
    expect(readdirSync(join(state.dir, 'pool'))).toEqual([])

    // The next beat finds nobody to take out for it.
    await admit(state, FIRST, FIRST + 2)
    const next = await beat(state.venue, 'erase-2')
    expect(next.pool).toMatchObject({ left: 0, waiting: 0 })
    expect(next.created).toBe(1)
  }, 60_000)
})
