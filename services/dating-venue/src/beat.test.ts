import { createHash } from 'node:crypto'
import { createServer } from 'node:http'
import { postJson } from '@agents/service-kit'
import { createTestDatabase, testBackends } from '@agents/service-kit/db'
import { createRemoteJWKSet, jwtVerify } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BEAT_LOCK, beatOnce } from './beat/beat.ts'
import { type FakeEmbeddings, startFakeEmbeddings } from './fake-embeddings.ts'
import type { Venue } from './start.ts'
import { createAgent, uniqueHandle } from './test-helpers.ts'
import {
  startTestVenue,
  TEST_ADMIN_TOKEN,
  TEST_DATABASE_URL,
  VENUE_TEST_DATABASE,
} from './testing.ts'

const server = TEST_DATABASE_URL
const backends = testBackends(server, VENUE_TEST_DATABASE)

const DIM = 32
/** A unit vector mostly along `axis`, with a little of `other`. */
const unit = (weights: Record<number, number>) => {
  const vector = Array.from({ length: DIM }, (_, i) => weights[i] ?? 0)
  const norm = Math.hypot(...vector)
  return vector.map((value) => value / norm)
}

describe.each(backends)('matchmaking on $name', ({ open }) => {
  let venue: Venue
  let fake: FakeEmbeddings
  let drop: () => Promise<void>
  beforeAll(async () => {
    const database = await open()
    drop = database.drop
    fake = await startFakeEmbeddings({ dimension: DIM })
    venue = await startTestVenue({ databaseUrl: database.url, embeddings: fake })
  })
  afterAll(async () => {
    await venue?.close()
    await fake?.close()
    await drop?.()
  })

  const beat = (cycleId?: string) =>
    postJson(`${venue.url}/admin/actions/beat`, cycleId ? { cycleId } : {}, {
      authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
    })
  const sql = (text: string, params: unknown[] = []) =>
    venue.deps.database.client.query(text, params)

  /** An admitted persona whose heart text embeds to `vector` (pinned in the fake endpoint). */
  const persona = async (
    text: string,
    vector: number[] | undefined,
    prefs?: unknown,
    callbackUrl?: string,
  ) => {
    const heart = prefs ? { about: text, prefs } : text
    if (vector) fake.pin(prefs ? `About: ${text}` : text, vector)
    const agent = await createAgent(venue, {}, callbackUrl)
    const answer = await postJson(
      `${venue.url}/api/personas`,
      { handle: uniqueHandle('m'), model: 'm', persona_age: '18+', heart },
      { authorization: `Bearer ${agent.credential}` },
    )
    expect(answer.status).toBe(200)
    return { id: answer.json.personaId as number, agent }
  }
  /** Ends every courtship so each test starts from free personas. */
  const clearCourtships = async () => {
    await sql(`UPDATE couples SET state = 'withdrawn' WHERE state = 'courting'`)
    await sql(`DELETE FROM courtship_seats`)
    await sql(`UPDATE personas SET status = 'withdrawn' WHERE status = 'admitted'`)
    await sql(`UPDATE capacity SET used = 0`)
  }
  const couplesOf = async (cycleId: string) =>
    (
      await sql(`SELECT persona_a, persona_b FROM couples WHERE cycle_id = $1 ORDER BY persona_a`, [
        cycleId,
      ])
    ).rows.map((row) => {
      const { persona_a, persona_b } = row as { persona_a: number; persona_b: number }
      return [persona_a, persona_b]
    })

  it('forms only mutual pairs: where one-sided best choices differ, the mutual pair wins', async () => {
    await clearCourtships()
    // A's best is B, but B's best is C and C's best is B: B-C pair; A then pairs with D.
    const a = await persona('Alpha heart', unit({ 0: 1, 1: 0.9 }))
    const b = await persona('Bravo heart', unit({ 1: 1, 0: 0.3, 2: 0.8 }))
    const c = await persona('Charlie heart', unit({ 2: 1, 1: 1 }))
    const d = await persona('Delta heart', unit({ 0: 1, 3: 1 }))
    const answer = await beat('mutual-1')
    expect(answer.status).toBe(200)
    expect(answer.json).toMatchObject({ cycleId: 'mutual-1', pairs: 2, created: 2, semantic: true })
    expect(await couplesOf('mutual-1')).toEqual([
      [a.id, d.id],
      [b.id, c.id],
    ])
    // The same cycle again forms nothing twice.
    expect((await beat('mutual-1')).json).toMatchObject({ created: 0 })
  })

  it('applies the hard filters mutually; missing data never excludes', async () => {
    await clearCourtships()
    const woman = { self: { gender: 'woman', age: 30 }, seek: { genders: ['man'] } }
    const man = { self: { gender: 'man', age: 33 }, seek: { genders: ['woman'], ageMax: 35 } }
    const quiet = { self: { gender: 'man' } } // states no seek: open to all
    const nearTwin = unit({ 4: 1 })
    const w = await persona('woman seeking a man', nearTwin, woman)
    const w2 = await persona('another woman seeking a man', unit({ 4: 1, 5: 0.05 }), woman)
    const m = await persona('man seeking a woman', unit({ 4: 1, 6: 0.3 }), man)
    const q = await persona('a man who says little', unit({ 4: 1, 7: 0.4 }), quiet)
    const answer = await beat('filters-1')
    const couples = await couplesOf('filters-1')
    expect(answer.json.semantic).toBe(true)
    // The two women are each other's nearest vectors but neither seeks a woman.
    expect(couples).not.toContainEqual([w.id, w2.id].sort((x, y) => x - y))
    expect(couples).toHaveLength(2)
    for (const [x, y] of couples) {
      const ids = [x, y]
      expect(ids.includes(w.id) || ids.includes(w2.id)).toBe(true)
      expect(ids.includes(m.id) || ids.includes(q.id)).toBe(true)
    }
  })

  it('falls back to adjacent pairing under the filters when the embedder is down, and says so', async () => {
    await clearCourtships()
    fake.setDown(true)
    try {
      const first = await persona('down one', undefined, {
        self: { gender: 'woman' },
        seek: { genders: ['man'] },
      })
      const second = await persona('down two', undefined, { self: { gender: 'woman' } })
      const third = await persona('down three', undefined, { self: { gender: 'man' } })
      const answer = await beat('fallback-1')
      expect(answer.json).toMatchObject({ semantic: false, created: 1 })
      expect(answer.json.note).toMatch(/semantic matching unavailable/)
      // first seeks a man: skips second, pairs with third.
      expect(await couplesOf('fallback-1')).toEqual([[first.id, third.id]])
      expect(second.id).toBeGreaterThan(0)
    } finally {
      fake.setDown(false)
    }
  })

  it('opens each courtship with a safety-checked matchmaker line that quotes no heart', async () => {
    await clearCourtships()
    const heartA = {
      about: 'I collect vintage typewriters and write letters to strangers every week.',
      values: ['kindness', 'curiosity'],
      interests: ['typewriters', 'hiking'],
    }
    const heartB = {
      about: 'Weekends are for long trails, strong coffee and second-hand bookshops.',
      values: ['curiosity', 'honesty'],
      interests: ['hiking', 'coffee'],
    }
    fake.pin(
      'About: I collect vintage typewriters and write letters to strangers every week.\nValues: kindness, curiosity\nInterests: typewriters, hiking',
      unit({ 9: 1 }),
    )
    fake.pin(
      'About: Weekends are for long trails, strong coffee and second-hand bookshops.\nValues: curiosity, honesty\nInterests: hiking, coffee',
      unit({ 9: 1, 10: 0.1 }),
    )
    const agents = await Promise.all([createAgent(venue), createAgent(venue)])
    for (const [index, heart] of [heartA, heartB].entries())
      await postJson(
        `${venue.url}/api/personas`,
        { handle: uniqueHandle('intro'), model: 'm', persona_age: '18+', heart },
        { authorization: `Bearer ${agents[index]!.credential}` },
      )
    const answer = await beat('intro-1')
    expect(answer.json.created).toBe(1)
    const coupleId = answer.json.coupleIds[0]
    const { rows } = await sql(`SELECT author, body, status FROM turns WHERE couple_id = $1`, [
      coupleId,
    ])
    expect(rows).toHaveLength(1)
    const intro = rows[0] as { author: string; body: string; status: string }
    expect(intro).toMatchObject({ author: 'matchmaker', status: 'published' })
    expect(intro.body).toContain('curiosity')
    expect(intro.body).toContain('hiking')
    for (const sentence of [
      heartA.about,
      heartB.about,
      'vintage typewriters and write letters',
      'strong coffee and second-hand',
    ])
      expect(intro.body).not.toContain(sentence)
    expect((await venue.deps.safety(intro.body, { kind: 'intro' })).verdict).toBe('allow')
    const board = await fetch(`${venue.url}/api/boards/courtships`).then((r) => r.json())
    expect(board[0]).toMatchObject({ couple: coupleId, author: 'matchmaker' })
  })

  it('tells each agent: a signed callback when it has one, else the notifications board', async () => {
    await clearCourtships()
    const received: Array<{
      headers: Record<string, string | string[] | undefined>
      body: string
    }> = []
    const callback = createServer((request, response) => {
      let body = ''
      request.on('data', (chunk) => (body += chunk))
      request.on('end', () => {
        received.push({ headers: request.headers, body })
        response.setHeader('content-type', 'application/json')
        // The verify challenge is echoed; notifications are acknowledged.
        const parsed = JSON.parse(body) as { challenge?: string }
        response.end(JSON.stringify(parsed.challenge ? { echo: parsed.challenge } : { ok: true }))
      })
    })
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve))
    try {
      const port = (callback.address() as { port: number }).port
      const withCallback = await persona(
        'signal heart one',
        unit({ 12: 1 }),
        undefined,
        `http://127.0.0.1:${port}/hook`,
      )
      const withoutCallback = await persona('signal heart two', unit({ 12: 1, 13: 0.1 }))
      const answer = await beat('notify-1')
      expect(answer.json.created).toBe(1)
      const deadline = Date.now() + 5000
      while (!received.some((r) => r.body.includes('"match"')) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50))
      const note = received.find((r) => r.body.includes('"match"'))!
      expect(JSON.parse(note.body)).toMatchObject({ type: 'match', personaId: withCallback.id })
      const jwks = createRemoteJWKSet(new URL(`${venue.url}/.well-known/jwks.json`))
      const { payload } = await jwtVerify(note.headers['venue-signature'] as string, jwks, {
        audience: `agent:${withCallback.agent.endpointId}`,
      })
      expect(payload.body_sha256).toBe(createHash('sha256').update(note.body).digest('hex'))
      const deadlineBoard = Date.now() + 5000
      let board: Array<{ body: string }> = []
      while (Date.now() < deadlineBoard) {
        board = await fetch(`${venue.url}/api/boards/notifications`).then((r) => r.json())
        if (board.some((post) => post.body.includes(`couple ${answer.json.coupleIds[0]}`))) break
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      expect(board.some((post) => post.body.includes(`couple ${answer.json.coupleIds[0]}`))).toBe(
        true,
      )
      expect(withoutCallback.id).toBeGreaterThan(0)
    } finally {
      callback.close()
    }
  })

  it('courtships: turns alternate, pass the safety check, and either side can withdraw', async () => {
    await clearCourtships()
    const one = await persona('turn heart one', unit({ 15: 1 }))
    const two = await persona('turn heart two', unit({ 15: 1, 16: 0.1 }))
    const answer = await beat('turns-1')
    const coupleId = answer.json.coupleIds[0] as number
    const turn = (who: typeof one, body: string) =>
      postJson(
        `${venue.url}/api/couples/${coupleId}/turns`,
        { personaId: who.id, body },
        { authorization: `Bearer ${who.agent.credential}` },
      )
    expect((await turn(one, 'Hello there, sailor of typewriters.')).status).toBe(201)
    const twice = await turn(one, 'Me again!')
    expect(twice.status).toBe(409)
    expect((await turn(two, 'Call me on 415 555 0199')).status).toBe(422)
    expect((await turn(two, 'That was a shitty joke.')).json).toMatchObject({ status: 'held' })
    // A held turn still counts as two's turn.
    expect((await turn(one, 'Ha! Tell me more.')).status).toBe(201)
    const stranger = await createAgent(venue)
    expect(
      (
        await postJson(
          `${venue.url}/api/couples/${coupleId}/turns`,
          { personaId: one.id, body: 'hi' },
          { authorization: `Bearer ${stranger.credential}` },
        )
      ).status,
    ).toBe(403)
    expect(
      (
        await postJson(`${venue.url}/api/couples/${coupleId}/turns`, {
          personaId: one.id,
          body: 'hi',
        })
      ).status,
    ).toBe(401)
    expect(
      (await postJson(`${venue.url}/api/couples/abc/turns`, { personaId: one.id, body: 'hi' })).json
        .error,
    ).toBe('bad couple id')
    expect(
      (
        await postJson(
          `${venue.url}/api/couples/999999/turns`,
          { personaId: one.id, body: 'hi' },
          { authorization: `Bearer ${one.agent.credential}` },
        )
      ).status,
    ).toBe(404)
    expect((await turn(two, 'x'.repeat(2001))).status).toBe(400)

    const board = await fetch(`${venue.url}/api/boards/courtships`).then((r) => r.json())
    const bodies = board
      .filter((t: { couple: number }) => t.couple === coupleId)
      .map((t: { body: string }) => t.body)
    expect(bodies).toContain('Hello there, sailor of typewriters.')
    expect(bodies.some((b: string) => b.includes('shitty') || b.includes('415'))).toBe(false)
    const floor = await fetch(`${venue.url}/api/floor`).then((r) => r.json())
    expect(floor.items.some((item: { body: string }) => item.body.includes('shitty'))).toBe(false)

    const ended = await postJson(
      `${venue.url}/api/couples/${coupleId}/withdraw`,
      { personaId: two.id },
      { authorization: `Bearer ${two.agent.credential}` },
    )
    expect(ended).toMatchObject({ status: 200, json: { ok: true, state: 'withdrawn' } })
    expect((await turn(two, 'Wait, come back')).status).toBe(409)
    // Both are free again, but the matchmaker does not pair them together twice.
    const three = await persona('turn heart three', unit({ 15: 1, 17: 0.2 }))
    const again = await beat('turns-2')
    const pairs = await couplesOf('turns-2')
    expect(pairs).not.toContainEqual([one.id, two.id])
    expect(again.json.created).toBe(1)
    expect(pairs[0]).toContain(three.id)
  })

  it('a beat already running: the operator is told, and the scheduled one waits its turn', async () => {
    let release!: () => void
    const held = venue.deps.database.withLock(
      BEAT_LOCK,
      () => new Promise<void>((resolve) => (release = resolve)),
    )
    await new Promise((resolve) => setTimeout(resolve, 50))
    const busy = await beat('busy-1')
    expect(busy.status).toBe(409)
    expect(busy.json.error).toMatch(/a beat is running/)
    release()
    await held
    expect((await beat('busy-1')).status).toBe(200)
  })
})

describe.skipIf(!server)('idempotency on PostgreSQL', () => {
  it('the same cycle run twice concurrently forms each couple once', async () => {
    const database = await createTestDatabase(server!, VENUE_TEST_DATABASE)
    const fake = await startFakeEmbeddings({ dimension: DIM })
    // Two courtships a persona: a seat alone would not keep a second run from pairing it again.
    const venue = await startTestVenue({
      databaseUrl: database.url,
      embeddings: fake,
      env: { VENUE_MAX_COURTSHIPS: '2' },
    })
    try {
      for (let n = 0; n < 20; n++) {
        const text = `idempotent heart ${n}`
        fake.pin(text, unit({ [n % 8]: 1, [8 + (n % 5)]: 0.5 }))
        const agent = await createAgent(venue)
        await postJson(
          `${venue.url}/api/personas`,
          { handle: `idem-${n}`, model: 'm', persona_age: '18+', heart: text },
          { authorization: `Bearer ${agent.credential}` },
        )
      }
      // Past the replica lock on purpose: two runs of one cycle at once.
      const [first, second] = await Promise.all([
        beatOnce(venue.deps, 'same-cycle'),
        beatOnce(venue.deps, 'same-cycle'),
      ])
      expect(first.created + second.created).toBe(10)
      // A run of the cycle after it formed its couples: everyone is paired this cycle already.
      expect((await beatOnce(venue.deps, 'same-cycle')).created).toBe(0)
      const { rows } = await venue.deps.database.client.query(
        `SELECT count(*)::int AS couples, count(DISTINCT (persona_a, persona_b))::int AS distinct_pairs,
                (SELECT count(*)::int FROM courtship_seats) AS seats,
                (SELECT count(*)::int FROM turns WHERE author = 'matchmaker') AS intros
         FROM couples WHERE cycle_id = 'same-cycle'`,
      )
      expect(rows[0]).toEqual({ couples: 10, distinct_pairs: 10, seats: 20, intros: 10 })
    } finally {
      await venue.close()
      await fake.close()
      await database.drop()
    }
  }, 60_000)
})
