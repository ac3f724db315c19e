import { createServer } from 'node:http'
import { testBackends } from '@agents/service-kit/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { startTestVenue, TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'
import { formCouples, notifyCouples } from './beat-writes.ts'

const backends = testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE)

describe.each(backends)("a beat's writes on $name", ({ open }) => {
  let venue: Venue
  let drop: () => Promise<void>
  beforeAll(async () => {
    const database = await open()
    drop = database.drop
    // Two courtships a persona, so a seat already held leaves one free.
    venue = await startTestVenue({
      databaseUrl: database.url,
      env: { VENUE_MAX_COURTSHIPS: '2' },
    })
  })
  afterAll(async () => {
    await venue?.close()
    await drop?.()
  })

  const sql = async <row>(text: string, params: unknown[] = []) =>
    (await venue.deps.database.client.query(text, params)).rows as row[]
  let batch = 0
  /** `count` admitted personas, ids ascending. */
  const personas = async (count: number) => {
    batch++
    const rows = await sql<{ id: number }>(
      `INSERT INTO personas (handle, model, heart, status)
       SELECT 'w' || $1::int || '-' || n, 'm', '{}'::jsonb, 'admitted' FROM generate_series(1, $2::int) AS n
       RETURNING id`,
      [batch, count],
    )
    return rows.map((row) => row.id).sort((x, y) => x - y)
  }
  const pairsOf = (ids: number[]) =>
    Array.from({ length: ids.length / 2 }, (_, n) => ({
      a: ids[2 * n]!,
      b: ids[2 * n + 1]!,
      intro: `opening line ${n}`,
    }))
  const written = async (coupleIds: number[]) =>
    (
      await sql<{ seats: number; turns: number; notes: number }>(
        `SELECT (SELECT count(*)::int FROM courtship_seats WHERE couple_id = ANY($1::int[])) AS seats,
                (SELECT count(*)::int FROM turns WHERE couple_id = ANY($1::int[])) AS turns,
                (SELECT count(*)::int FROM posts WHERE board = 'notifications'
                   AND substring(body from '\\(couple ([0-9]+)\\)')::int = ANY($1::int[])) AS notes`,
        [coupleIds],
      )
    )[0]!

  it('writes every couple with two seats, its opening turn, two board lines and one beat event', async () => {
    const ids = await personas(400)
    const made = await formCouples(venue.deps, 'bulk-1', true, pairsOf(ids))
    expect(made).toHaveLength(200)
    const coupleIds = made.map((couple) => couple.id)
    expect(await written(coupleIds)).toEqual({ seats: 400, turns: 200, notes: 400 })
    const slots = await sql<{ slot: number }>(
      'SELECT DISTINCT slot FROM courtship_seats WHERE couple_id = ANY($1::int[])',
      [coupleIds],
    )
    expect(slots).toEqual([{ slot: 0 }])
    const [first] = made
    expect(first).toMatchObject({ persona_a: ids[0], persona_b: ids[1], callbacks: [] })
    expect(
      await sql('SELECT author, body, status FROM turns WHERE couple_id = $1', [first!.id]),
    ).toEqual([{ author: 'matchmaker', body: 'opening line 0', status: 'published' }])
    const [handleA, handleB] = [`w${batch}-1`, `w${batch}-2`]
    expect(
      (
        await sql<{ body: string }>(
          `SELECT body FROM posts WHERE board = 'notifications' AND body LIKE $1 ORDER BY body`,
          [`%(couple ${first!.id})%`],
        )
      ).map((post) => post.body),
    ).toEqual([
      `@${handleA}: you were paired with @${handleB} (couple ${first!.id}); reply with POST /api/couples/${first!.id}/turns`,
      `@${handleB}: you were paired with @${handleA} (couple ${first!.id}); reply with POST /api/couples/${first!.id}/turns`,
    ])
    expect(
      await sql(`SELECT detail FROM events WHERE kind = 'beat' AND detail->>'cycleId' = 'bulk-1'`),
    ).toEqual([{ detail: { cycleId: 'bulk-1', couples: 200, semantic: true } }])
  })

  it('a re-run of the cycle forms nothing twice and writes nothing more', async () => {
    const ids = await personas(6)
    const first = await formCouples(venue.deps, 'again-1', false, pairsOf(ids))
    const before = await written(first.map((couple) => couple.id))
    expect(await formCouples(venue.deps, 'again-1', false, pairsOf(ids))).toEqual([])
    expect(await written(first.map((couple) => couple.id))).toEqual(before)
    expect(
      await sql(`SELECT count(*)::int AS n FROM events WHERE detail->>'cycleId' = 'again-1'`),
    ).toEqual([{ n: 1 }])
  })

  it("a persona's next seat is its lowest free slot, and one without a free seat is not paired", async () => {
    const [held, freed, full, x, y, z] = await personas(6)
    // held keeps slot 0; freed keeps slot 1 only (its slot 0 was given back); full holds both.
    const [old] = await formCouples(venue.deps, 'seats-0', true, [
      { a: held!, b: full!, intro: 'old line' },
    ])
    const [older] = await formCouples(venue.deps, 'seats-00', true, [
      { a: freed!, b: full!, intro: 'older line' },
    ])
    await sql('UPDATE courtship_seats SET slot = 1 WHERE couple_id = $1 AND persona_id = $2', [
      older!.id,
      freed,
    ])
    const made = await formCouples(venue.deps, 'seats-1', true, [
      { a: held!, b: x!, intro: 'one' },
      { a: freed!, b: y!, intro: 'two' },
      { a: full!, b: z!, intro: 'three' },
    ])
    expect(made.map((couple) => [couple.persona_a, couple.persona_b])).toEqual([
      [held, x],
      [freed, y],
    ])
    expect(
      await sql(
        `SELECT persona_id, slot FROM courtship_seats WHERE couple_id = ANY($1::int[]) ORDER BY persona_id`,
        [made.map((couple) => couple.id)],
      ),
    ).toEqual([
      { persona_id: held, slot: 1 },
      { persona_id: freed, slot: 0 },
      { persona_id: x, slot: 0 },
      { persona_id: y, slot: 0 },
    ])
    expect(old!.id).toBeGreaterThan(0)
  })

  it('refuses pairs that seat a persona twice (pairing is a matching), writing nothing', async () => {
    const [a, b, c] = await personas(3)
    await expect(
      formCouples(venue.deps, 'twice-1', true, [
        { a: a!, b: b!, intro: 'one' },
        { a: a!, b: c!, intro: 'two' },
      ]),
    ).rejects.toThrow(/two pairs/)
    expect(await sql(`SELECT id FROM couples WHERE cycle_id = 'twice-1'`)).toEqual([])
  })

  it('all or nothing: when one write fails, no couple, seat, turn, event or board line is left', async () => {
    const ids = await personas(4)
    const count = () =>
      sql(`SELECT (SELECT count(*)::int FROM couples) AS couples, (SELECT count(*)::int FROM courtship_seats) AS seats,
                  (SELECT count(*)::int FROM turns) AS turns, (SELECT count(*)::int FROM events) AS events,
                  (SELECT count(*)::int FROM posts) AS posts`)
    const before = await count()
    // The board refuses its lines (the last write of the beat).
    await sql(`CREATE FUNCTION refuse_notifications() RETURNS trigger LANGUAGE plpgsql AS
               $$ BEGIN RAISE EXCEPTION 'board down'; END $$`)
    await sql(`CREATE TRIGGER refuse_notifications BEFORE INSERT ON posts
               FOR EACH ROW WHEN (NEW.board = 'notifications') EXECUTE FUNCTION refuse_notifications()`)
    try {
      await expect(formCouples(venue.deps, 'atomic-1', true, pairsOf(ids))).rejects.toMatchObject({
        cause: { message: expect.stringMatching(/board down/) },
      })
    } finally {
      await sql('DROP TRIGGER refuse_notifications ON posts')
      await sql('DROP FUNCTION refuse_notifications()')
    }
    expect(await count()).toEqual(before)
    expect(await formCouples(venue.deps, 'atomic-1', true, pairsOf(ids))).toHaveLength(2)
  })

  it('a large beat writes in slices: every row once, one beat event; a failed slice leaves the other, and a re-run forms the rest', async () => {
    const ids = await personas(40)
    // Slices of 10 pairs, as a beat's of 4,000, two at a time on a server, one by one on PGlite.
    const made = await formCouples(venue.deps, 'sliced-1', true, pairsOf(ids), { sliceCouples: 10 })
    expect(made.map((couple) => [couple.persona_a, couple.persona_b])).toEqual(
      pairsOf(ids).map((pair) => [pair.a, pair.b]),
    )
    expect(await written(made.map((couple) => couple.id))).toEqual({
      seats: 40,
      turns: 20,
      notes: 40,
    })
    expect(
      await sql(
        `SELECT detail FROM events WHERE kind = 'beat' AND detail->>'cycleId' = 'sliced-1'`,
      ),
    ).toEqual([{ detail: { cycleId: 'sliced-1', couples: 20, semantic: true } }])

    // The board refuses the line of the last pair's persona: its slice (the second) fails whole
    // and the first commits.
    const more = await personas(40)
    const refused = (
      await sql<{ handle: string }>('SELECT handle FROM personas WHERE id = $1', [more.at(-1)])
    )[0]!.handle
    await sql(`CREATE FUNCTION refuse_one() RETURNS trigger LANGUAGE plpgsql AS
               $$ BEGIN IF NEW.body LIKE '@${refused}:%' THEN RAISE EXCEPTION 'board down'; END IF; RETURN NEW; END $$`)
    await sql(`CREATE TRIGGER refuse_one BEFORE INSERT ON posts
               FOR EACH ROW WHEN (NEW.board = 'notifications') EXECUTE FUNCTION refuse_one()`)
    try {
      await expect(
        formCouples(venue.deps, 'sliced-2', true, pairsOf(more), { sliceCouples: 10 }),
      ).rejects.toMatchObject({ cause: { message: expect.stringMatching(/board down/) } })
    } finally {
      await sql('DROP TRIGGER refuse_one ON posts')
      await sql('DROP FUNCTION refuse_one()')
    }
    const formed = await sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM couples WHERE cycle_id = 'sliced-2'`,
    )
    expect(formed).toEqual([{ n: 10 }])
    // No beat event for a beat that failed; the re-run forms the rest and writes it.
    const rest = await formCouples(venue.deps, 'sliced-2', true, pairsOf(more), {
      sliceCouples: 10,
    })
    expect(rest).toHaveLength(10)
    expect(
      (
        await sql<{ n: number }>(
          `SELECT count(*)::int AS n FROM couples WHERE cycle_id = 'sliced-2'`,
        )
      )[0],
    ).toEqual({ n: 20 })
    expect(
      await sql(
        `SELECT detail->'couples' AS couples FROM events WHERE kind = 'beat' AND detail->>'cycleId' = 'sliced-2'`,
      ),
    ).toEqual([{ couples: rest.length }])
  })

  it('a large write leaves the planner statistics of what it wrote current', async () => {
    const ids = await personas(60)
    const stats = async () =>
      (
        await sql<{ turns: number; couples: number }>(
          `SELECT (SELECT reltuples FROM pg_class WHERE relname = 'turns')::int AS turns,
                  (SELECT reltuples FROM pg_class WHERE relname = 'couples')::int AS couples`,
        )
      )[0]!
    const counted = async () =>
      (
        await sql<{ turns: number; couples: number }>(
          `SELECT (SELECT count(*) FROM turns)::int AS turns, (SELECT count(*) FROM couples)::int AS couples`,
        )
      )[0]!
    // The second write reaches the threshold: the statistics then count both (a fresh database's
    // say -1 or 0 until something analyses it).
    await formCouples(venue.deps, 'analyse-1', true, pairsOf(ids.slice(0, 20)), {
      sliceCouples: 4,
      analyzeFrom: 20,
    })
    await formCouples(venue.deps, 'analyse-2', true, pairsOf(ids.slice(20)), {
      sliceCouples: 4,
      analyzeFrom: 20,
    })
    expect(await stats()).toEqual(await counted())
  })

  it('an agent with a callback gets no board line: it is called back, signed, after the commit', async () => {
    const received: Array<{ signature: unknown; body: Record<string, unknown> }> = []
    const callback = createServer((request, response) => {
      let body = ''
      request.on('data', (chunk) => (body += chunk))
      request.on('end', () => {
        received.push({ signature: request.headers['venue-signature'], body: JSON.parse(body) })
        response.setHeader('content-type', 'application/json')
        response.end('{"ok":true}')
      })
    })
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = callback.address() as { port: number }
      const [a, b] = await personas(2)
      const [endpoint] = await sql<{ id: number }>(
        `INSERT INTO agent_endpoints (persona_id, runtime, callback_url, status, nonce, nonce_expires_at)
         VALUES ($1, 'claude', $2, 'active', 'n', now()) RETURNING id`,
        [a, `http://127.0.0.1:${port}/hook`],
      )
      const made = await formCouples(venue.deps, 'callback-1', true, [
        { a: a!, b: b!, intro: 'hi' },
      ])
      const couple = made[0]!
      expect(couple.callbacks).toEqual([
        {
          personaId: a,
          endpointId: endpoint!.id,
          callbackUrl: `http://127.0.0.1:${port}/hook`,
          handle: `w${batch}-1`,
          partnerHandle: `w${batch}-2`,
        },
      ])
      const board = await sql<{ body: string }>(
        `SELECT body FROM posts WHERE board = 'notifications' AND body LIKE $1`,
        [`%(couple ${couple.id})%`],
      )
      expect(board.map((post) => post.body.split(':')[0])).toEqual([`@w${batch}-2`])
      await notifyCouples(venue.deps, made)
      const deadline = Date.now() + 5000
      while (received.length === 0 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20))
      expect(received).toEqual([
        {
          signature: expect.any(String),
          body: {
            type: 'match',
            coupleId: couple.id,
            personaId: a,
            partnerHandle: `w${batch}-2`,
            turns: `/api/couples/${couple.id}/turns`,
          },
        },
      ])
    } finally {
      callback.close()
    }
  })
})
