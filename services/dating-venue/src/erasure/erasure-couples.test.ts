import { createServer } from 'node:http'
import { testBackends } from '@agents/service-kit/db'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { TEST_ADMIN_TOKEN, TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'
import { bearer, erasureVenue, HEART_A, HEART_B } from './testing/erasure-venue.ts'

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'erasure of couples and personas on $name',
  ({ name, open }) => {
    const t = erasureVenue(open)
    const { call, sql, member } = t

    it('a partner with a callback is told by a signed message, as for a withdrawal', async () => {
      // Only the two new personas are free for the beat.
      await sql(`UPDATE personas SET status = 'withdrawn' WHERE status = 'admitted'`)
      const received: Array<{ body: string; signature: string | undefined }> = []
      const hook = createServer((request, response) => {
        let body = ''
        request.on('data', (chunk) => (body += chunk))
        request.on('end', () => {
          const parsed = JSON.parse(body) as { challenge?: string }
          if (!parsed.challenge)
            received.push({ body, signature: request.headers['venue-signature'] as string })
          response.setHeader('content-type', 'application/json')
          response.end(JSON.stringify(parsed.challenge ? { echo: parsed.challenge } : { ok: true }))
        })
      })
      await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve))
      try {
        const hookUrl = `http://127.0.0.1:${(hook.address() as { port: number }).port}/hook`
        const e = await member(
          'signal: iouae-leaving',
          HEART_A,
          privateKeyToAccount(generatePrivateKey()),
        )
        const f = await member(
          'signal: aeoiu-staying',
          HEART_B,
          privateKeyToAccount(generatePrivateKey()),
          hookUrl,
        )
        const beat = await call(
          'POST',
          '/admin/actions/beat',
          { cycleId: `erase-callback-${name}` },
          bearer(TEST_ADMIN_TOKEN),
        )
        expect(beat.json.created).toBe(1)
        const coupleId = beat.json.coupleIds[0] as number
        expect(
          (await call('DELETE', `/api/owners/${e.ownerId}`, undefined, bearer(e.credential))).json,
        ).toMatchObject({ erased: true, couplesEnded: 1 })
        const told = received
          .map((r) => ({ ...r, json: JSON.parse(r.body) }))
          .find((r) => r.json.type === 'withdrawn')
        expect(told?.json).toEqual({
          type: 'withdrawn',
          coupleId,
          personaId: f.personaId,
          reason: 'the other side withdrew',
        })
        expect(told?.signature).toBeTruthy()
        expect(told?.body).not.toContain(e.handle)
        // Told by callback: no board line for it.
        expect((await call('GET', '/api/boards/notifications')).text).not.toContain(
          `@${f.handle}: couple`,
        )
      } finally {
        hook.close()
      }
    }, 60_000)
  },
)
