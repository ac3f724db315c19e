import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { postJson, seededRandom } from '@agents/service-kit'
import { createTestDatabase, testBackends } from '@agents/service-kit/db'
import { afterAll, describe, expect, it } from 'vitest'
import { personas as personaTable, personaVectors } from '../db/schema.ts'
import { vectorToBytes } from '../embeddings/index.ts'
import { type FakeEmbeddings, startFakeEmbeddings } from '../fake-embeddings.ts'
import type { Venue } from '../start.ts'
import { createAgent, createOwner } from '../test-helpers.ts'
import {
  startTestVenue,
  TEST_ADMIN_TOKEN,
  TEST_DATABASE_URL,
  VENUE_TEST_DATABASE,
} from '../testing.ts'
import { runBeat } from './beat.ts'
import { followOnce, loadWaitingIds } from './index-follow.ts'
import { pairExact } from './pairing.ts'

// The kept index in its own process, through HTTP: the replica keeps answering while it pairs;
// on PostgreSQL, one replica holds the index, another takes it over, and an erasure served by
// a replica without the index reaches the one that holds it.
const backends = testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE)
const DIM = 32
const auth = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }

/** Unit vectors around 16 directions, seeded: no two similarities tie. */
const vectorsOf = (count: number, seed: number) => {
  const random = seededRandom(seed)
  return Array.from({ length: count }, (_, n) => {
    const vector = Float32Array.from({ length: DIM }, () => random() - 0.5)
    vector[n % 16] = vector[n % 16]! + 1.5
    const norm = Math.hypot(...vector)
    return vector.map((value) => value / norm)
  })
}

const beat = async (venue: Venue, cycleId: string) => {
  const answer = await postJson(`${venue.url}/admin/actions/beat`, { cycleId }, auth)
  expect(answer.status, answer.text).toBe(200)
  return answer.json as {
    created: number
    pool: { read: number; left: number; waiting: number }
    phasesMs: Record<string, number>
    pairing?: { conflicts: number; writtenWhilePairing: number }
  }
}

const couplesOf = async (venue: Venue, cycleId: string) =>
  (
    await venue.deps.database.client.query(
      'SELECT persona_a, persona_b FROM couples WHERE cycle_id = $1 ORDER BY persona_a',
      [cycleId],
    )
  ).rows.map((row) => {
    const { persona_a: a, persona_b: b } = row as { persona_a: number; persona_b: number }
    return [a, b]
  })

/** Admitted personas and their vectors written straight to the database (as the beat bench does). */
const seed = async (venue: Venue, vectors: Float32Array[]) => {
  const { db } = venue.deps.database
  for (let start = 0; start < vectors.length; start += 1000) {
    const chunk = vectors.slice(start, start + 1000)
    const rows = await db
      .insert(personaTable)
      .values(
        chunk.map((_, i) => ({
          handle: `busy-${start + i}`,
          model: 'm',
          heart: { about: `busy heart ${start + i}` },
          status: 'admitted' as const,
          admittedAt: new Date(),
        })),
      )
      .returning({ id: personaTable.id })
    await db.insert(personaVectors).values(
      rows.map((row, i) => ({
        personaId: row.id,
        modelId: venue.deps.embedder.modelId,
        dimension: DIM,
        vector: vectorToBytes(chunk[i]!),
      })),
    )
  }
}

/** A persona admitted through the API with a pinned vector, and its owner. */
const admit = async (venue: Venue, fake: FakeEmbeddings, n: number, vector: Float32Array) => {
  const heart = `index heart number ${n}, fond of quiet mornings`
  fake.pin(heart, Array.from(vector))
  const owner = await createOwner(venue)
  const agent = await createAgent(venue, {
    ownerCredential: owner.credential,
    ownerId: owner.ownerId,
  })
  const answer = await postJson(
    `${venue.url}/api/personas`,
    { handle: `index-${n}`, model: 'm', persona_age: '18+', heart, ownerId: owner.ownerId },
    { authorization: `Bearer ${agent.credential}` },
  )
  expect(answer.status, answer.text).toBe(200)
  return { id: answer.json.personaId as number, ownerId: owner.ownerId }
}

const until = async (check: () => Promise<boolean>, timeoutMs = 5000) => {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) return false
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return true
}

describe.each(backends)('the index process on $name', ({ open }) => {
  const cleanups: Array<() => Promise<void>> = []
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  it('answers /health and a read route while a beat builds the graph and pairs', async () => {
    const database = await open()
    const fake = await startFakeEmbeddings({ dimension: DIM })
    const venue = await startTestVenue({
      databaseUrl: database.url,
      embeddings: fake,
      env: { VENUE_MATCH_EXACT_UP_TO: '0' },
    })
    cleanups.push(async () => {
      await venue.close()
      await fake.close()
      await database.drop()
    })
    await seed(venue, vectorsOf(BUSY, 7))
    const started = performance.now()
    const running = beat(venue, 'busy-1')
    let done = false
    running.finally(() => {
      done = true
    })
    const asked: Array<{ at: number; took: number; status: number }> = []
    while (!done) {
      for (const path of ['/health', '/api/floor']) {
        const at = performance.now() - started
        const answer = await fetch(`${venue.url}${path}`)
        await answer.arrayBuffer()
        asked.push({ at, took: performance.now() - started - at, status: answer.status })
      }
    }
    const result = await running
    expect(result.created).toBe(BUSY / 2)
    expect(result.pairing?.conflicts).toBe(0)
    // On PostgreSQL couples were written while the rest paired; PGlite runs in the venue's
    // own thread, so there they wait for the pairing. Every couple once, one beat event.
    if (database.url) {
      expect(result.pairing?.writtenWhilePairing).toBeGreaterThan(0)
      expect(result.pairing?.writtenWhilePairing).toBeLessThanOrEqual(BUSY / 2)
    } else expect(result.pairing?.writtenWhilePairing).toBe(0)
    const written = await venue.deps.database.client.query(
      `SELECT (SELECT count(DISTINCT p)::int FROM couples, LATERAL (VALUES (persona_a), (persona_b)) AS v(p)
                 WHERE cycle_id = 'busy-1') AS personas,
              (SELECT count(*)::int FROM events WHERE kind = 'beat' AND detail->>'cycleId' = 'busy-1'
                 AND (detail->>'couples')::int = $1) AS events`,
      [BUSY / 2],
    )
    expect(written.rows[0]).toEqual({ personas: BUSY, events: 1 })
    expect(asked.every((request) => request.status === 200)).toBe(true)
    // While the index process built the graph and paired, this process answered: requests
    // sent in that window were answered, none waited as long as the pairing took. (The
    // database's own statements are another matter on PGlite, which runs in this process.)
    const { admit, embed, load, pair } = result.phasesMs as Record<string, number>
    const from = admit! + embed! + load!
    const during = asked.filter((request) => request.at >= from && request.at < from + pair!)
    console.info(
      `beat phases ${JSON.stringify(result.phasesMs)}; ${during.length} requests during the pairing, slowest ${Math.round(Math.max(...during.map((r) => r.took)))} ms`,
    )
    expect(during.length).toBeGreaterThan(3)
    expect(Math.max(...during.map((request) => request.took))).toBeLessThan(
      Math.max(250, pair! / 4),
    )
  }, 120_000)

  it('the periodic sync applies its read of the database only if no turn of the index ended since', async () => {
    const database = await open()
    const fake = await startFakeEmbeddings({ dimension: DIM })
    const venue = await startTestVenue({ databaseUrl: database.url, embeddings: fake })
    cleanups.push(async () => {
      await venue.close()
      await fake.close()
      await database.drop()
    })
    await seed(venue, vectorsOf(6, 3))
    expect(await venue.deps.matchPool.hold()).toBe(true)
    // A turn ends while the read is under way (a beat pairing, a notice's newcomers): the read
    // may be stale, and applying it could put the paired back. It is dropped.
    const staleRead = async (deps: typeof venue.deps) => {
      const ids = await loadWaitingIds(deps)
      await deps.matchPool.exclusive(async () => {})
      return ids
    }
    expect(await followOnce(venue.deps, { read: staleRead })).toBe(false)
    expect((await venue.deps.matchPool.status())?.size ?? 0).toBe(0)
    expect(await followOnce(venue.deps)).toBe(true)
    expect((await venue.deps.matchPool.status())?.size).toBe(6)
  })
})

// Personas in the responsiveness test: enough that building and pairing take a while.
const BUSY = 2500

describe.skipIf(!TEST_DATABASE_URL)('one index for two replicas on PostgreSQL', () => {
  const FIRST = 21
  const LATER = 9
  const vectors = vectorsOf(FIRST + LATER + 2, 11)

  const pair = async () => {
    const database = await createTestDatabase(TEST_DATABASE_URL!, VENUE_TEST_DATABASE)
    const fake = await startFakeEmbeddings({ dimension: DIM })
    const dirs = [0, 1].map(() => mkdtempSync(join(tmpdir(), 'match-index-')))
    const start = (dir: string) =>
      startTestVenue({
        databaseUrl: database.url,
        embeddings: fake,
        env: { VENUE_MATCH_EXACT_UP_TO: '0', VENUE_MATCH_POOL_DIR: dir },
      })
    const replicas = [await start(dirs[0]!), await start(dirs[1]!)] as [Venue, Venue]
    return {
      replicas,
      fake,
      dirs,
      close: async () => {
        for (const replica of replicas) await replica.close()
        await fake.close()
        await database.drop()
        for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
      },
    }
  }

  it('the beat holder keeps the index, the other none; a replica taking over pairs as the first would have', async () => {
    const { replicas, fake, close } = await pair()
    try {
      const [a, b] = replicas
      const people: Array<{ id: number }> = []
      for (let n = 0; n < FIRST; n++) people.push(await admit(a, fake, n, vectors[n]!))
      const first = await beat(a, 'takeover-1')
      expect(first.created).toBe(10)
      expect(a.deps.matchPool.holding).toBe(true)
      expect((await a.deps.matchPool.status())?.size).toBe(1)
      // The other replica keeps no index, and its scheduled tick leaves the beat to the holder.
      expect(b.deps.matchPool.holding).toBe(false)
      expect(await b.deps.matchPool.status()).toBeUndefined()
      expect(await runBeat(b.deps, { scheduled: true })).toEqual({ ran: false })

      for (let n = FIRST; n < FIRST + LATER; n++) people.push(await admit(b, fake, n, vectors[n]!))
      // What the first would have paired: the one left waiting and the newcomers, exactly.
      const paired = new Set((await couplesOf(a, 'takeover-1')).flat())
      const waiting = people
        .map((person, n) => ({ id: person.id, vector: vectors[n]! }))
        .filter((person) => !paired.has(person.id))
      expect(waiting).toHaveLength(LATER + 1)
      const expected = pairExact(waiting)

      await a.close()
      const second = await beat(b, 'takeover-2')
      expect(b.deps.matchPool.holding).toBe(true)
      // Its own snapshot folder is empty: rebuilt from the stored vectors (by the beat, or by
      // the sync that follows the venue if it ran first).
      expect(second.pool.read).toBeLessThanOrEqual(LATER + 1)
      expect(second.pool.waiting).toBe(0)
      expect(await couplesOf(b, 'takeover-2')).toEqual(expected)
    } finally {
      await close()
    }
  }, 120_000)

  it('an erasure served by a replica without the index takes the vector out of the holder before its next beat', async () => {
    const { replicas, fake, dirs, close } = await pair()
    try {
      const [a, b] = replicas
      const people: Array<{ id: number; ownerId: number }> = []
      for (let n = 0; n < FIRST; n++) people.push(await admit(a, fake, n, vectors[n]!))
      await beat(a, 'erase-1')
      const held = await Promise.all(people.map((person) => a.deps.matchPool.has(person.id)))
      const waiting = people[held.indexOf(true)]!
      // The snapshot: manifest, vectors, graph and kept lists.
      expect(readdirSync(dirs[0]!)).toHaveLength(4)

      const erased = await fetch(`${b.url}/api/owners/${waiting.ownerId}`, {
        method: 'DELETE',
        headers: auth,
      })
      expect(erased.status).toBe(200)
      expect(await until(async () => !(await a.deps.matchPool.has(waiting.id)))).toBe(true)
      expect((await a.deps.matchPool.status())?.size).toBe(0)
      expect(readdirSync(dirs[0]!)).toEqual([])

      // Newly embedded personas reach the holder's index before its beat, too.
      for (let n = FIRST; n < FIRST + 2; n++) people.push(await admit(b, fake, n, vectors[n]!))
      const arrived = people.slice(FIRST)
      expect(
        await until(async () =>
          (await Promise.all(arrived.map((p) => a.deps.matchPool.has(p.id)))).every(Boolean),
        ),
      ).toBe(true)
      // So the beat reads nothing and takes nobody out: the notices did both.
      const next = await beat(a, 'erase-2')
      expect(next.pool).toEqual({ read: 0, left: 0, waiting: 0 })
      expect(next.created).toBe(1)
    } finally {
      await close()
    }
  }, 120_000)
})
