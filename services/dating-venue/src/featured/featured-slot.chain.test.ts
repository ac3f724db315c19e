import type { Devnet } from '@agents/devnet'
import { sharedDevnet } from '@agents/devnet/testing'
import { PAYMENT_REQUIRED_HEADER } from '@agents/payments'
import { postJson } from '@agents/service-kit'
import { testBackends } from '@agents/service-kit/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { creditBalance } from '../orders/credits.ts'
import { revenueTotals } from '../orders/revenue.ts'
import type { Venue } from '../start.ts'
import { admitPersona, createAgent } from '../test-helpers.ts'
import {
  startTestVenue,
  TEST_ADMIN_TOKEN,
  TEST_DATABASE_URL,
  VENUE_TEST_DATABASE,
} from '../testing.ts'

const PATH = '/api/featured/post'

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'featured slots on $name',
  ({ open }) => {
    let devnet: Devnet
    let venue: Venue
    let drop: () => Promise<void>
    let persona: { id: number; credential: string }

    const feature = (
      body: object,
      { credential = persona.credential, pay = false }: { credential?: string; pay?: boolean } = {},
    ) =>
      (pay ? devnet.x402Fetch(devnet.accounts.payer) : fetch)(`${venue.url}${PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${credential}` },
        body: JSON.stringify(body),
      }).then(async (response) => ({
        status: response.status,
        headers: response.headers,
        // biome-ignore lint/suspicious/noExplicitAny: tests read the answer by path
        json: (await response.json()) as any,
      }))
    const payee = () => devnet.usdcBalance(devnet.accounts.payee)
    const setOpen = (value: boolean) =>
      postJson(
        `${venue.url}/admin/actions/settings`,
        { key: 'venue_open', value },
        { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      )

    beforeAll(async () => {
      const database = await open()
      drop = database.drop
      devnet = await sharedDevnet()
      venue = await startTestVenue({
        devnet,
        databaseUrl: database.url,
        env: { VENUE_OPEN: 'true', VENUE_FEATURED_SLOTS: '2', VENUE_FEATURED_HOURS: '24' },
      })
      const admitted = await admitPersona(venue)
      persona = { id: admitted.answer.json.personaId, credential: admitted.agent.credential }
    }, 120_000)
    afterAll(async () => {
      await venue?.close()
      await devnet?.stop()
      await drop?.()
    })

    it('refuses before any 402: bad bodies, credentials, unknown personas, a closed venue, unsafe text', async () => {
      const ok = { personaId: 1, board: 'seeking', body: 'Looking for a sailing partner.' }
      for (const body of [
        {},
        { ...ok, board: 'notifications' },
        { ...ok, body: '' },
        { ...ok, body: 'x'.repeat(2001) },
        { ...ok, body: 'nul\u0000here' },
        { ...ok, personaId: 2 ** 31 },
        { ...ok, extra: true },
      ]) {
        const answer = await feature(body)
        expect(answer.status, JSON.stringify(body)).toBe(400)
        expect(answer.json.error).toBe('invalid featured post')
      }
      expect((await postJson(`${venue.url}${PATH}`, { ...ok, personaId: persona.id })).status).toBe(
        401,
      )
      const stranger = await admitPersona(venue)
      expect(
        (await feature({ ...ok, personaId: persona.id }, { credential: stranger.agent.credential }))
          .json,
      ).toEqual({
        error: 'credential does not act for this persona',
      })
      expect((await feature({ ...ok, personaId: 2_000_000 })).status).toBe(404)
      expect((await setOpen(false)).status).toBe(200)
      try {
        const closed = await feature({ ...ok, personaId: persona.id })
        expect(closed.status).toBe(403)
        expect(closed.json.error).toMatch(/boards are closed/)
      } finally {
        await setOpen(true)
      }
      const unsafe = await feature({
        ...ok,
        personaId: persona.id,
        body: 'Text me at 415 555 0199 tonight',
      })
      expect(unsafe.status).toBe(422)
      expect(unsafe.json.reason).toBeDefined()
      expect(unsafe.headers.get(PAYMENT_REQUIRED_HEADER)).toBeNull()
    })

    it('asks 50.00 USDC with the legacy body; paid, the post is published as featured for the configured hours', async () => {
      const body = {
        personaId: persona.id,
        board: 'seeking',
        body: 'Featured: a calm sailor seeks a curious crew.',
      }
      const challenge = await feature(body)
      expect(challenge.status).toBe(402)
      expect(challenge.json.accepts[0]).toMatchObject({
        maxAmountRequired: '50000000',
        resource: PATH,
      })
      const before = await payee()
      const paid = await feature(body, { pay: true })
      expect(paid.status, JSON.stringify(paid.json)).toBe(201)
      expect(paid.json).toMatchObject({
        ok: true,
        board: 'seeking',
        orderId: expect.stringMatching(/^featured_slot:/),
      })
      const hours = (Date.parse(paid.json.featuredUntil) - Date.now()) / 3_600_000
      expect(hours).toBeGreaterThan(23.9)
      expect(hours).toBeLessThanOrEqual(24)
      expect(await payee()).toBe(before + 50_000_000n)
      expect(await revenueTotals(venue.deps.database)).toMatchObject({
        buyback_reserve_usdc: expect.any(String),
      })
      // A newer ordinary post does not push it down: it is first on its board and on the floor.
      const ordinary = await fetch(`${venue.url}/api/boards/seeking`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${persona.credential}`,
        },
        body: JSON.stringify({
          personaId: persona.id,
          body: 'An ordinary, newer post about sailing.',
        }),
      })
      expect(ordinary.status).toBe(201)
      const board = await (await fetch(`${venue.url}/api/boards/seeking`)).json()
      expect(board[0]).toMatchObject({ body: body.body, featured: true })
      expect(board[1]).toMatchObject({ body: 'An ordinary, newer post about sailing.' })
      expect(board[1].featured).toBeUndefined()
      const floor = await (await fetch(`${venue.url}/api/floor`)).json()
      expect(floor.items[0]).toMatchObject({ kind: 'post', body: body.body, featured: true })
      expect(floor.items.filter((item: { body: string }) => item.body === body.body)).toHaveLength(
        1,
      )
    })

    it('reports hold a featured post like any post: it leaves the board and frees its slot (not credited)', async () => {
      const text = 'A featured post the reporters will hold.'
      const paid = await feature(
        { personaId: persona.id, board: 'debriefs', body: text },
        { pay: true },
      )
      expect(paid.status).toBe(201)
      for (let reporter = 0; reporter < 3; reporter++) {
        const agent = await createAgent(venue)
        const reported = await postJson(
          `${venue.url}/api/report`,
          { targetType: 'post', targetId: paid.json.postId, reason: 'testing the hold' },
          { authorization: `Bearer ${agent.credential}` },
        )
        expect(reported.status).toBe(200)
      }
      const board = await (await fetch(`${venue.url}/api/boards/debriefs`)).json()
      expect(board.map((item: { body: string }) => item.body)).not.toContain(text)
      const { rows } = await venue.deps.database.client.query(
        'SELECT status FROM posts WHERE id = $1',
        [paid.json.postId],
      )
      expect(rows[0]).toEqual({ status: 'held' })
      expect(await creditBalance(venue.deps.database.db, devnet.accounts.payer.address)).toBe(0)
    })

    it('a full board answers 409 before payment, saying when the next slot frees; the last slot is sold once', async () => {
      const body = (text: string) => ({ personaId: persona.id, board: 'seeking', body: text })
      const before = await payee()
      // One slot left of two: two payers race for it; one is featured, the other refused before paying.
      const raced = await Promise.all([
        feature(body('Race one: a featured sailor.'), { pay: true }),
        feature(body('Race two: a featured sailor.'), { pay: true }),
      ])
      expect(raced.map((answer) => answer.status).sort()).toEqual([201, 409])
      expect(await payee()).toBe(before + 50_000_000n)
      const full = await feature(body('One more featured sailor.'))
      expect(full.status).toBe(409)
      expect(full.json).toMatchObject({ error: 'featured slots full on this board', slots: 2 })
      expect(Date.parse(full.json.nextFreeAt)).toBeGreaterThan(Date.now())
      expect(Number(full.headers.get('retry-after'))).toBeGreaterThan(3600)
      expect(full.headers.get(PAYMENT_REQUIRED_HEADER)).toBeNull()
      // Another board has its own slots.
      expect((await feature({ ...body('Debrief, featured.'), board: 'debriefs' })).status).toBe(402)
    })
  },
)
