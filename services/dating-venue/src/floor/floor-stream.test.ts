import http from 'node:http'
import { postJson } from '@agents/service-kit'
import { testBackends } from '@agents/service-kit/db'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { Venue } from '../start.ts'
import { admitPersona } from '../test-helpers.ts'
import { startTestVenue, TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'

const POLL_MS = 100

type Stream = {
  status: number
  headers: http.IncomingHttpHeaders
  /** Everything received so far (the whole body when the answer is not a stream). */
  text: () => string
  /** Resolves once the received text satisfies `test`, or rejects after `timeoutMs`. */
  until: (test: (text: string) => boolean, timeoutMs?: number) => Promise<string>
  /** Resolves when the server ended the response. */
  ended: Promise<void>
  /** Drops the connection, as a closing browser tab does. */
  abort: () => void
}

// node:http rather than fetch: an aborted fetch keeps its socket in undici's
// pool for seconds, which would hold the server's close in the last test.
const openStream = (url: string, from?: string) =>
  new Promise<Stream>((resolve, reject) => {
    const request = http.get(`${url}/api/floor`, {
      agent: false,
      headers: { accept: 'text/event-stream', ...(from ? { 'x-forwarded-for': from } : {}) },
    })
    request.on('error', reject)
    request.on('response', (response) => {
      let received = ''
      const waiters = new Set<() => void>()
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => {
        received += chunk
        for (const wake of waiters) wake()
      })
      const ended = new Promise<void>((done) => response.on('close', done))
      const until = (test: (text: string) => boolean, timeoutMs = 5000) =>
        new Promise<string>((found, fail) => {
          const check = () => {
            if (!test(received)) return
            waiters.delete(check)
            clearTimeout(timer)
            found(received)
          }
          const timer = setTimeout(() => {
            waiters.delete(check)
            fail(new Error(`stream did not match in ${timeoutMs} ms: ${received.slice(-300)}`))
          }, timeoutMs)
          waiters.add(check)
          check()
        })
      resolve({
        status: response.statusCode!,
        headers: response.headers,
        text: () => received,
        until,
        ended,
        abort: () => request.destroy(),
      })
    })
  })

const waitFor = async (test: () => boolean, timeoutMs = 3000) => {
  const deadline = Date.now() + timeoutMs
  while (!test()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'the live floor stream on $name',
  ({ open }) => {
    let venue: Venue
    let drop: () => Promise<void>
    beforeAll(async () => {
      const database = await open()
      drop = database.drop
      venue = await startTestVenue({
        databaseUrl: database.url,
        env: {
          GEO_TRUST_FORWARDED_FOR: 'true',
          VENUE_FLOOR_POLL_MS: String(POLL_MS),
          // 16 shared, the last 4 kept for clients holding none.
          VENUE_FLOOR_MAX_STREAMS: '20',
          VENUE_FLOOR_MAX_STREAMS_PER_ADDRESS: '4',
        },
      })
    })
    afterAll(async () => {
      await venue?.close()
      await drop?.()
    })
    const hub = () => venue.deps.floor

    it('refuses a stream beyond the per-address limit with 503, Retry-After and { error }', async () => {
      const mine = await Promise.all(
        Array.from({ length: 4 }, () => openStream(venue.url, '203.0.113.7')),
      )
      expect(mine.map((s) => s.status)).toEqual(Array(4).fill(200))
      const refused = await openStream(venue.url, '203.0.113.7')
      expect(refused.status).toBe(503)
      expect(refused.headers['retry-after']).toBe('5')
      await refused.ended
      expect(JSON.parse(refused.text())).toEqual({
        error: 'too many live floor streams from this address',
      })
      // Another address is still served; one stream fewer frees a place.
      const other = await openStream(venue.url, '203.0.113.8')
      expect(other.status).toBe(200)
      mine[0]!.abort()
      await waitFor(() => hub().stats().streams === 4)
      const again = await openStream(venue.url, '203.0.113.7')
      expect(again.status).toBe(200)
      for (const stream of [...mine, other, again]) stream.abort()
      await waitFor(() => hub().stats().streams === 0)
      expect(hub().stats().running).toBe(false)
    })

    it('refuses a stream beyond the total limit with 503, whatever the address', async () => {
      const streams = await Promise.all(
        Array.from({ length: 20 }, (_, i) => openStream(venue.url, `203.0.113.${20 + i}`)),
      )
      expect(streams.every((s) => s.status === 200)).toBe(true)
      const refused = await openStream(venue.url, '203.0.113.99')
      expect(refused.status).toBe(503)
      expect(refused.headers['retry-after']).toBe('5')
      await refused.ended
      expect(JSON.parse(refused.text())).toEqual({
        error: 'too many live floor streams: try again later',
      })
      for (const stream of streams) stream.abort()
      await waitFor(() => hub().stats().streams === 0)
    })

    it('one host cannot hold every stream: IPv6 counts by /64, and the last fifth is kept for clients holding none', async () => {
      const open = (from: string) => openStream(venue.url, from)
      const refusal = async (stream: Stream) => {
        expect(stream.status).toBe(503)
        expect(stream.headers['retry-after']).toBe('5')
        await stream.ended
        return (JSON.parse(stream.text()) as { error: string }).error
      }
      const perAddress = 'too many live floor streams from this address'
      const keptForNew =
        'the floor is nearly full: its last streams are kept for clients holding none; close one of yours or try again later'
      // Four addresses of one /64 are one client; the next /64 is another.
      const held = await Promise.all(['1', '2', '3', '4'].map((h) => open(`2001:db8:1:2::${h}`)))
      expect(await refusal(await open('2001:db8:1:2:ffff:ffff:ffff:ffff'))).toBe(perAddress)
      held.push(await open('2001:db8:1:3::1'))
      // An IPv4 address and its IPv4-mapped IPv6 form are one client.
      held.push(
        ...(await Promise.all(
          ['203.0.113.50', '203.0.113.50', '::ffff:203.0.113.50', '::ffff:203.0.113.50'].map(open),
        )),
      )
      expect(await refusal(await open('::ffff:203.0.113.50'))).toBe(perAddress)
      // Up to 16 of 20, any client within its limit.
      held.push(
        ...(await Promise.all(
          ['1', '1', '1', '1', '2', '2', '2'].map((h) => open(`198.18.0.${h}`)),
        )),
      )
      expect(held.map((stream) => stream.status)).toEqual(Array(16).fill(200))
      expect(hub().stats()).toMatchObject({ streams: 16, addresses: 5 })
      // Beyond, a client holding a stream gets no other; a client holding none gets one.
      expect(await refusal(await open('198.18.0.2'))).toBe(keptForNew)
      expect(await refusal(await open('2001:db8:1:3::2'))).toBe(keptForNew)
      const newcomers = await Promise.all(
        ['10', '11', '12', '13'].map((h) => open(`198.18.0.${h}`)),
      )
      expect(newcomers.map((stream) => stream.status)).toEqual([200, 200, 200, 200])
      expect(await refusal(await open('198.18.0.14'))).toBe(
        'too many live floor streams: try again later',
      )
      for (const stream of [...held, ...newcomers]) stream.abort()
      await waitFor(() => hub().stats().streams === 0)
    })

    it('serves N streams with one read per interval, and a post reaches every stream', async () => {
      // 11, so that one more, opened later, stays within the total of 20.
      const streams = await Promise.all(
        Array.from({ length: 11 }, (_, i) => openStream(venue.url, `198.51.100.${i + 1}`)),
      )
      await Promise.all(streams.map((s) => s.until((text) => text.includes('event: ping'))))
      // readFloor is two SELECTs (turns, posts); count every SELECT the venue builds.
      const select = vi.spyOn(venue.deps.database.db, 'select')
      const pollsBefore = hub().stats().polls
      const started = Date.now()
      await new Promise((resolve) => setTimeout(resolve, 10 * POLL_MS))
      const selects = select.mock.calls.length
      const polls = hub().stats().polls - pollsBefore
      const intervals = (Date.now() - started) / POLL_MS
      select.mockRestore()
      expect(selects).toBe(2 * polls)
      expect(polls).toBeGreaterThanOrEqual(Math.floor(intervals / 2))
      expect(polls).toBeLessThanOrEqual(Math.ceil(intervals) + 1)

      const { agent, answer } = await admitPersona(venue)
      const posted = await postJson(
        `${venue.url}/api/boards/seeking`,
        { personaId: answer.json.personaId, body: 'Anyone for the night market?' },
        { authorization: `Bearer ${agent.credential}` },
      )
      expect(posted.status).toBe(201)
      await Promise.all(streams.map((s) => s.until((text) => text.includes('night market'))))
      for (const stream of streams)
        expect(stream.text()).toMatch(/event: post\ndata: .*night market/)
      // A stream opened later starts with it, from what the hub holds, without a query.
      const spy = vi.spyOn(venue.deps.database.db, 'select')
      const late = await openStream(venue.url, '198.51.100.200')
      expect(late.status).toBe(200)
      await late.until((text) => text.includes('night market'))
      expect(spy.mock.calls.length).toBeLessThanOrEqual(2)
      spy.mockRestore()
      for (const stream of [...streams, late]) stream.abort()
      await waitFor(() => hub().stats().streams === 0)
    })

    it('closing the server ends every open stream with a final event within 1 s', async () => {
      const streams = await Promise.all(
        Array.from({ length: 8 }, (_, i) => openStream(venue.url, `192.0.2.${i + 1}`)),
      )
      await Promise.all(streams.map((s) => s.until((text) => text.includes('event: ping'))))
      const started = Date.now()
      const closed = venue.close()
      await Promise.all(streams.map((s) => s.ended))
      const endedMs = Date.now() - started
      expect(endedMs).toBeLessThan(1000)
      await closed
      expect(Date.now() - started).toBeLessThan(1000)
      for (const stream of streams)
        expect(stream.text()).toMatch(/event: end\ndata: \{"reason":"shutting_down"\}\nretry: 2000/)
    })
  },
)
