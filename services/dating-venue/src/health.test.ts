import { createTestDatabase } from '@agents/service-kit/db'
import { expect, it } from 'vitest'
import { startTestVenue, TEST_DATABASE_URL, VENUE_TEST_DATABASE } from './testing.ts'

const server = TEST_DATABASE_URL

it.each([
  ['PGlite', async () => ({ url: undefined, drop: async () => {} })],
  ...(server
    ? [['PostgreSQL', () => createTestDatabase(server, VENUE_TEST_DATABASE)] as const]
    : []),
] as const)(
  'GET /health answers 500 ok=false when the database probe fails (%s)',
  async (_, open) => {
    const database = await open()
    const venue = await startTestVenue({ databaseUrl: database.url })
    try {
      expect(await fetch(`${venue.url}/health`).then((r) => r.json())).toMatchObject({
        ok: true,
        mode: 'day0',
      })
      // Break the connection under the running service.
      await venue.deps.database.close()
      const broken = await fetch(`${venue.url}/health`)
      expect(broken.status).toBe(500)
      expect(await broken.json()).toEqual({ ok: false, error: 'database unavailable' })
    } finally {
      await venue.close().catch(() => {})
      await database.drop()
    }
  },
)
